package lifecycle

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// ExportVersion is the version of lore's export format.
const ExportVersion = 1

// MaxExportSize caps what lore import reads of an export: a store of
// 100,000 entries exports to about 100 MiB.
const MaxExportSize = 256 << 20

// Export is every entry of a store (or of the kinds asked for), whole: what
// lore export writes as JSON and lore import reads back. Importing it into
// an empty store and exporting again gives the same bytes.
type Export struct {
	Version   int                  `json:"lore_export"`
	Memories  []entry.Memory       `json:"memories"`
	Knowledge []entry.Knowledge    `json:"knowledge"`
	Learnings []entry.Learning     `json:"learnings"`
	Journal   []entry.JournalEntry `json:"journal"`

	// reid says, for a learning whose id lore made from another system's
	// (aiwg's), the seed of that id (aiwgID): an import that finds its id
	// taken by another learning gives it the seed's next id.
	reid map[string]string
	// sourceTag names, for a knowledge entry read from another system's
	// store that keeps no creation time (beads, a CLAUDE.md, Claude
	// Code's memory folder), the tag every entry lore made from that
	// source has: the store's entry of its slug with that tag is the one
	// the source has, whatever its time; one without is another's.
	sourceTag map[string]string
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
// kept out because the store has it (the same entry — its id and its
// creation time —, or a near-duplicate learning), or not imported because
// the store has another entry of its id (Collided names them).
type ImportResult struct {
	Added    map[entry.Kind]int      `json:"added"`
	Kept     map[entry.Kind]int      `json:"kept"`
	Collided map[entry.Kind][]string `json:"collided,omitempty"`
	// Differs names the entries the store has from the source whose
	// content the source has changed: kept as the store has them, unless
	// the import updates, when they are Updated instead.
	Differs map[entry.Kind][]string `json:"differs,omitempty"`
	Updated map[entry.Kind][]string `json:"updated,omitempty"`
	// Reidentified are the learnings made from another system's ids whose
	// id the store had for another learning, each with the id it was given
	// instead ("l-1a2b3c -> l-4d5e6f").
	Reidentified []string `json:"reidentified,omitempty"`
}

// Total is how many entries the import added or updated.
func (r ImportResult) Total() int {
	n := 0
	for _, c := range r.Added {
		n += c
	}
	for _, u := range r.Updated {
		n += len(u)
	}
	return n
}

// Any reports whether the import met an entry of kind.
func (r ImportResult) Any(kind entry.Kind) bool {
	return r.Added[kind]+r.Kept[kind]+len(r.Collided[kind])+len(r.Differs[kind])+len(r.Updated[kind]) > 0
}

// Summary says, for kind, what the import did: "3 added, 1 already there,
// 1 not imported: the store has another entry of that id (l-1a2b3c)".
func (r ImportResult) Summary(kind entry.Kind) string {
	s := fmt.Sprintf("%d added, %d already there", r.Added[kind], r.Kept[kind])
	if d := r.Differs[kind]; len(d) > 0 {
		s += fmt.Sprintf(", %d differs (%s)", len(d), strings.Join(d, ", "))
	}
	if u := r.Updated[kind]; len(u) > 0 {
		s += fmt.Sprintf(", %d updated (%s)", len(u), strings.Join(u, ", "))
	}
	if c := r.Collided[kind]; len(c) > 0 {
		s += fmt.Sprintf(", %d not imported: the store has another entry of %s (%s)", len(c),
			words.Plural(len(c), "that id", "those ids"), strings.Join(c, ", "))
	}
	return s
}

// ImportPlan is an export checked for import: every entry renders to a
// file that parses back as itself, in its kind's place, and holds no
// secret.
type ImportPlan struct {
	Export Export
	// Source names where the entries came from, in the commit's subject.
	Source string
	// Update takes the source's version of an entry the store has from
	// it whose content differs (ImportResult.Differs otherwise).
	Update bool
	// Progress, when set, is told after each entry is weighed how many
	// of the plan's entries have been (a terminal shows it; nil is
	// silent).
	Progress func(done, total int)
}

// PlanImport checks x for import from source: an entry that is not valid,
// or that x holds twice, refuses the whole import, naming it. It changes
// nothing.
func PlanImport(x Export, source string) (*ImportPlan, error) {
	if err := x.check(); err != nil {
		return nil, err
	}
	return &ImportPlan{Export: x, Source: source}, nil
}

// Apply adds the plan's entries the store does not have, as one commit.
// An entry whose id (or file) the store has is the same entry when it was
// created at the same time (or, with no time, says the same): it is kept
// as the store has it. Another entry of that id is a collision: reported
// in the result and not imported — but for a learning whose id lore made
// from another system's, which is given the next id made from it. A
// learning that nearly duplicates one there is not added. Each entry keeps
// its id, times and status. Importing the same entries twice changes
// nothing the second time.
func (plan *ImportPlan) Apply(s *mdstore.Store) (ImportResult, *mdstore.WriteResult, error) {
	x, source := plan.Export, plan.Source
	var res ImportResult
	wr, err := s.Write(func(tx *mdstore.Tx) error {
		res = ImportResult{Added: map[entry.Kind]int{}, Kept: map[entry.Kind]int{}, Collided: map[entry.Kind][]string{}}
		added, kept := res.Added, res.Kept
		done, total := 0, len(x.Memories)+len(x.Knowledge)+len(x.Learnings)+len(x.Journal)
		step := func() {
			done++
			if plan.Progress != nil {
				plan.Progress(done, total)
			}
		}
		collided := func(kind entry.Kind, id string) { res.Collided[kind] = append(res.Collided[kind], id) }
		// differs reports whether the import takes the source's version
		// of id, which the store has otherwise.
		differs := func(kind entry.Kind, id string) bool {
			m := &res.Differs
			if plan.Update {
				m = &res.Updated
			}
			if *m == nil {
				*m = map[entry.Kind][]string{}
			}
			(*m)[kind] = append((*m)[kind], id)
			return plan.Update
		}
		// Memories: by id, which holds its creation time.
		if len(x.Memories) > 0 {
			data, _, err := tx.Read(entry.MemoriesPath)
			if err != nil {
				return err
			}
			have := map[string]entry.Memory{}
			for _, m := range entry.ParseMemoriesFile(data, entry.MemoriesPath).Memories {
				have[m.ID] = m
			}
			var add []entry.Memory
			for _, m := range x.Memories {
				step()
				had, ok := have[m.ID]
				switch {
				case !ok:
					add = append(add, m)
				case sameMemory(had, m):
					kept[entry.KindMemory]++
				case differs(entry.KindMemory, m.ID):
					tx.Apply(mdstore.Edit{Path: entry.MemoriesPath, Op: mdstore.OpRemoveMemory, ID: m.ID})
					add = append(add, m)
				}
			}
			if len(add) > 0 {
				// On top of their sections, in the export's order, in one
				// edit of the file.
				tx.Apply(mdstore.Edit{Path: entry.MemoriesPath, Op: mdstore.OpAddMemories, Memories: add})
				added[entry.KindMemory] += len(add) - len(res.Updated[entry.KindMemory])
			}
		}
		// stored reads the file at p if there is one, and reports whether
		// it holds the entry same says it is.
		stored := func(p string, same func(data []byte) bool) (exists, isSame bool, err error) {
			data, exists, err := tx.Read(p)
			if err != nil || !exists {
				return exists, false, err
			}
			return true, same(data), nil
		}
		for _, k := range x.Knowledge {
			step()
			k.Path = entry.KnowledgePath(k.Slug)
			var had entry.Knowledge
			exists, same, err := stored(k.Path, func(data []byte) bool {
				var err error
				had, err = entry.ParseKnowledge(data, k.Path)
				tag := x.sourceTag[k.Slug]
				return err == nil && (tag != "" && slices.Contains(had.Tags, tag) || sameCreation(had.CreatedAt, k.CreatedAt, had.Body, k.Body))
			})
			switch {
			case err != nil:
				return err
			case same && sameKnowledge(had, k):
				kept[entry.KindKnowledge]++
			case same:
				if differs(entry.KindKnowledge, k.Slug) {
					if k.CreatedAt == "" {
						k.CreatedAt = had.CreatedAt
					}
					tx.Apply(mdstore.Edit{Path: k.Path, Op: mdstore.OpPut, Content: string(entry.RenderKnowledge(k))})
				}
			case exists:
				collided(entry.KindKnowledge, k.Slug)
			default:
				tx.Apply(mdstore.Edit{Path: k.Path, Op: mdstore.OpPut, Content: string(entry.RenderKnowledge(k))})
				added[entry.KindKnowledge]++
			}
		}
		if len(x.Learnings) > 0 {
			var bodies []string
			inExport := make(map[string]bool, len(x.Learnings))
			for _, l := range x.Learnings {
				bodies = append(bodies, l.Body)
				inExport[l.ID] = true
			}
			have, err := tx.Learnings(bodies...)
			if err != nil {
				return err
			}
			for _, l := range x.Learnings {
				step()
				origin := l.ID
				seed, reid := x.reid[origin]
				for n := 1; ; {
					l.Path = entry.LearningPath(l.ID)
					var had entry.Learning
					exists, same, err := stored(l.Path, func(data []byte) bool {
						var err error
						had, err = entry.ParseLearning(data, l.Path)
						return err == nil && sameCreation(had.CreatedAt, l.CreatedAt, had.Body, l.Body)
					})
					if err != nil {
						return err
					}
					if same && sameLearning(had, l) {
						kept[entry.KindLearning]++
						break
					}
					if same {
						if differs(entry.KindLearning, l.ID) {
							// The source's text and figures; the store's
							// place in its lifecycle (status, supersession).
							l.Status, l.StatusReason, l.SupersededBy = had.Status, had.StatusReason, had.SupersededBy
							tx.Apply(mdstore.Edit{Path: l.Path, Op: mdstore.OpPut, Content: string(entry.RenderLearning(l))})
						}
						break
					}
					if exists || have.Taken(l.ID) { // another's, in the store or in this import
						if !reid {
							collided(entry.KindLearning, l.ID)
							break
						}
						// The next id made from the seed that no learning
						// of the export has.
						for l.ID = aiwgID(seed, n); inExport[l.ID]; l.ID = aiwgID(seed, n) {
							n++
						}
						n++
						continue
					}
					if _, dup := have.DuplicateOf(l.Category, l.Body); dup && l.Shown() {
						kept[entry.KindLearning]++
						break
					}
					if l.ID != origin {
						res.Reidentified = append(res.Reidentified, origin+" -> "+l.ID)
					}
					have.Add(l.ID)
					tx.Apply(mdstore.Edit{Path: l.Path, Op: mdstore.OpPut, Content: string(entry.RenderLearning(l))})
					added[entry.KindLearning]++
					break
				}
			}
		}
		for _, j := range x.Journal {
			step()
			exists, err := tx.Exists(j.Path)
			switch {
			case err != nil:
				return err
			case exists: // its path holds its run, iteration and tag
				kept[entry.KindJournal]++
			default:
				tx.Apply(mdstore.Edit{Path: j.Path, Op: mdstore.OpPut, Content: string(entry.RenderJournal(j))})
				added[entry.KindJournal]++
			}
		}
		if res.Total() == 0 {
			return mdstore.ErrUnchanged
		}
		var body []string
		for _, k := range []entry.Kind{entry.KindMemory, entry.KindKnowledge, entry.KindLearning, entry.KindJournal} {
			if res.Any(k) {
				body = append(body, fmt.Sprintf("%s: %s", k, res.Summary(k)))
			}
		}
		for _, r := range res.Reidentified {
			body = append(body, "learning "+r+": its id was another's")
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

// sameMemory reports whether the store's memory had says what m says.
func sameMemory(had, m entry.Memory) bool {
	return had.Type == m.Type && had.Created == m.Created && strings.TrimSpace(had.Content) == strings.TrimSpace(m.Content) &&
		slices.Equal(had.Tags, m.Tags)
}

// sameKnowledge reports whether the store's entry had says what k says
// (its times aside).
func sameKnowledge(had, k entry.Knowledge) bool {
	return had.Title == k.Title && had.Feature == k.Feature && slices.Equal(had.Tags, k.Tags) &&
		strings.TrimSpace(had.Body) == strings.TrimSpace(k.Body)
}

// sameLearning reports whether the store's learning had says what l, the
// same learning from its source, says: its text, category, tags and seed
// 004's figures. Its status and supersession are the store's own (lore
// learning status, supersede), not the source's.
func sameLearning(had, l entry.Learning) bool {
	return had.Category == l.Category && had.Kind == l.Kind && had.TaskType == l.TaskType && had.Task == l.Task &&
		slices.Equal(had.Tags, l.Tags) && slices.Equal(had.SourceRuns, l.SourceRuns) &&
		sameFloat(had.Confidence, l.Confidence) && sameFloat(had.SuccessRate, l.SuccessRate) &&
		strings.TrimSpace(had.Body) == strings.TrimSpace(l.Body)
}

func sameFloat(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// sameCreation reports whether an entry in the store (created at had,
// its body hadBody) is the one an import brings (at want, body): the same
// creation time, or with none, the same body.
func sameCreation(had, want, hadBody, body string) bool {
	if had != want {
		return false
	}
	return want != "" || strings.TrimSpace(hadBody) == strings.TrimSpace(body)
}

// check refuses an export lore would not write, naming the entry: first
// a secret in any text of any entry (every field its TextFields lists,
// so that no later message can echo one), then an entry the export holds
// twice, then an entry that is not one of its kind's (an id, a slug, a
// journal file in its run's directory) or whose file lore validate would
// find an error in.
func (x *Export) check() error {
	c := &entry.SecretCheck{}
	for i := range x.Memories {
		m := &x.Memories[i]
		if err := checkTexts(c, fmt.Sprintf("memory %d", i+1), m.TextFields(), 1, entry.ValidMemoryID(m.ID)); err != nil {
			return err
		}
	}
	for i := range x.Knowledge {
		k := &x.Knowledge[i]
		if err := checkTexts(c, fmt.Sprintf("knowledge entry %d", i+1), k.TextFields(), 1, entry.IsSlug(k.Slug)); err != nil {
			return err
		}
	}
	for i := range x.Learnings {
		l := &x.Learnings[i]
		if err := checkTexts(c, fmt.Sprintf("learning %d", i+1), l.TextFields(), 1, entry.ValidLearningID(l.ID)); err != nil {
			return err
		}
	}
	for i := range x.Journal {
		j := &x.Journal[i] // its run and its file's path name it
		if err := checkTexts(c, fmt.Sprintf("journal entry %d", i+1), j.TextFields(), 2, journalFileOf(j)); err != nil {
			return err
		}
	}
	if err := x.duplicates(); err != nil {
		return err
	}
	for i := range x.Memories {
		if err := checkMemory(x.Memories[i], i); err != nil {
			return err
		}
	}
	for i := range x.Knowledge {
		k := &x.Knowledge[i]
		if !entry.IsSlug(k.Slug) || len(k.Slug) > entry.MaxSlugLength {
			return &entry.InputError{Field: "knowledge", Msg: fmt.Sprintf("knowledge entry %d: %q is not a slug (lowercase letters, digits and single hyphens, at most %d characters)", i+1, k.Slug, entry.MaxSlugLength)}
		}
		if err := checkFile(fmt.Sprintf("knowledge %s", k.Slug), entry.KnowledgePath(k.Slug), entry.RenderKnowledge(*k)); err != nil {
			return err
		}
	}
	for i := range x.Learnings {
		l := &x.Learnings[i]
		if !entry.ValidLearningID(l.ID) {
			return &entry.InputError{Field: "learnings", Msg: fmt.Sprintf("learning %d: %q is not a learning id", i+1, l.ID)}
		}
		if err := checkFile("learning "+l.ID, entry.LearningPath(l.ID), entry.RenderLearning(*l)); err != nil {
			return err
		}
	}
	for i := range x.Journal {
		j := &x.Journal[i]
		// The file's name as every write checks it: one no file system
		// takes, or with a control character, says so.
		if err := entry.CheckName(entry.JournalDir + "/" + j.RunID + "/" + path.Base(j.Path)); err != nil {
			return err
		}
		if !journalFileOf(j) {
			return &entry.InputError{Field: "journal", Msg: fmt.Sprintf("journal entry %d: %q is not the file of an iteration of %s", i+1, j.Path, j.RunID)}
		}
		if err := checkFile("journal "+j.Path, j.Path, entry.RenderJournal(*j)); err != nil {
			return err
		}
	}
	return nil
}

// checkTexts checks fields, the texts of one entry, for secrets. The
// first ids of them name the entry: they are checked under what
// ("learning 3 id"), and the others under what and the last of them
// ("learning 3 (l-1a2b3c) tags") when named says it is well formed, so
// that a message never quotes garbage.
func checkTexts(c *entry.SecretCheck, what string, fields []entry.TextField, ids int, named bool) error {
	for _, f := range fields[:ids] {
		if err := c.Texts(entry.TextField{Name: what + " " + f.Name, Value: f.Value}); err != nil {
			return err
		}
	}
	label := what
	if named {
		label = fmt.Sprintf("%s (%s)", what, *fields[ids-1].Value)
	}
	for _, f := range fields[ids:] {
		f.Name = label + " " + f.Name
		if err := c.Texts(f); err != nil {
			return err
		}
	}
	return nil
}

// journalFileOf reports whether j's path is an iteration's file in its
// run's directory, as lore names them (<NNNN>-<tag>.md).
func journalFileOf(j *entry.JournalEntry) bool {
	dir, name := path.Split(j.Path)
	_, _, ok := entry.JournalFileName(name)
	return ok && entry.ValidRunID(j.RunID) && dir == entry.JournalDir+"/"+j.RunID+"/" && entry.KindOf(j.Path) == entry.KindJournal
}

// duplicates refuses an export that holds an entry twice: lore export
// writes each once, so a second was copied or edited in, and importing
// either would lose the other (and miscount both).
func (x *Export) duplicates() error {
	seen := map[string]bool{}
	var twice []string
	note := func(key string) {
		if seen[key] && !slices.Contains(twice, key) {
			twice = append(twice, key)
		}
		seen[key] = true
	}
	for _, m := range x.Memories {
		note("memory " + m.ID)
	}
	for _, k := range x.Knowledge {
		note("knowledge " + k.Slug)
	}
	for _, l := range x.Learnings {
		note("learning " + l.ID)
	}
	for _, j := range x.Journal {
		note("journal " + j.Path)
	}
	if len(twice) == 0 {
		return nil
	}
	shown := twice
	if len(shown) > 10 {
		shown = append(slices.Clone(shown[:10]), fmt.Sprintf("and %d more", len(twice)-10))
	}
	return &entry.InputError{Field: "file", Msg: fmt.Sprintf("%d %s more than once (%s): lore export writes each entry once; keep one of each and import again",
		len(twice), words.Plural(len(twice), "entry is there", "entries are there"), strings.Join(shown, ", "))}
}

// checkMemory refuses a memory lore would not write: an id, a type, and a
// block that memories.md's parser reads back as the memory, with no error
// lore validate would report (a date that is not one, tags a block cannot
// hold).
func checkMemory(m entry.Memory, i int) error {
	if !entry.ValidMemoryID(m.ID) || !slices.Contains(entry.MemoryTypes, m.Type) {
		return &entry.InputError{Field: "memories", Msg: fmt.Sprintf("memory %d (%q): not a memory lore can write (an id mem-…, a type of %v)", i+1, m.ID, entry.MemoryTypes)}
	}
	block := "## " + m.Type.Section() + "\n\n" + entry.FormatMemory(m)
	if err := checkFile("memory "+m.ID, entry.MemoriesPath, []byte(block)); err != nil {
		return err
	}
	back := entry.ParseMemoriesFile([]byte(block), entry.MemoriesPath).Memories
	if len(back) != 1 || back[0].Content != m.Content || back[0].Created != m.Created || back[0].Type != m.Type ||
		strings.Join(back[0].Tags, "\x00") != strings.Join(m.Tags, "\x00") {
		return &entry.InputError{Field: "memories", Msg: fmt.Sprintf("memory %s: memories.md cannot hold it as it is (its content, tags or date would read back otherwise)", m.ID)}
	}
	return nil
}

// checkFile refuses the file an entry (what) would be written as when
// lore validate would report an error in it.
func checkFile(what, p string, data []byte) error {
	for _, problem := range entry.ValidateFile(entry.File{Path: p, Data: data}) {
		if problem.Severity == entry.SeverityError {
			return &entry.InputError{Field: "file", Msg: fmt.Sprintf("%s: %s", what, problem.Message)}
		}
	}
	return nil
}
