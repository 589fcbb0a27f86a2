package merge

import (
	"strings"
	"testing"

	"lore/mdstore/entry"
)

// Two branches that both touch an entry both move its timestamps: the
// driver used to put created_at and updated_at between conflict markers,
// and a headless loop stopped there, although the later time is always
// the right one.
func TestMergeTimestampsBothSidesChangedTakeTheLaterOne(t *testing.T) {
	edit := func(pairs ...string) string { return strings.NewReplacer(pairs...).Replace(knowledgeBase) }
	withUpdated := func(v string) string {
		return edit(`created_at: "2026-02-17T12:00:00Z"`+"\n", `created_at: "2026-02-17T12:00:00Z"`+"\nupdated_at: "+v+"\n")
	}
	tests := []struct {
		name, base, ours, theirs, want string
	}{
		{
			name:   "updated_at added on both sides, theirs later",
			base:   knowledgeBase,
			ours:   withUpdated(`"2026-02-18T09:00:00Z"`),
			theirs: withUpdated(`"2026-02-18T10:30:00Z"`),
			want:   withUpdated(`"2026-02-18T10:30:00Z"`),
		},
		{
			name:   "updated_at changed on both sides, ours later",
			base:   withUpdated(`"2026-02-18T08:00:00Z"`),
			ours:   withUpdated(`"2026-02-19T00:00:00Z"`),
			theirs: withUpdated(`"2026-02-18T23:59:59Z"`),
			want:   withUpdated(`"2026-02-19T00:00:00Z"`),
		},
		{
			name:   "instants compared, not text: an offset",
			base:   withUpdated(`"2026-02-18T08:00:00Z"`),
			ours:   withUpdated(`"2026-02-18T11:00:00+02:00"`), // 09:00Z
			theirs: withUpdated(`2026-02-18T10:00:00Z`),        // plain YAML, a !!timestamp
			want:   withUpdated(`2026-02-18T10:00:00Z`),
		},
		{
			name:   "created_at too, beside a tag added on each side",
			base:   knowledgeBase,
			ours:   edit("2026-02-17T12:00:00Z", "2026-02-17T13:00:00Z", "[testing, cargo]", "[testing, cargo, a]"),
			theirs: edit("2026-02-17T12:00:00Z", "2026-02-17T12:30:00Z", "[testing, cargo]", "[testing, cargo, b]"),
			want:   edit("2026-02-17T12:00:00Z", "2026-02-17T13:00:00Z", "[testing, cargo]", "[testing, cargo, a, b]"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mergeOK(t, knowledgePath, tt.base, tt.ours, tt.theirs)
			if string(res.Data) != tt.want || res.Conflicts != 0 {
				t.Fatalf("%d conflicts:\n%s\nwant:\n%s", res.Conflicts, res.Data, tt.want)
			}
			res = mergeOK(t, knowledgePath, tt.base, tt.theirs, tt.ours)
			if res.Conflicts != 0 || !strings.Contains(string(res.Data), tt.want[strings.Index(tt.want, "created_at"):strings.Index(tt.want, "\n---")]) {
				t.Fatalf("sides swapped: %d conflicts:\n%s", res.Conflicts, res.Data)
			}
		})
	}

	// A learning's and a journal entry's created_at merge the same way.
	learning := string(readTestdata(t, "learning.golden.md"))
	lp := entry.LearningsDir + "/l-1a2b3c.md"
	old := "created_at: " + fieldValue(t, learning, "created_at")
	res := mergeOK(t, lp, learning, strings.Replace(learning, old, `created_at: "2030-01-01T00:00:00Z"`, 1), strings.Replace(learning, old, `created_at: "2030-01-02T00:00:00Z"`, 1))
	if res.Conflicts != 0 || !strings.Contains(string(res.Data), `created_at: "2030-01-02T00:00:00Z"`) {
		t.Fatalf("learning: %d conflicts:\n%s", res.Conflicts, res.Data)
	}
	journal := string(readTestdata(t, "journal.golden.md"))
	res = mergeOK(t, journalPath0004, journal, strings.Replace(journal, "2026-02-17T12:00:00Z", "2026-02-17T12:05:00Z", 1), strings.Replace(journal, "2026-02-17T12:00:00Z", "2026-02-17T12:01:00Z", 1))
	if res.Conflicts != 0 || !strings.Contains(string(res.Data), `created_at: "2026-02-17T12:05:00Z"`) {
		t.Fatalf("journal: %d conflicts:\n%s", res.Conflicts, res.Data)
	}

	// A field that is not a time on both sides is still a conflict.
	res = mergeOK(t, knowledgePath, withUpdated(`"2026-02-18T08:00:00Z"`), withUpdated(`"yesterday"`), withUpdated(`"2026-02-19T00:00:00Z"`))
	if res.Conflicts != 1 {
		t.Fatalf("a time against a word: %d conflicts:\n%s", res.Conflicts, res.Data)
	}
}

func fieldValue(t *testing.T, text, key string) string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, key+": "); ok {
			return v
		}
	}
	t.Fatalf("no %s in\n%s", key, text)
	return ""
}

// Two branches continuing one run both wrote journal/<run>/0033.md, in
// the file names lore gave iterations before they were made unique: two
// different iterations added at one path. The driver merged them field by
// field into an iteration that never happened (ours' task with theirs'
// model, markers around the rest). It must keep both, whole, and say why.
func TestMergeTwoIterationsAddedAtOnePathAreNotMixed(t *testing.T) {
	ours := entry.RenderJournal(entry.JournalEntry{RunID: "run-0a1b2c3d", Iteration: 33, TaskID: "t-ours", Outcome: "done", Model: "sonnet",
		FilesModified: []string{"a.go"}, CreatedAt: "2026-02-17T12:00:00Z", Notes: "Ours did the parser."})
	theirs := entry.RenderJournal(entry.JournalEntry{RunID: "run-0a1b2c3d", Iteration: 33, TaskID: "t-theirs", Outcome: "failed", Model: "opus",
		FilesModified: []string{"b.go"}, CreatedAt: "2026-02-17T12:04:00Z", Notes: "Theirs broke the build."})
	path := entry.JournalDir + "/run-0a1b2c3d/0033.md"
	for _, base := range [][]byte{nil, {}} { // git hands an add/add an empty base
		res, err := File(path, base, ours, theirs, Labels{Ours: "ours", Theirs: "theirs"})
		if err != nil {
			t.Fatal(err)
		}
		if want := conflictBlock(string(ours), string(theirs)); string(res.Data) != want || res.Conflicts != 1 {
			t.Fatalf("%d conflicts:\n%s\nwant:\n%s", res.Conflicts, res.Data, want)
		}
		if !strings.Contains(res.Note, "two iterations") {
			t.Errorf("note %q", res.Note)
		}
	}
	// The same iteration added on both sides is one file.
	res := mergeOK(t, path, "", string(ours), string(ours))
	if string(res.Data) != string(ours) || res.Conflicts != 0 {
		t.Fatalf("%d conflicts:\n%s", res.Conflicts, res.Data)
	}
}
