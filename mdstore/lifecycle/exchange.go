package lifecycle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"lore/internal/fsx"
	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// ExportVersion is the version of lore's export format.
const ExportVersion = 1

// Export is every entry of a store (or of the kinds asked for), whole: what
// lore export writes as JSON and lore import reads back. Importing it into
// an empty store and exporting again gives the same bytes.
type Export struct {
	Version   int                  `json:"lore_export"`
	Memories  []entry.Memory       `json:"memories"`
	Knowledge []entry.Knowledge    `json:"knowledge"`
	Learnings []entry.Learning     `json:"learnings"`
	Journal   []entry.JournalEntry `json:"journal"`
}

// ExportFrom reads the entries of the kinds asked for (every kind when none
// is), in the order lore lists them: memories as memories.md has them,
// knowledge by title, learnings oldest first, the journal by run and
// iteration.
func ExportFrom(s *mdstore.Store, kinds ...entry.Kind) (Export, []entry.Warning, error) {
	want := func(k entry.Kind) bool { return len(kinds) == 0 || slices.Contains(kinds, k) }
	x := Export{Version: ExportVersion, Memories: []entry.Memory{}, Knowledge: []entry.Knowledge{}, Learnings: []entry.Learning{}, Journal: []entry.JournalEntry{}}
	var warnings []entry.Warning
	if want(entry.KindMemory) {
		ms, ws, err := s.Memories()
		if err != nil {
			return x, nil, err
		}
		x.Memories, warnings = append(x.Memories, ms...), append(warnings, ws...)
	}
	if want(entry.KindKnowledge) || want(entry.KindLearning) || want(entry.KindJournal) {
		e, ws, err := s.Entries()
		if err != nil {
			return x, nil, err
		}
		warnings = append(warnings, ws...)
		if want(entry.KindKnowledge) {
			x.Knowledge = append(x.Knowledge, e.Knowledge...)
		}
		if want(entry.KindLearning) {
			x.Learnings = append(x.Learnings, e.Learnings...)
		}
		if want(entry.KindJournal) {
			x.Journal = append(x.Journal, e.Journal...)
		}
	}
	return x, warnings, nil
}

// ReadExport reads lore's export format; ok is false when data is JSON of
// another shape (not an export).
func ReadExport(data []byte) (x Export, ok bool, err error) {
	var probe struct {
		Version *int `json:"lore_export"`
	}
	if err := json.Unmarshal(data, &probe); err != nil || probe.Version == nil {
		return Export{}, false, nil
	}
	if *probe.Version != ExportVersion {
		return Export{}, true, fmt.Errorf("lore export version %d: this lore reads version %d", *probe.Version, ExportVersion)
	}
	if err := json.Unmarshal(data, &x); err != nil {
		return Export{}, true, fmt.Errorf("not a lore export: %w", err)
	}
	return x, true, nil
}

// ImportResult counts what an import did with each kind of entry: added,
// or kept out because the store has it (the same id, or a near-duplicate
// learning).
type ImportResult struct {
	Added map[entry.Kind]int `json:"added"`
	Kept  map[entry.Kind]int `json:"kept"`
}

// Total is how many entries the import added.
func (r ImportResult) Total() int {
	n := 0
	for _, c := range r.Added {
		n += c
	}
	return n
}

// ImportPlan is an export checked for import: every entry renders to a
// file that parses back as itself, in its kind's place, and holds no
// secret.
type ImportPlan struct {
	Export Export
	// Source names where the entries came from, in the commit's subject.
	Source string
}

// PlanImport checks x for import from source: an entry that is not valid
// refuses the whole import, naming it. It changes nothing.
func PlanImport(x Export, source string) (*ImportPlan, error) {
	if err := x.check(); err != nil {
		return nil, err
	}
	return &ImportPlan{Export: x, Source: source}, nil
}

// Apply adds the plan's entries the store does not have, as one commit:
// a memory, knowledge entry, learning or journal entry whose id (or file)
// the store has is kept as the store has it, and a learning that nearly
// duplicates one there is not added. Each entry keeps its id, times and
// status. Importing the same entries twice changes nothing the second
// time.
func (plan *ImportPlan) Apply(s *mdstore.Store) (ImportResult, *mdstore.WriteResult, error) {
	x, source := plan.Export, plan.Source
	res := ImportResult{Added: map[entry.Kind]int{}, Kept: map[entry.Kind]int{}}
	wr, err := s.Write(func(tx *mdstore.Tx) error {
		res = ImportResult{Added: map[entry.Kind]int{}, Kept: map[entry.Kind]int{}}
		added, kept := res.Added, res.Kept
		// Memories: by id.
		if len(x.Memories) > 0 {
			data, _, err := tx.Read(entry.MemoriesPath)
			if err != nil {
				return err
			}
			have := entry.ParseMemoriesFile(data, entry.MemoriesPath).IDs()
			// On top of their sections, in the export's order, in one
			// edit of the file (addMemories: of two with one id, the last).
			for i := len(x.Memories) - 1; i >= 0; i-- {
				if have[x.Memories[i].ID] {
					kept[entry.KindMemory]++
					continue
				}
				have[x.Memories[i].ID] = true
				added[entry.KindMemory]++
			}
			if added[entry.KindMemory] > 0 {
				tx.Apply(mdstore.Edit{Path: entry.MemoriesPath, Op: mdstore.OpAddMemories, Memories: x.Memories})
			}
		}
		put := func(kind entry.Kind, p string, content []byte) error {
			exists, err := tx.Exists(p)
			if err != nil {
				return err
			}
			if exists {
				kept[kind]++
				return nil
			}
			tx.Apply(mdstore.Edit{Path: p, Op: mdstore.OpPut, Content: string(content)})
			added[kind]++
			return nil
		}
		for _, k := range x.Knowledge {
			k.Path = entry.KnowledgePath(k.Slug)
			if err := put(entry.KindKnowledge, k.Path, entry.RenderKnowledge(k)); err != nil {
				return err
			}
		}
		if len(x.Learnings) > 0 {
			var bodies []string
			for _, l := range x.Learnings {
				bodies = append(bodies, l.Body)
			}
			stored, err := tx.Learnings(bodies...)
			if err != nil {
				return err
			}
			for _, l := range x.Learnings {
				l.Path = entry.LearningPath(l.ID)
				if stored.Taken(l.ID) {
					kept[entry.KindLearning]++
					continue
				}
				if _, dup := stored.DuplicateOf(l.Category, l.Body); dup && l.Shown() {
					kept[entry.KindLearning]++
					continue
				}
				stored.Add(l.ID)
				if err := put(entry.KindLearning, l.Path, entry.RenderLearning(l)); err != nil {
					return err
				}
			}
		}
		for _, j := range x.Journal {
			if err := put(entry.KindJournal, j.Path, entry.RenderJournal(j)); err != nil {
				return err
			}
		}
		if res.Total() == 0 {
			return mdstore.ErrUnchanged
		}
		var body []string
		for _, k := range []entry.Kind{entry.KindMemory, entry.KindKnowledge, entry.KindLearning, entry.KindJournal} {
			if added[k] > 0 || kept[k] > 0 {
				body = append(body, fmt.Sprintf("%s: %d added, %d already there", k, added[k], kept[k]))
			}
		}
		tx.SetMessage(mdstore.CommitMessage(fmt.Sprintf("lore: import %d %s from %s", res.Total(), words.Plural(res.Total(), "entry", "entries"), source),
			strings.Join(body, "\n"), "Lore-Kind", "import"))
		return nil
	})
	if errors.Is(err, mdstore.ErrUnchanged) {
		return res, nil, nil
	}
	return res, wr, err
}

// check refuses an export lore would not write: an entry that does not
// render to a file that parses back as itself, a path outside its kind's
// place, or a secret in any text.
func (x *Export) check() error {
	c := &entry.SecretCheck{}
	for i := range x.Memories {
		m := &x.Memories[i]
		if !entry.ValidMemoryID(m.ID) || !slices.Contains(entry.MemoryTypes, m.Type) {
			return &entry.InputError{Field: "memories", Msg: fmt.Sprintf("memory %d (%q): not a memory lore can write (an id mem-…, a type of %v)", i+1, m.ID, entry.MemoryTypes)}
		}
		if err := c.Texts(entry.TextField{Name: "memory " + m.ID, Value: &m.Content}); err != nil {
			return err
		}
		if err := c.List("memory "+m.ID+" tags", &m.Tags); err != nil {
			return err
		}
	}
	for i := range x.Knowledge {
		k := &x.Knowledge[i]
		if !entry.IsSlug(k.Slug) {
			return &entry.InputError{Field: "knowledge", Msg: fmt.Sprintf("knowledge entry %d: %q is not a slug", i+1, k.Slug)}
		}
		if err := c.Texts(entry.TextField{Name: "knowledge " + k.Slug, Value: &k.Body}, entry.TextField{Name: "knowledge " + k.Slug + " title", Value: &k.Title}); err != nil {
			return err
		}
		if _, err := entry.ParseKnowledge(entry.RenderKnowledge(*k), entry.KnowledgePath(k.Slug)); err != nil {
			return &entry.InputError{Field: "knowledge", Msg: fmt.Sprintf("knowledge %s: %v", k.Slug, err)}
		}
	}
	for i := range x.Learnings {
		l := &x.Learnings[i]
		if !entry.ValidLearningID(l.ID) {
			return &entry.InputError{Field: "learnings", Msg: fmt.Sprintf("learning %d: %q is not a learning id", i+1, l.ID)}
		}
		if err := c.Texts(entry.TextField{Name: "learning " + l.ID, Value: &l.Body}, entry.TextField{Name: "learning " + l.ID + " reason", Value: &l.StatusReason}); err != nil {
			return err
		}
		if _, err := entry.ParseLearning(entry.RenderLearning(*l), entry.LearningPath(l.ID)); err != nil {
			return &entry.InputError{Field: "learnings", Msg: fmt.Sprintf("learning %s: %v", l.ID, err)}
		}
	}
	for i := range x.Journal {
		j := &x.Journal[i]
		dir, name := path.Split(j.Path)
		if dir != entry.JournalDir+"/"+j.RunID+"/" || entry.KindOf(j.Path) != entry.KindJournal || !strings.HasSuffix(name, ".md") {
			return &entry.InputError{Field: "journal", Msg: fmt.Sprintf("journal entry %d: %q is not the file of an iteration of %s", i+1, j.Path, j.RunID)}
		}
		if err := c.Texts(entry.TextField{Name: "journal " + j.Path, Value: &j.Notes}); err != nil {
			return err
		}
		if _, err := entry.ParseJournal(entry.RenderJournal(*j), j.Path); err != nil {
			return &entry.InputError{Field: "journal", Msg: fmt.Sprintf("journal %s: %v", j.Path, err)}
		}
	}
	return nil
}

// ReadSeedStores reads the stores of the systems lore's seeds describe
// that lie in dir (a project, or its .ralph directory): ralph-orchestrator's
// .ralph/agent/memories.md (lore's own format), RefoundAI ralph's
// .ralph/knowledge/*.md (lore's knowledge format, the slug its file name)
// and the journal of its .ralph/progress.db (a SQLite database, read by
// readDB), and aiwg's .aiwg/knowledge/ralph-learnings.json (seed 004's
// learnings, its checksum verified), as an Export for Import. A file that
// does not read is a warning, and left out; a progress.db that readDB
// cannot read is an error. found names what was read.
func ReadSeedStores(dir string, readDB func(path string) ([]entry.JournalEntry, error)) (x Export, found []string, warnings []entry.Warning, err error) {
	x = Export{Version: ExportVersion}
	base := dir
	if filepath.Base(filepath.Clean(dir)) != ".ralph" {
		base = filepath.Join(dir, ".ralph")
	}
	mem := filepath.Join(base, "agent", "memories.md")
	if data, err := fsx.ReadRegular(mem, entry.ReadLimit(entry.MemoriesPath)); err == nil {
		ms, ws := entry.ParseMemories(data, mem)
		x.Memories, warnings = append(x.Memories, ms...), append(warnings, ws...)
		found = append(found, mem)
	} else if !errors.Is(err, os.ErrNotExist) {
		warnings = append(warnings, entry.Warning{Path: mem, Message: "cannot be read: " + err.Error()})
	}
	aiwg := filepath.Join(filepath.Dir(base), ".aiwg", "knowledge", "ralph-learnings.json")
	if filepath.Base(filepath.Clean(dir)) == ".aiwg" {
		aiwg = filepath.Join(dir, "knowledge", "ralph-learnings.json")
	}
	if ls, ws, err := readAiwg(aiwg); err == nil {
		x.Learnings, warnings = append(x.Learnings, ls...), append(warnings, ws...)
		found = append(found, aiwg)
	} else if !errors.Is(err, os.ErrNotExist) {
		return x, found, warnings, err
	}
	db := filepath.Join(base, "progress.db")
	if info, err := os.Lstat(db); err == nil {
		if !info.Mode().IsRegular() {
			return x, found, warnings, fmt.Errorf("%s: not a regular file", db)
		}
		journal, err := readDB(db)
		if err != nil {
			return x, found, warnings, err
		}
		x.Journal = append(x.Journal, journal...)
		found = append(found, db)
	}
	kdir := filepath.Join(base, "knowledge")
	entries, err := os.ReadDir(kdir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return x, found, warnings, fmt.Errorf("read %s: %w", kdir, err)
	}
	for _, e := range entries {
		name := e.Name()
		slug := strings.TrimSuffix(name, ".md")
		if !e.Type().IsRegular() || slug == name || strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(kdir, name)
		data, err := fsx.ReadRegular(p, entry.FileReadLimit)
		if err != nil {
			warnings = append(warnings, entry.Warning{Path: p, Message: "cannot be read: " + err.Error()})
			continue
		}
		if !entry.IsSlug(slug) {
			warnings = append(warnings, entry.Warning{Path: p, Message: "left out: its name is not a slug lore can keep"})
			continue
		}
		k, err := entry.ParseKnowledge(data, entry.KnowledgePath(slug))
		if err != nil {
			warnings = append(warnings, entry.Warning{Path: p, Message: "left out: " + err.Error()})
			continue
		}
		x.Knowledge = append(x.Knowledge, k)
		found = append(found, p)
	}
	return x, found, warnings, nil
}

// aiwgStore is aiwg's .aiwg/knowledge/ralph-learnings.json (seed 004's
// L3 semantic memory), as much of it as an import reads.
type aiwgStore struct {
	Checksum  string          `json:"checksum"`
	Learnings json.RawMessage `json:"learnings"`
}

type aiwgLearning struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	TaskType    string          `json:"taskType"`
	Content     json.RawMessage `json:"content"`
	Confidence  *float64        `json:"confidence"`
	SourceLoops []string        `json:"sourceLoops"`
	CreatedAt   string          `json:"createdAt"`
	SuccessRate *float64        `json:"successRate"`
}

// readAiwg reads aiwg's learnings at p as seed-004 learnings: its SHA-256
// checksum of the compact learnings array must hold (aiwg's own check;
// a mismatch means the file is damaged), each learning's type is its kind
// and category, its task type a tag, and its id, made a lore id, the same
// on every import.
func readAiwg(p string) ([]entry.Learning, []entry.Warning, error) {
	data, err := fsx.ReadRegular(p, 16<<20)
	if err != nil {
		return nil, nil, err
	}
	var st aiwgStore
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, nil, fmt.Errorf("%s: not aiwg's learnings: %w", p, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, st.Learnings); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p, err)
	}
	sum := sha256.Sum256(compact.Bytes())
	if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, st.Checksum) {
		return nil, nil, fmt.Errorf("%s: checksum mismatch (the file says %s, its learnings hash to %s): it is damaged; aiwg keeps a backup beside it (.bak)", p, st.Checksum, got)
	}
	var raw []aiwgLearning
	if err := json.Unmarshal(st.Learnings, &raw); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p, err)
	}
	var out []entry.Learning
	var warnings []entry.Warning
	for i, a := range raw {
		kind := strings.ToLower(a.Type)
		body := aiwgText(a.Content)
		if !slices.Contains(entry.LearningKinds, kind) || body == "" {
			warnings = append(warnings, entry.Warning{Path: p, Message: fmt.Sprintf("learning %d (%s): left out: a type of %s and content are needed", i+1, a.ID, strings.Join(entry.LearningKinds, ", "))})
			continue
		}
		idSum := sha256.Sum256([]byte("aiwg:" + a.ID))
		l := entry.Learning{ID: "l-" + hex.EncodeToString(idSum[:3]), Category: kind, Kind: kind, Status: "active",
			TaskType: a.TaskType, Confidence: a.Confidence, SuccessRate: a.SuccessRate, SourceRuns: a.SourceLoops,
			CreatedAt: a.CreatedAt, Body: body}
		l.Tags = []string{kind}
		if tt := strings.ToLower(strings.TrimSpace(a.TaskType)); tt != "" {
			l.Tags = []string{tt}
		}
		out = append(out, l)
	}
	return out, warnings, nil
}

// aiwgText is a learning's content as a sentence: a string as it is, or
// an object's description followed by its other fields.
func aiwgText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return strings.TrimSpace(s)
	}
	var fields map[string]any
	if json.Unmarshal(content, &fields) != nil {
		return ""
	}
	desc, _ := fields["description"].(string)
	var rest []string
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == "description" {
			continue
		}
		switch v := fields[k].(type) {
		case string, float64, bool:
			rest = append(rest, fmt.Sprintf("%s: %v", k, v))
		}
	}
	text := strings.TrimSpace(desc)
	if len(rest) > 0 {
		if text != "" {
			text += " "
		}
		text += "(" + strings.Join(rest, ", ") + ")"
	}
	return text
}
