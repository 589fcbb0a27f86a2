package mdstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"lore/internal/fsx"
	"lore/sigils"
)

// fileReader reads store files: the Store reads the worktree directly, a
// storeTx reads it while the repository is locked.
type fileReader interface {
	read(p string) ([]byte, bool, error)
	readDir(p string) ([]os.DirEntry, error)
}

func (s *Store) read(p string) ([]byte, bool, error) {
	data, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(p)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("mdstore: read %s: %w", p, err)
	}
	return data, true, nil
}

func (s *Store) readDir(p string) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(filepath.Join(s.root, filepath.FromSlash(p)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mdstore: read %s: %w", p, err)
	}
	return entries, nil
}

// asWarning turns a file's error into a warning for the files that are
// reported and skipped.
func asWarning(err error, path string) Warning {
	var fe *FileError
	if errors.As(err, &fe) {
		return Warning{Path: fe.Path, Line: fe.Line, Message: fe.Msg + "; skipped"}
	}
	return Warning{Path: path, Message: err.Error() + "; skipped"}
}

// readMarkdownFiles parses every *.md file of dir with parse; a file that
// does not parse is reported and skipped.
func readMarkdownFiles[T any](r fileReader, dir string, parse func([]byte, string) (T, error)) ([]T, []Warning, error) {
	paths, err := markdownFiles(r, dir)
	if err != nil {
		return nil, nil, err
	}
	out, warnings := parseFiles(r, paths, parse)
	return out, warnings, nil
}

// markdownFiles lists the entry files (*.md, not hidden) in dir.
func markdownFiles(r fileReader, dir string) ([]string, error) {
	entries, err := r.readDir(dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		paths = append(paths, dir+"/"+e.Name())
	}
	return paths, nil
}

// parseFiles reads and parses the files at paths, in order; a file that
// cannot be read or parsed is a warning and is skipped. The worktree's
// files are read on every core: a store of 10,000 entries is 10,000 reads
// and YAML parses.
func parseFiles[T any](r fileReader, paths []string, parse func([]byte, string) (T, error)) ([]T, []Warning) {
	type result struct {
		v       T
		ok      bool
		warning *Warning
	}
	results := make([]result, len(paths))
	one := func(i int) {
		p := paths[i]
		data, ok, err := r.read(p)
		switch {
		case err != nil:
			results[i].warning = &Warning{Path: p, Message: err.Error() + "; skipped"}
		case ok:
			v, err := parse(data, p)
			if err != nil {
				w := asWarning(err, p)
				results[i].warning = &w
			} else {
				results[i] = result{v: v, ok: true}
			}
		}
	}
	workers := 1
	if _, worktree := r.(*Store); worktree {
		workers = min(runtime.GOMAXPROCS(0), 8, (len(paths)+31)/32)
	}
	if workers <= 1 {
		for i := range paths {
			one(i)
		}
	} else {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(paths); i += workers {
					one(i)
				}
			}()
		}
		wg.Wait()
	}
	var out []T
	var warnings []Warning
	for _, res := range results {
		if res.ok {
			out = append(out, res.v)
		} else if res.warning != nil {
			warnings = append(warnings, *res.warning)
		}
	}
	return out, warnings
}

func loadKnowledge(r fileReader) ([]Knowledge, []Warning, error) {
	return readMarkdownFiles(r, KnowledgeDir, parseKnowledge)
}

func loadLearnings(r fileReader) ([]Learning, []Warning, error) {
	ls, warnings, err := readMarkdownFiles(r, LearningsDir, parseLearning)
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].CreatedAt < ls[j].CreatedAt })
	return ls, warnings, err
}

func loadJournal(r fileReader) ([]JournalEntry, []Warning, error) {
	runs, err := r.readDir(JournalDir)
	if err != nil {
		return nil, nil, err
	}
	var paths []string
	for _, run := range runs {
		if !run.IsDir() || strings.HasPrefix(run.Name(), ".") {
			continue
		}
		ps, err := markdownFiles(r, JournalDir+"/"+run.Name())
		if err != nil {
			return nil, nil, err
		}
		paths = append(paths, ps...)
	}
	all, warnings := parseFiles(r, paths, parseJournal)
	sortJournal(all)
	return all, warnings, nil
}

// Knowledge returns every readable knowledge entry, by title.
func (s *Store) Knowledge() ([]Knowledge, []Warning, error) {
	ks, ws, err := loadKnowledge(s)
	sortKnowledge(ks)
	return ks, ws, err
}

// KnowledgeEntry returns the entry stored as <slug>.md, or ErrNotFound.
func (s *Store) KnowledgeEntry(slug string) (Knowledge, error) {
	slug = strings.TrimSuffix(slug, ".md")
	if slug == "" || strings.ContainsAny(slug, `/\`) || strings.HasPrefix(slug, ".") {
		return Knowledge{}, fmt.Errorf("%w: %s", ErrNotFound, slug)
	}
	p := KnowledgePath(slug)
	data, ok, err := s.read(p)
	if err != nil {
		return Knowledge{}, err
	}
	if !ok {
		return Knowledge{}, fmt.Errorf("%w: %s", ErrNotFound, slug)
	}
	return parseKnowledge(data, p)
}

// Learnings returns every readable learning, oldest first.
func (s *Store) Learnings() ([]Learning, []Warning, error) { return loadLearnings(s) }

// Learning returns the learning with the given id, or ErrNotFound.
func (s *Store) Learning(id string) (Learning, error) {
	if !ValidLearningID(id) {
		return Learning{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	p := LearningPath(id)
	data, ok, err := s.read(p)
	if err != nil {
		return Learning{}, err
	}
	if !ok {
		return Learning{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return parseLearning(data, p)
}

// Journal returns every readable journal entry by run and iteration.
func (s *Store) Journal() ([]JournalEntry, []Warning, error) { return loadJournal(s) }

// JournalEntry returns the entry "<run>/<iteration>", or ErrNotFound.
func (s *Store) JournalEntry(key string) (JournalEntry, error) {
	run, it, err := parseJournalKey(key)
	if err != nil {
		return JournalEntry{}, err
	}
	p := JournalPath(run, it)
	data, ok, err := s.read(p)
	if err != nil {
		return JournalEntry{}, err
	}
	if !ok {
		return JournalEntry{}, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return parseJournal(data, p)
}

// --- writes ---

// knowledgePlan is the decision for one knowledge entry, made once under
// the lock and kept if the commit is retried.
type knowledgePlan struct {
	entry  Knowledge
	action KnowledgeAction
}

// planKnowledge decides where a new knowledge entry goes (seed 000's
// dedup rules) and registers the edit. planned are the entries decided
// earlier in the same change, whose slugs are taken too.
func planKnowledge(tx *storeTx, in NewKnowledge, now time.Time, plan *knowledgePlan, planned []knowledgePlan) error {
	if plan.action == "" {
		existing, _, err := loadKnowledge(tx)
		if err != nil {
			return err
		}
		taken := append([]Knowledge(nil), existing...)
		for _, p := range planned {
			taken = append(taken, p.entry)
		}
		k := Knowledge{Title: in.Title, Tags: in.Tags, Feature: in.Feature, Body: in.Body, Sources: in.Sources, CreatedAt: now.UTC().Format(time.RFC3339)}
		i, action := findKnowledgeDuplicate(existing, in.Title, in.Tags)
		if i >= 0 {
			old := existing[i]
			merged := old
			merged.Tags = mergeTags(old.Tags, in.Tags)
			merged.Body = in.Body
			if in.Feature != "" {
				merged.Feature = in.Feature
			}
			if len(in.Sources) > 0 {
				merged.Sources = in.Sources
			}
			if merged.Body == old.Body && len(merged.Tags) == len(old.Tags) && merged.Feature == old.Feature && len(in.Sources) == 0 {
				*plan = knowledgePlan{entry: old, action: KnowledgeUnchanged}
				return nil
			}
			merged.UpdatedAt = now.UTC().Format(time.RFC3339)
			k = merged
		} else {
			k.Slug = freeSlug(taken, Slugify(in.Title))
			k.Path = KnowledgePath(k.Slug)
		}
		*plan = knowledgePlan{entry: k, action: action}
	}
	if plan.action == KnowledgeUnchanged {
		return nil
	}
	k := plan.entry
	tx.edit(k.Path, func(old []byte, exists bool) ([]byte, bool, error) {
		if plan.action == KnowledgeCreated || !exists {
			return RenderKnowledge(k), true, nil
		}
		// An update keeps what this version of the file says otherwise.
		cur, err := parseKnowledge(old, k.Path)
		if err != nil {
			return RenderKnowledge(k), true, nil
		}
		cur.Tags = mergeTags(cur.Tags, k.Tags)
		cur.Body, cur.UpdatedAt = k.Body, k.UpdatedAt
		if k.Feature != "" {
			cur.Feature = k.Feature
		}
		if len(k.Sources) > 0 {
			cur.Sources = k.Sources
		}
		return RenderKnowledge(cur), true, nil
	})
	return nil
}

// freeSlug returns slug, or slug-2, slug-3… when another entry has it.
func freeSlug(existing []Knowledge, slug string) string {
	taken := map[string]bool{}
	for _, k := range existing {
		taken[k.Slug] = true
	}
	if !taken[slug] {
		return slug
	}
	for n := 2; ; n++ {
		suffix := "-" + strconv.Itoa(n)
		base := slug
		if len(base)+len(suffix) > MaxSlugLength {
			base = strings.TrimRight(base[:MaxSlugLength-len(suffix)], "-")
		}
		if !taken[base+suffix] {
			return base + suffix
		}
	}
}

// AddKnowledge writes a knowledge entry following seed 000's dedup rules:
// the same title replaces the entry's body and merges its tags; a similar
// title with mostly the same tags updates that entry; otherwise a new file.
func (s *Store) AddKnowledge(in NewKnowledge) (Knowledge, KnowledgeAction, *WriteResult, error) {
	in, err := in.normalize()
	if err != nil {
		return Knowledge{}, "", nil, err
	}
	now := s.now()
	var plan knowledgePlan
	res, err := s.write(func(tx *storeTx) error {
		if err := planKnowledge(tx, in, now, &plan, nil); err != nil {
			return err
		}
		verb := "add"
		if plan.action != KnowledgeCreated {
			verb = "update"
		}
		tx.message(commitMessage("lore: "+verb+" knowledge "+plan.entry.Slug, plan.entry.Title,
			"Lore-Id", plan.entry.Slug, "Lore-Kind", "knowledge"))
		return nil
	})
	if err != nil {
		return Knowledge{}, "", nil, err
	}
	return plan.entry, plan.action, res, nil
}

// DeleteKnowledge removes .agent/knowledge/<slug>.md, as one commit.
func (s *Store) DeleteKnowledge(slug string) (Knowledge, *WriteResult, error) {
	k, err := s.KnowledgeEntry(slug)
	var fe *FileError
	if err != nil && !errors.As(err, &fe) {
		return Knowledge{}, nil, err
	}
	p := KnowledgePath(strings.TrimSuffix(slug, ".md"))
	res, err := s.removeFile(p, "knowledge", strings.TrimSuffix(slug, ".md"), k.Title)
	return k, res, err
}

// removeFile deletes one store file as one commit; ErrNotFound if absent.
func (s *Store) removeFile(p, kind, id, body string) (*WriteResult, error) {
	return s.write(func(tx *storeTx) error {
		if _, ok, err := tx.read(p); err != nil {
			return err
		} else if !ok {
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		tx.edit(p, func([]byte, bool) ([]byte, bool, error) { return nil, false, nil })
		tx.message(commitMessage("lore: delete "+kind+" "+id, body, "Lore-Id", id, "Lore-Kind", kind))
		return nil
	})
}

// learningPlan is the decision for one learning.
type learningPlan struct {
	decided   bool
	entry     Learning
	duplicate bool // an existing learning already says this: entry is it
}

// planLearning checks for a near-duplicate, gives a new learning its id
// and registers the edit.
func planLearning(tx *storeTx, s *Store, in NewLearning, now time.Time, plan *learningPlan) error {
	if !plan.decided {
		existing, _, err := loadLearnings(tx)
		if err != nil {
			return err
		}
		if dup, ok := findNearDuplicateLearning(existing, in.Category, in.Body); ok {
			*plan = learningPlan{decided: true, entry: dup, duplicate: true}
			return nil
		}
		taken := map[string]bool{}
		for _, l := range existing {
			taken[l.ID] = true
		}
		id, err := newLearningID(s.random, func(id string) bool {
			if taken[id] {
				return true
			}
			_, exists, _ := tx.read(LearningPath(id)) // a malformed file still holds its id
			return exists
		})
		if err != nil {
			return err
		}
		l := Learning{ID: id, Category: in.Category, Tags: in.Tags, Task: in.Task, CreatedAt: now.UTC().Format(time.RFC3339),
			Status: in.Status, Kind: in.Kind, TaskType: in.TaskType, SourceRuns: in.Runs, Body: in.Body, Path: LearningPath(id)}
		*plan = learningPlan{decided: true, entry: l}
	}
	if plan.duplicate {
		return nil
	}
	l := plan.entry
	tx.edit(l.Path, func([]byte, bool) ([]byte, bool, error) { return RenderLearning(l), true, nil })
	return nil
}

// AddLearning stores a learning, unless a near-duplicate (same category,
// more than 80% of the words in common) exists: then that one is returned
// with duplicate set and nothing is written.
func (s *Store) AddLearning(in NewLearning) (l Learning, duplicate bool, res *WriteResult, err error) {
	if in, err = in.normalize(); err != nil {
		return Learning{}, false, nil, err
	}
	now := s.now()
	var plan learningPlan
	res, err = s.write(func(tx *storeTx) error {
		if err := planLearning(tx, s, in, now, &plan); err != nil {
			return err
		}
		tx.message(commitMessage("lore: add learning "+plan.entry.ID, plan.entry.Body,
			"Lore-Id", plan.entry.ID, "Lore-Kind", "learning"))
		return nil
	})
	if err != nil {
		return Learning{}, false, nil, err
	}
	return plan.entry, plan.duplicate, res, nil
}

// DeleteLearning removes a learning's file, as one commit.
func (s *Store) DeleteLearning(id string) (Learning, *WriteResult, error) {
	l, err := s.Learning(id)
	var fe *FileError
	if err != nil && !errors.As(err, &fe) {
		return Learning{}, nil, err
	}
	res, err := s.removeFile(LearningPath(id), "learning", id, l.Body)
	return l, res, err
}

// normalize checks a journal entry to record. An empty RunID means the
// current run (started if there is none); Iteration 0 means the next one.
func (in JournalEntry) normalize() (JournalEntry, error) {
	if in.Outcome == "" {
		in.Outcome = "blocked"
	}
	if !contains(Outcomes, in.Outcome) {
		return in, &InputError{Field: "outcome", Msg: fmt.Sprintf("outcome %q must be one of %s", in.Outcome, strings.Join(Outcomes, ", "))}
	}
	if in.Difficulty != "" && !contains(sigils.Difficulties, in.Difficulty) {
		return in, &InputError{Field: "difficulty", Msg: fmt.Sprintf("difficulty %q must be one of %s", in.Difficulty, strings.Join(sigils.Difficulties, ", "))}
	}
	if in.RunID != "" && !ValidRunID(in.RunID) {
		return in, &InputError{Field: "run", Msg: fmt.Sprintf("run id %q may only hold lowercase letters, digits, '.', '_' and '-'", in.RunID)}
	}
	if in.DurationSecs < 0 || in.CostUSD < 0 || in.Iteration < 0 {
		return in, &InputError{Field: "journal", Msg: "duration, cost and iteration cannot be negative"}
	}
	if in.FilesModified == nil {
		in.FilesModified = []string{}
	}
	in.Notes = strings.TrimSpace(strings.ReplaceAll(in.Notes, "\r\n", "\n"))
	return in, nil
}

// journalPlan is the decision for one journal entry.
type journalPlan struct {
	decided  bool
	entry    JournalEntry
	replaced bool // an entry for this run and iteration existed
}

// planJournal fills in the run and iteration and registers the edit. An
// existing entry for the same run and iteration is replaced, keeping its
// creation time, so recording an iteration twice changes nothing.
func planJournal(tx *storeTx, s *Store, in JournalEntry, now time.Time, plan *journalPlan) error {
	if !plan.decided {
		e := in
		if e.RunID == "" {
			run, _, err := s.currentOrNewRun()
			if err != nil {
				return err
			}
			e.RunID = run
		}
		if e.Iteration == 0 {
			next, err := nextIteration(tx, e.RunID)
			if err != nil {
				return err
			}
			e.Iteration = next
		}
		e.Path = JournalPath(e.RunID, e.Iteration)
		e.CreatedAt = now.UTC().Format(time.RFC3339)
		if data, ok, err := tx.read(e.Path); err != nil {
			return err
		} else if ok {
			plan.replaced = true
			if old, err := parseJournal(data, e.Path); err == nil && old.CreatedAt != "" {
				e.CreatedAt = old.CreatedAt
			}
		}
		plan.entry, plan.decided = e, true
	}
	e := plan.entry
	tx.edit(e.Path, func([]byte, bool) ([]byte, bool, error) { return RenderJournal(e), true, nil })
	return nil
}

// nextIteration is one more than the highest iteration recorded for run.
func nextIteration(r fileReader, run string) (int, error) {
	entries, err := r.readDir(JournalDir + "/" + run)
	if err != nil {
		return 0, err
	}
	highest := 0
	for _, e := range entries {
		if n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".md")); err == nil && n > highest {
			highest = n
		}
	}
	return highest + 1, nil
}

// AddJournal records one iteration, as one commit.
func (s *Store) AddJournal(in JournalEntry) (JournalEntry, bool, *WriteResult, error) {
	in, err := in.normalize()
	if err != nil {
		return JournalEntry{}, false, nil, err
	}
	now := s.now()
	var plan journalPlan
	res, err := s.write(func(tx *storeTx) error {
		if err := planJournal(tx, s, in, now, &plan); err != nil {
			return err
		}
		e := plan.entry
		tx.message(commitMessage("lore: add journal "+e.Key()+" ("+e.Outcome+")", e.Notes, journalTrailers(e, "journal")...))
		return nil
	})
	if err != nil {
		return JournalEntry{}, false, nil, err
	}
	return plan.entry, plan.replaced, res, nil
}

func journalTrailers(e JournalEntry, kind string) []string {
	t := []string{"Lore-Id", e.Key(), "Lore-Kind", kind, "Run-Id", e.RunID, "Iteration", strconv.Itoa(e.Iteration)}
	if e.TaskID != "" {
		t = append(t, "Task-Id", e.TaskID)
	}
	return t
}

// --- the current run ---

// StateDir is where per-clone state that is never committed lives (the
// current run, the search index): <git-dir>/lore, or .agent/.lore outside
// git.
func (s *Store) StateDir() string {
	if s.repo != nil {
		return filepath.Join(s.repo.GitDir, "lore")
	}
	return filepath.Join(s.root, Dir, ".lore")
}

func (s *Store) runFile() string { return filepath.Join(s.StateDir(), "current-run") }

// CurrentRun is the run journal entries go to when none is named, "" if
// no run was started in this clone.
func (s *Store) CurrentRun() (string, error) {
	data, err := os.ReadFile(s.runFile())
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("mdstore: read current run: %w", err)
	}
	run := strings.TrimSpace(string(data))
	if !ValidRunID(run) {
		return "", nil
	}
	return run, nil
}

// StartRun makes name (or a new run-{8 hex} when name is "") the current
// run of this clone.
func (s *Store) StartRun(name string) (string, error) {
	if name == "" {
		var err error
		if name, err = NewRunID(s.random); err != nil {
			return "", err
		}
	} else if !ValidRunID(name) {
		return "", &InputError{Field: "run", Msg: fmt.Sprintf("run name %q may only hold lowercase letters, digits, '.', '_' and '-'", name)}
	}
	if err := fsx.WriteFile(s.runFile(), []byte(name+"\n"), fsx.SyncAll); err != nil {
		return "", err
	}
	return name, nil
}

// currentOrNewRun returns the current run, starting one if there is none.
func (s *Store) currentOrNewRun() (string, bool, error) {
	run, err := s.CurrentRun()
	if err != nil || run != "" {
		return run, false, err
	}
	run, err = s.StartRun("")
	return run, true, err
}
