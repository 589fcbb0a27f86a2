package main

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore/entry"
)

// TestTwoBranchesContinuingOneRun: two branches that continue the same
// named run both wrote journal/<run>/0003.md, 0004.md and 0005.md, so
// git merge and git rebase stopped on add/add conflicts, and the merge
// driver fused two different iterations into one with markers around
// task_id, model, created_at and the body; a headless loop stopped there.
// Each iteration's file now has a name of its own: a shared run of two
// iterations, then three on each branch, merge with plain git merge and,
// separately, rebase with plain git rebase, without a conflict; every
// iteration is there, and the journal and the strategy figures read them.
func TestTwoBranchesContinuingOneRun(t *testing.T) {
	bin := buildLore(t)
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	lore := func(args ...string) string {
		t.Helper()
		out, errOut, err := runLoreIn(t, r, "", bin, args...)
		if err != nil {
			t.Fatalf("lore %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
		}
		return out
	}
	iteration := func(task, outcome, notes string) {
		t.Helper()
		lore("journal", "add", "--run", "sprint", "--task", task, "--outcome", outcome, "--model", "sonnet", notes)
	}
	lore("init")
	iteration("t-shared", "done", "Shared one.")
	iteration("t-shared", "done", "Shared two.")

	r.Git("checkout", "-q", "-b", "left")
	iteration("t-left", "failed", "Left three.")
	iteration("t-left", "failed", "Left four.")
	iteration("t-left", "done", "Left five.")
	r.Git("checkout", "-q", "main")
	iteration("t-right", "failed", "Right three.")
	iteration("t-right", "failed", "Right four.")
	iteration("t-right", "failed", "Right five.")
	r.Git("branch", "main-before")

	// check reads the journal of the branch checked out, as lore and git
	// see it, after the merge or the rebase.
	check := func(how string) {
		t.Helper()
		if u := conflicted(r, r.Dir); u != "" {
			t.Fatalf("%s: unmerged: %s", how, u)
		}
		r.AssertClean()
		files := strings.Split(r.Git("ls-files", ".agent/journal/sprint"), "\n")
		if len(files) != 8 {
			t.Fatalf("%s: %d iteration files:\n%s", how, len(files), strings.Join(files, "\n"))
		}
		var es []entry.JournalEntry
		if err := json.Unmarshal([]byte(lore("journal", "list", "--run", "sprint", "--format", "json")), &es); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range es {
			got = append(got, fmt.Sprintf("%d %s", e.Iteration, e.Notes))
		}
		want := []string{"1 Shared one.", "2 Shared two.", "3 Left three.", "3 Right three.", "4 Left four.", "4 Right four.", "5 Left five.", "5 Right five."}
		sorted := slices.Clone(got)
		slices.Sort(sorted)
		if !slices.Equal(sorted, want) {
			t.Fatalf("%s: journal\n%s\nwant\n%s", how, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		for i := 1; i < len(es); i++ {
			if es[i].Iteration < es[i-1].Iteration {
				t.Fatalf("%s: the journal is not in iteration order:\n%s", how, strings.Join(got, "\n"))
			}
		}
		// Every entry has an id of its own, and lore journal show finds it.
		list := lore("journal", "list", "--run", "sprint", "--format", "table")
		ids := map[string]bool{}
		for _, e := range es {
			id := e.RunID + "/" + strings.TrimSuffix(path.Base(e.Path), ".md")
			if ids[id] || !strings.Contains(list, id+" ") {
				t.Fatalf("%s: id %s repeated or not listed:\n%s", how, id, list)
			}
			ids[id] = true
			if show := lore("journal", "show", id); !strings.Contains(show, e.Notes) {
				t.Fatalf("%s: lore journal show %s:\n%s", how, id, show)
			}
		}
		// An iteration number that two branches recorded names both.
		if out, errOut, err := runLoreIn(t, r, "", bin, "journal", "show", "sprint/3"); err == nil || !strings.Contains(errOut, "sprint/0003-") {
			t.Fatalf("%s: lore journal show sprint/3: %v\n%s%s", how, err, out, errOut)
		}
		if show := lore("journal", "show", "sprint/0001"); !strings.Contains(show, "Shared one.") {
			t.Fatalf("%s: lore journal show sprint/0001:\n%s", how, show)
		}

		var right, left struct {
			Iteration int `json:"iteration"`
			Task      struct {
				Attempts            int  `json:"attempts"`
				ConsecutiveFailures int  `json:"consecutive_failures"`
				Stuck               bool `json:"stuck"`
			} `json:"task"`
			Run struct {
				Total int `json:"iterations"`
			} `json:"run"`
		}
		if err := json.Unmarshal([]byte(lore("status", "--run", "sprint", "--task", "t-right", "--format", "json")), &right); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(lore("status", "--run", "sprint", "--task", "t-left", "--format", "json")), &left); err != nil {
			t.Fatal(err)
		}
		if right.Task.Attempts != 3 || right.Task.ConsecutiveFailures != 3 || !right.Task.Stuck || right.Run.Total != 8 || right.Iteration != 6 {
			t.Errorf("%s: status of t-right: %+v", how, right)
		}
		if left.Task.Attempts != 3 || left.Task.ConsecutiveFailures != 0 || left.Task.Stuck {
			t.Errorf("%s: status of t-left: %+v", how, left)
		}
		if out := lore("validate"); strings.Contains(out, "error") {
			t.Errorf("%s: lore validate:\n%s", how, out)
		}
		// The next iteration is the one after the highest.
		if out := lore("journal", "add", "--run", "sprint", "--outcome", "done", "--format", "quiet", "Next."); !strings.HasPrefix(out, "sprint/0006-") {
			t.Errorf("%s: the next iteration is %s", how, out)
		}
	}

	if out, err := r.GitErr("merge", "--no-edit", "left"); err != nil {
		t.Fatalf("git merge: %v\n%s", err, out)
	}
	check("git merge")

	r.Git("checkout", "-q", "-b", "rebased", "left")
	if out, err := r.GitErr("rebase", "main-before"); err != nil {
		t.Fatalf("git rebase: %v\n%s", err, out)
	}
	check("git rebase")
}
