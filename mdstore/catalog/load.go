package catalog

import (
	"io/fs"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"

	"lore/mdstore/entry"
)

// Reader reads store files: the Store reads the worktree directly, a
// storeTx reads it while the repository is locked. Both read only regular
// files, through no symbolic link, each at most its ReadLimit; what they
// do not read is an fsx.SkipError (see entry.Skipped).
type Reader interface {
	Read(p string) ([]byte, bool, error)
	ReadDir(p string) ([]os.DirEntry, error)
}

// ParallelReader is a Reader whose reads may run on every core at once
// (the worktree's files); the files of a transaction are read in turn.
type ParallelReader interface {
	Reader
	ParallelReads() bool
}

// readMarkdownFiles parses every *.md file of dir with parse; a file that
// does not parse is reported and skipped.
func readMarkdownFiles[T any](r Reader, dir string, parse func([]byte, string) (T, error)) ([]T, []entry.Warning, error) {
	paths, w, err := MarkdownFiles(r, dir)
	if err != nil {
		return nil, nil, err
	}
	out, ws := parseFiles(r, paths, parse)
	return out, append(entry.WarningsOf(w), ws...), nil
}

// markdownFiles lists the entry files (*.md, not hidden) in dir: every
// name but a directory's, so that a link or a FIFO is read, refused and
// reported like a file that does not parse. A dir that lore does not read
// (a link) is a warning.
func MarkdownFiles(r Reader, dir string) ([]string, *entry.Warning, error) {
	entries, err := r.ReadDir(dir)
	if w, skipped := entry.Skipped(dir, err); skipped {
		return nil, w, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var paths []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		paths = append(paths, dir+"/"+e.Name())
	}
	return paths, nil, nil
}

// parseFiles reads and parses the files at paths, in order; a file that
// cannot be read or parsed is a warning and is skipped. The worktree's
// files are read on every core: a store of 10,000 entries is 10,000 reads
// and YAML parses.
func parseFiles[T any](r Reader, paths []string, parse func([]byte, string) (T, error)) ([]T, []entry.Warning) {
	type result struct {
		v       T
		ok      bool
		warning *entry.Warning
	}
	results := make([]result, len(paths))
	one := func(i int) {
		p := paths[i]
		data, ok, err := r.Read(p)
		switch {
		case err != nil:
			results[i].warning = entry.AsWarning(err, p)
		case ok:
			v, err := parse(data, p)
			if err != nil {
				results[i].warning = entry.AsWarning(err, p)
			} else {
				results[i] = result{v: v, ok: true}
			}
		}
	}
	workers := 1
	if pr, ok := r.(ParallelReader); ok && pr.ParallelReads() {
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
	var warnings []entry.Warning
	for _, res := range results {
		if res.ok {
			out = append(out, res.v)
		} else if res.warning != nil {
			warnings = append(warnings, *res.warning)
		}
	}
	return out, warnings
}

func LoadKnowledge(r Reader) ([]entry.Knowledge, []entry.Warning, error) {
	return readMarkdownFiles(r, entry.KnowledgeDir, entry.ParseKnowledge)
}

func LoadLearnings(r Reader) ([]entry.Learning, []entry.Warning, error) {
	ls, warnings, err := readMarkdownFiles(r, entry.LearningsDir, entry.ParseLearning)
	entry.SortLearnings(ls)
	return ls, warnings, err
}

func LoadJournal(r Reader) ([]entry.JournalEntry, []entry.Warning, error) {
	runs, err := r.ReadDir(entry.JournalDir)
	if w, skipped := entry.Skipped(entry.JournalDir, err); skipped {
		return nil, entry.WarningsOf(w), nil
	}
	if err != nil {
		return nil, nil, err
	}
	var paths []string
	var ws []entry.Warning
	for _, run := range runs {
		if strings.HasPrefix(run.Name(), ".") {
			continue
		}
		p := entry.JournalDir + "/" + run.Name()
		if run.Type()&fs.ModeSymlink != 0 {
			ws = append(ws, entry.Warning{Path: p, Message: "skipped: a symbolic link"})
			continue
		}
		if !run.IsDir() {
			continue
		}
		ps, w, err := MarkdownFiles(r, p)
		if err != nil {
			return nil, nil, err
		}
		ws = append(ws, entry.WarningsOf(w)...)
		paths = append(paths, ps...)
	}
	all, pws := parseFiles(r, paths, entry.ParseJournal)
	entry.SortJournal(all)
	return all, append(ws, pws...), nil
}

// LoadSkills discovers every SKILL.md of the worktree w. A missing or malformed frontmatter
// gives "No description"; a file that cannot be read is skipped with a
// warning, and so is a skill directory or SKILL.md that is a symbolic
// link — but for one skill directory linked to the other (SkillLink),
// whose skill is listed once, from where it is.
func LoadSkills(w *Worktree) ([]entry.Skill, []entry.Warning) {
	var skills []entry.Skill
	var warnings []entry.Warning
	for _, dir := range entry.SkillDirs {
		entries, err := w.ReadDir(dir)
		if w, skipped := entry.Skipped(dir, err); skipped {
			warnings = append(warnings, entry.WarningsOf(w)...)
			continue
		}
		if err != nil {
			warnings = append(warnings, entry.Warning{Path: dir, Message: "cannot be read: " + err.Error()})
			continue
		}
		for _, e := range entries {
			p := dir + "/" + e.Name()
			if e.Type()&fs.ModeSymlink != 0 {
				warnings = append(warnings, entry.WarningsOf(entry.LinkSkipped(p, w.Abs(p)))...)
				continue
			}
			if !e.IsDir() {
				continue
			}
			rel := p + "/SKILL.md"
			data, ok, err := w.Read(rel)
			if w, skipped := entry.Skipped(rel, err); skipped {
				warnings = append(warnings, entry.WarningsOf(w)...)
				continue
			}
			if err != nil {
				warnings = append(warnings, entry.Warning{Path: rel, Message: "skipped: cannot be read: " + err.Error()})
				continue
			}
			if ok {
				skills = append(skills, entry.ParseSkill(data, rel, e.Name()))
			}
		}
	}
	sort.SliceStable(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills, warnings
}
