package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// benchLifecycle times the commands that act on a whole store — lore
// learning summarize and lore prune on n learnings, lore export and lore
// import of a generated store of m entries — each beside a baseline in the
// same run: C git committing the same files lore committed, reading every
// file of the store, copying the store into a new repository and
// committing it. Each summarize, prune and import run works in a fresh
// copy (or a fresh empty repository), made untimed.
func benchLifecycle(args []string) error {
	fset := flag.NewFlagSet("lifecycle", flag.ExitOnError)
	runs := fset.Int("runs", 3, "timed runs of each command, after an untimed warm-up pair")
	learnings := fset.Int("learnings", 10000, "learnings in the summarize and prune stores")
	entries := fset.Int("entries", 100000, "entries in the export and import store")
	write := fset.String("write", "", "replace the lifecycle section of this Markdown file with the results")
	keep := fset.Bool("keep", false, "keep the generated repositories")
	fset.Parse(args)
	if *runs < 1 || *learnings < 2 || *entries < 1 {
		return fmt.Errorf("-runs, -learnings and -entries must be positive")
	}

	work, err := os.MkdirTemp("", "lore-bench-lifecycle-")
	if err != nil {
		return err
	}
	if !*keep {
		defer os.RemoveAll(work)
	} else {
		fmt.Fprintln(os.Stderr, "keeping", work)
	}
	lore, err := buildLore(filepath.Join(work, "bin"))
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	env := benchEnv(work)
	var rows []lifecycleRow
	var notes []string

	// 1. lore learning summarize.
	start := time.Now()
	sumStore := filepath.Join(work, "summarize")
	if err := generateLearnings(sumStore, *learnings, 2, clusteredLearnings); err != nil {
		return err
	}
	if err := prepareStore(sumStore, lore); err != nil {
		return err
	}
	var plan struct {
		Merges []struct {
			Members []string `json:"members"`
		} `json:"merges"`
	}
	if err := runJSON(sumStore, env, &plan, lore, "learning", "summarize", "--dry-run", "--format", "json"); err != nil {
		return err
	}
	if len(plan.Merges) == 0 {
		return fmt.Errorf("lore learning summarize --dry-run merges nothing in the generated store")
	}
	members := 0
	for _, m := range plan.Merges {
		members += len(m.Members)
	}
	fmt.Fprintf(os.Stderr, "generated %d learnings in %s; summarize would merge %d clusters of %d learnings\n",
		*learnings, time.Since(start).Round(time.Second), len(plan.Merges), members)
	row, err := measureInCopies(work, sumStore, env, *runs, lore, []string{"learning", "summarize"}, []string{"learning", "summarize", "--dry-run"})
	if err != nil {
		return err
	}
	row.what = fmt.Sprintf("`lore learning summarize`, %s learnings", sizeLabel(*learnings))
	row.baseline = "same files, `git add -A .agent && git commit`"
	row.changed = fmt.Sprintf("%d files: %d summaries of %d learnings written, %d of them pruned", row.files, len(plan.Merges), members, members-len(plan.Merges))
	rows = append(rows, row.done())
	if !*keep {
		os.RemoveAll(sumStore)
	}

	// 2. lore prune.
	start = time.Now()
	pruneStore := filepath.Join(work, "prune")
	if err := generateLearnings(pruneStore, *learnings, 3, agedLearnings(time.Now())); err != nil {
		return err
	}
	if err := prepareStore(pruneStore, lore); err != nil {
		return err
	}
	var pruned struct {
		Pruned []json.RawMessage `json:"pruned"`
	}
	if err := runJSON(pruneStore, env, &pruned, lore, "prune", "--dry-run", "--format", "json"); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "generated %d learnings in %s; prune would prune %d\n", *learnings, time.Since(start).Round(time.Second), len(pruned.Pruned))
	if len(pruned.Pruned) == 0 {
		return fmt.Errorf("lore prune --dry-run prunes nothing in the generated store")
	}
	row, err = measureInCopies(work, pruneStore, env, *runs, lore, []string{"prune"}, []string{"prune", "--dry-run"})
	if err != nil {
		return err
	}
	row.what = fmt.Sprintf("`lore prune`, %s learnings (half older than 90 days)", sizeLabel(*learnings))
	row.baseline = "same files, `git add -A .agent && git commit`"
	row.changed = fmt.Sprintf("%d learnings pruned", len(pruned.Pruned))
	if row.files != len(pruned.Pruned) {
		row.changed += fmt.Sprintf(" (%d files committed)", row.files)
	}
	rows = append(rows, row.done())
	if !*keep {
		os.RemoveAll(pruneStore)
	}

	// 3. lore export.
	start = time.Now()
	c, err := generateCorpus(filepath.Join(work, "store"), *entries, int64(*entries))
	if err != nil {
		return err
	}
	if err := prepareStore(c.dir, lore); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "generated %d entries in %s\n", *entries, time.Since(start).Round(time.Second))
	export := filepath.Join(work, "export.json")
	row = lifecycleRow{
		what:     fmt.Sprintf("`lore export > file`, %s entries", sizeLabel(*entries)),
		baseline: "read every file under .agent (`scan-baseline`)",
	}
	for i := -1; i < *runs; i++ {
		os.Remove(export)
		if err := runIn(work, env, "sync"); err != nil {
			return err
		}
		tLore, err := timeToFile(c.dir, env, export, lore, "export")
		if err != nil {
			return err
		}
		tScan, err := timeRun(c.dir, env, self, "scan-baseline", c.dir, c.word)
		if err != nil {
			return err
		}
		row.add(i, tLore, tScan)
		fmt.Fprintf(os.Stderr, "  export run %d: lore %s, scan %s\n", i, ms(tLore), ms(tScan))
	}
	exported, err := exportCount(export)
	if err != nil {
		return err
	}
	row.changed = fmt.Sprintf("%d entries exported", exported)
	rows = append(rows, row.done())

	// 4. lore import of that export into empty repositories.
	row = lifecycleRow{
		what:     fmt.Sprintf("`lore import FILE`, %s entries, empty repository", sizeLabel(*entries)),
		baseline: "`cp -a .agent`, `git add -A && git commit`",
	}
	a, b := filepath.Join(work, "import-lore"), filepath.Join(work, "import-git")
	for i := -1; i < *runs; i++ {
		for _, dir := range []string{a, b} {
			os.RemoveAll(dir)
			if err := emptyRepository(dir, env); err != nil {
				return err
			}
		}
		if err := runIn(work, env, "sync"); err != nil { // no writeback of the last run while timed
			return err
		}
		// A failing lore import is a result, not the bench's failure: the
		// row says so, and the baseline is still measured.
		var tLore time.Duration
		if row.failed == "" {
			start := time.Now()
			if tLore, err = timeRun(a, env, lore, "import", export); err != nil {
				row.failed = fmt.Sprintf("fails after %s", fmtDur(time.Since(start)))
				notes = append(notes, importFailure(a, env, err))
			}
		}
		start := time.Now()
		if err := runIn(b, env, "cp", "-a", filepath.Join(c.dir, ".agent"), b); err != nil {
			return err
		}
		if err := runIn(b, env, "git", "add", "-A"); err != nil {
			return err
		}
		if err := runIn(b, env, "git", "commit", "-q", "-m", "m"); err != nil {
			return err
		}
		tGit := time.Since(start)
		if i == -1 && row.failed == "" {
			files, note, err := checkImport(c.dir, a, export, env, lore)
			if err != nil {
				return err
			}
			row.changed = fmt.Sprintf("%d files committed", files)
			notes = append(notes, note)
		}
		row.add(i, tLore, tGit)
		loreText := ms(tLore)
		if row.failed != "" {
			loreText = row.failed
		}
		fmt.Fprintf(os.Stderr, "  import run %d: lore %s, git %s\n", i, loreText, ms(tGit))
	}
	if row.failed != "" {
		row.lore = nil
		row.changed = "none (no commit)"
	}
	rows = append(rows, row.done())
	if !*keep {
		os.RemoveAll(a)
		os.RemoveAll(b)
		os.RemoveAll(c.dir)
		os.Remove(export)
	}

	command := fmt.Sprintf("go run ./bench lifecycle -runs %d -learnings %d -entries %d -write BENCHMARKS.md", *runs, *learnings, *entries)
	table := lifecycleTable(rows, notes, *runs, command)
	fmt.Print(table)
	if *write != "" {
		return replaceSection(*write, "lifecycle", table)
	}
	return nil
}

type lifecycleRow struct {
	what, baseline, changed string
	failed                  string // how lore failed, if it did
	lore, base              []time.Duration
	files                   int // files lore's commit changed (summarize, prune)
}

// add records run i's pair; run -1 is the warm-up.
func (r *lifecycleRow) add(i int, lore, base time.Duration) {
	if i >= 0 {
		r.lore, r.base = append(r.lore, lore), append(r.base, base)
	}
}

func (r lifecycleRow) done() lifecycleRow {
	if r.failed != "" {
		fmt.Fprintf(os.Stderr, "%s: lore %s, baseline %s\n", r.what, r.failed, ms(median(r.base)))
		return r
	}
	fmt.Fprintf(os.Stderr, "%s: lore %s, baseline %s\n", r.what, ms(median(r.lore)), ms(median(r.base)))
	return r
}

func lifecycleTable(rows []lifecycleRow, notes []string, runs int, command string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Whole processes, each lore command paired with its baseline (lore first), after an untimed warm-up pair; medians of %d runs (%s, %s, %d cores, git %s, lore at %s).\n\n",
		runs, time.Now().UTC().Format("2006-01-02"), runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), gitVersion(), loreRevision())
	fmt.Fprintf(&b, "Command: `%s`\n\n", command)
	b.WriteString("| row | baseline | lore median | baseline median | lore / baseline | entries changed |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | --- |\n")
	for _, r := range rows {
		l, g := median(r.lore), median(r.base)
		if r.failed != "" {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | — | %s |\n", r.what, r.baseline, r.failed, fmtDur(g), r.changed)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f× | %s |\n", r.what, r.baseline, fmtDur(l), fmtDur(g), float64(l)/float64(g), r.changed)
	}
	for _, n := range notes {
		b.WriteString("\n" + n + "\n")
	}
	return b.String()
}

// seed002Categories are the learning categories of seed 002.
var seed002Categories = []string{"success_pattern", "pitfall", "tool_usage", "code_structure", "testing_strategy", "debugging_technique"}

// learningDraw gives learning i of a generated store its category, tags,
// creation time and body.
type learningDraw func(g *generator, n int) func(i int) (category string, tags []string, created time.Time, body string)

// generateLearnings writes a store of n active learnings, in the format
// generateCorpus writes them, into a new git repository at dir and
// commits it with C git.
func generateLearnings(dir string, n int, seed int64, draw learningDraw) error {
	g := newGenerator(seed)
	next, write := draw(g, n), fillerWrite(dir)
	for i := 0; i < n; i++ {
		category, tags, created, body := next(i)
		err := write(fmt.Sprintf("learnings/l-%06x.md", i), fmt.Sprintf("---\nid: l-%06x\ncategory: %s\ntags: %s\ntask: \"task-%d\"\ncreated_at: %q\nstatus: active\n---\n\n%s\n",
			i, category, quoted(tags), i%500, created.Format(time.RFC3339), body))
		if err != nil {
			return err
		}
	}
	return commitCorpus(dir)
}

// clusteredLearnings puts the learnings, in a shuffled order, into themes
// of 1 to 4 learnings of one category; each theme has three tags of its
// own, and each of its learnings two or three of them, so that any two
// share at least half the tags of the smaller set and summarize merges
// every theme of two or more into one learning, and nothing across
// themes. Bodies are 10–40 words, so that a merge of four stays under
// summarize's 2,000 characters.
func clusteredLearnings(g *generator, n int) func(i int) (string, []string, time.Time, string) {
	type theme struct {
		category string
		tags     []string
	}
	var of []int // theme of each learning
	var themes []theme
	for len(of) < n {
		t := len(themes)
		th := theme{category: seed002Categories[t%len(seed002Categories)]}
		for k := 0; k < 3; k++ {
			th.tags = append(th.tags, fmt.Sprintf("%s-%d", g.words[(t*3+k)%len(g.words)], t))
		}
		themes = append(themes, th)
		for size := 1 + g.r.Intn(4); size > 0 && len(of) < n; size-- {
			of = append(of, t)
		}
	}
	g.r.Shuffle(len(of), func(i, j int) { of[i], of[j] = of[j], of[i] })
	return func(i int) (string, []string, time.Time, string) {
		th := themes[of[i]]
		tags := append([]string(nil), th.tags...)
		g.r.Shuffle(len(tags), func(a, b int) { tags[a], tags[b] = tags[b], tags[a] })
		return th.category, tags[:2+g.r.Intn(2)], fillerTime(i), g.text(10, 40)
	}
}

// agedLearnings: learnings of seed 002's categories with generateCorpus's
// tags and bodies; the even ones created 91 to 455 days before now (never
// used, so prune takes them), the odd ones in the last 80 days.
func agedLearnings(now time.Time) learningDraw {
	return func(g *generator, n int) func(i int) (string, []string, time.Time, string) {
		return func(i int) (string, []string, time.Time, string) {
			days := g.r.Intn(80)
			if i%2 == 0 {
				days = 91 + g.r.Intn(365)
			}
			created := now.UTC().Add(-time.Duration(days)*24*time.Hour - time.Duration(g.r.Intn(86400))*time.Second).Truncate(time.Second)
			return seed002Categories[i%len(seed002Categories)], g.tagList(), created, g.text(20, 120)
		}
	}
}

// measureInCopies times, in a fresh copy of master each run, lore with
// args, against writing the files lore's commit changed into another
// fresh copy and `git add -A .agent && git commit`, and checks that the two
// copies then hold the same .agent. Before the pair, untimed, both copies
// refresh git's index (cp -a changes every file's inode and ctime) and
// lore runs warm (a --dry-run of the same command), as in a store lore
// has been used in.
func measureInCopies(work, master string, env []string, runs int, lore string, args, warm []string) (lifecycleRow, error) {
	var row lifecycleRow
	name := filepath.Base(master)
	a, b := master+"-lore", master+"-git"
	for i := -1; i < runs; i++ {
		for _, dir := range []string{a, b} {
			os.RemoveAll(dir)
			if err := runIn(work, env, "cp", "-a", master, dir); err != nil {
				return row, err
			}
			if err := runIn(dir, env, "git", "update-index", "-q", "--refresh"); err != nil {
				return row, err
			}
		}
		if err := runIn(a, env, lore, warm...); err != nil {
			return row, err
		}
		if err := runIn(work, env, "sync"); err != nil { // no writeback of the copies while timed
			return row, err
		}
		tLore, err := timeRun(a, env, lore, args...)
		if err != nil {
			return row, err
		}
		files, deleted, err := headChanges(a, env)
		if err != nil {
			return row, err
		}
		start := time.Now()
		for _, p := range deleted {
			if err := os.Remove(filepath.Join(b, filepath.FromSlash(p))); err != nil {
				return row, err
			}
		}
		for p, content := range files {
			if !strings.HasPrefix(p, ".agent/") {
				return row, fmt.Errorf("lore changed %s, outside .agent/", p)
			}
			path := filepath.Join(b, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return row, err
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				return row, err
			}
		}
		if err := runIn(b, env, "git", "add", "-A", ".agent"); err != nil {
			return row, err
		}
		if err := runIn(b, env, "git", "commit", "-q", "-m", "m"); err != nil {
			return row, err
		}
		tGit := time.Since(start)
		if err := sameTrees(a, b, env); err != nil {
			return row, err
		}
		row.files = len(files) + len(deleted)
		row.add(i, tLore, tGit)
		fmt.Fprintf(os.Stderr, "  %s run %d: lore %s, git %s, %d files\n", name, i, ms(tLore), ms(tGit), row.files)
	}
	os.RemoveAll(a)
	os.RemoveAll(b)
	return row, nil
}

// importFailure describes a failed lore import in dir: its error,
// whether it committed, and the temporary object files it left under
// .git/objects.
func importFailure(dir string, env []string, err error) string {
	msg := strings.TrimSpace(err.Error())
	if i := strings.LastIndex(msg, "\n"); i >= 0 {
		msg = msg[i+1:] // lore's own message, after runIn's command line
	}
	msg = strings.ReplaceAll(msg, dir, "REPO")
	commits := "?"
	if out, err := runOut(dir, env, "git", "rev-list", "--count", "HEAD"); err == nil {
		commits = strings.TrimSpace(string(out))
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "*", "tmp_obj_*"))
	note := fmt.Sprintf("`lore import` failed: `%s`. HEAD has %s commit(s) after it (1 before); it left %d `tmp_obj_*` files under `.git/objects`.",
		msg, commits, len(left))
	fmt.Fprintln(os.Stderr, note)
	return note
}

// runJSON runs a command and decodes its standard output into v.
func runJSON(dir string, env []string, v any, name string, args ...string) error {
	out, err := runOut(dir, env, name, args...)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, v)
}

// timeToFile times a command whose standard output goes to path, as
// `name args > path` would.
func timeToFile(dir string, env []string, path, name string, args ...string) (time.Duration, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env, cmd.Stdout = dir, env, f
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return d, f.Close()
}

// exportCount is how many entries a lore export holds: the elements of
// its top-level arrays.
func exportCount(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return 0, err
	}
	n := 0
	for _, v := range top {
		var list []json.RawMessage
		if json.Unmarshal(v, &list) == nil {
			n += len(list)
		}
	}
	return n, nil
}

// emptyRepository makes dir a git repository with one empty commit and
// no automatic gc (a commit of 100k loose objects would start one).
func emptyRepository(dir string, env []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range [][]string{
		{"init", "-q", "-b", "main"}, {"config", "gc.auto", "0"}, {"config", "maintenance.auto", "false"},
		{"commit", "-q", "--allow-empty", "-m", "empty"},
	} {
		if err := runIn(dir, env, "git", s...); err != nil {
			return err
		}
	}
	return nil
}

// checkImport compares the store lore imported at imported with the
// original: the files its commit added, whether the .agent trees are the
// same and, if not, which front-matter keys the differing lines hold;
// whether lore export of the import gives the same export; and git fsck.
func checkImport(original, imported, export string, env []string, lore string) (files int, note string, err error) {
	list, err := runOut(imported, env, "git", "diff", "--name-only", "--no-renames", "HEAD~1", "HEAD")
	if err != nil {
		return 0, "", err
	}
	files = bytes.Count(list, []byte("\n"))
	if err := runIn(imported, env, "git", "fsck", "--strict", "--no-progress"); err != nil {
		return 0, "", err
	}
	var parts []string
	if err := sameTrees(original, imported, env); err == nil {
		parts = append(parts, "the imported `.agent` tree is the original's (`git rev-parse HEAD:.agent`)")
	} else {
		differ, missing, extra, keys, err := compareAgentTrees(original, imported)
		if err != nil {
			return 0, "", err
		}
		parts = append(parts, fmt.Sprintf("the imported `.agent` tree is not the original's: %d files differ, %d are missing, %d are extra; the differing lines are `%s` lines",
			differ, missing, extra, strings.Join(keys, "`, `")))
	}
	again := filepath.Join(filepath.Dir(export), "reexport.json")
	defer os.Remove(again)
	if _, err := timeToFile(imported, env, again, lore, "export"); err != nil {
		return 0, "", err
	}
	x, errX := os.ReadFile(export)
	y, errY := os.ReadFile(again)
	if errX != nil || errY != nil {
		return 0, "", fmt.Errorf("reading the exports: %v %v", errX, errY)
	}
	if bytes.Equal(x, y) {
		parts = append(parts, "`lore export` of the import is the original export byte for byte")
	} else {
		parts = append(parts, "`lore export` of the import differs from the original export")
	}
	parts = append(parts, "`git fsck --strict` is clean")
	note = "Import check (first run): " + strings.Join(parts, "; ") + "."
	fmt.Fprintln(os.Stderr, note)
	return files, note, nil
}

// compareAgentTrees compares the files under a/.agent and b/.agent and
// returns how many differ, are only in a (missing) or only in b (extra),
// and the keys ("key:" prefixes, or "body") of a's lines that differ.
func compareAgentTrees(a, b string) (differ, missing, extra int, keys []string, err error) {
	seen := map[string]bool{}
	keySet := map[string]bool{}
	rootA := filepath.Join(a, ".agent")
	err = filepath.WalkDir(rootA, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(rootA, p)
		seen[rel] = true
		x, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		y, err := os.ReadFile(filepath.Join(b, ".agent", rel))
		if os.IsNotExist(err) {
			missing++
			return nil
		} else if err != nil {
			return err
		}
		if bytes.Equal(x, y) {
			return nil
		}
		differ++
		lx, ly := strings.Split(string(x), "\n"), strings.Split(string(y), "\n")
		for i, line := range lx {
			if i < len(ly) && ly[i] == line {
				continue
			}
			key, _, ok := strings.Cut(line, ":")
			if !ok || strings.Contains(key, " ") {
				key = "body"
			}
			keySet[key] = true
		}
		return nil
	})
	if err != nil {
		return 0, 0, 0, nil, err
	}
	rootB := filepath.Join(b, ".agent")
	err = filepath.WalkDir(rootB, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if rel, _ := filepath.Rel(rootB, p); !seen[rel] {
			extra++
		}
		return nil
	})
	for k := range keySet {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return differ, missing, extra, keys, err
}
