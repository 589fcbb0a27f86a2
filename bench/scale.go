package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// benchScale measures every row of issue 18's table (each command's cost
// as the store grows) at each size in one run: one generated store per
// size serves every row of that size, and its baselines run in a copy or
// a clone of it. The lore add row by memories in memories.md is measured
// once, in small repositories of its own.
func benchScale(args []string) error {
	fs := flag.NewFlagSet("scale", flag.ExitOnError)
	sizesFlag := fs.String("sizes", "1000,10000,100000", "entries in each store (comma-separated)")
	runs := fs.Int("runs", 5, "timed runs of each command per store, after an untimed warm-up")
	memoriesFlag := fs.String("memories", "0,1000,10000", "memories in memories.md for the lore add row, each in a repository of 1,000 tracked files (comma-separated)")
	write := fs.String("write", "", "replace the scale section of this Markdown file with the results")
	keep := fs.Bool("keep", false, "keep the generated repositories")
	fs.Parse(args)
	sizes, err := parseCounts(*sizesFlag, 1)
	if err != nil {
		return err
	}
	memories, err := parseCounts(*memoriesFlag, 0)
	if err != nil {
		return err
	}
	if *runs < 1 || *runs+1 > ingestStories {
		return fmt.Errorf("-runs %d: between 1 and %d (ingest's outputs tell %d stories, one for the warm-up)", *runs, ingestStories-1, ingestStories)
	}

	work, err := os.MkdirTemp("", "lore-bench-scale-")
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
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintf(os.Stderr, "cannot inherit lore-index when lore exits (%v): a build in the background is waited for through lore index status, and its peak memory is not measured\n", err)
	}
	began := time.Now()
	t := newScaleTable(memories)
	s := &scaleRun{t: t, work: work, lore: lore, self: self, runs: *runs, env: benchEnv(work), keep: *keep}
	for _, m := range memories {
		if err := s.memoryAdd(m); err != nil {
			return err
		}
	}
	for _, n := range sizes {
		if err := s.size(n); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "measured in %s\n", time.Since(began).Round(time.Second))
	out := t.markdown(sizes, *runs, "go run ./bench "+strings.Join(os.Args[1:], " "))
	fmt.Print(out)
	if *write != "" {
		return replaceSection(*write, "scale", out)
	}
	return nil
}

// The rows of the table, in issue 18's order; the lore add rows by
// memories follow rowLearning and rowKnowledge.
const (
	rowIngest       = "ingest"
	rowLearning     = "learning"
	rowKnowledge    = "knowledge"
	rowPrime        = "prime"
	rowPrimeAfter   = "prime-after-ingest"
	rowFirstSearch  = "first-search"
	rowFirstBuild   = "first-build"
	rowRebuild      = "rebuild"
	rowIndexDisk    = "index-disk"
	rowPull         = "pull"
	rowWarmSearch   = "warm-search"
	rowAddFiles     = "add-files"
	rowMemoryPrefix = "memories-"
	bySize0         = 0 // the cell of a row that does not depend on entries
)

// scaleCell is one measurement: lore's runs and its baseline's, paired.
type scaleCell struct {
	lore, base []time.Duration
	baseName   string // "git", "the scan", …; empty without a baseline
	rss        int64  // peak resident memory, bytes; 0 if not measured
	note       string
	// The index row: its size on disk just after a rebuild and once settled.
	diskAfter, diskSettled int64
}

func (c *scaleCell) ratio() float64 { return float64(median(c.lore)) / float64(median(c.base)) }

func (c *scaleCell) String() string {
	if c.diskAfter > 0 || c.diskSettled > 0 {
		return fmt.Sprintf("%s just after, %s settled", mb(c.diskAfter), mb(c.diskSettled))
	}
	s := fmtDur(median(c.lore)) + ", min " + fmtDur(minimum(c.lore))
	if c.rss > 0 {
		s += ", peak " + mb(c.rss)
	}
	if len(c.base) > 0 {
		s += fmt.Sprintf(" (%.2f× %s's %s)", c.ratio(), c.baseName, fmtDur(median(c.base)))
	}
	if c.note != "" {
		s += ", " + c.note
	}
	return s
}

// scaleTarget is issue 18's target for a row and how to judge a cell by it.
type scaleTarget struct {
	text string
	// size is the entries whose cell the target judges; 0 judges every
	// size measured (or the cell of a row that does not depend on entries).
	size  int
	check func(c *scaleCell) (met bool, by string)
}

type scaleRow struct {
	key, what string
	target    scaleTarget
	cells     map[int]*scaleCell
}

func (r *scaleRow) verdict() string {
	if r.target.check == nil {
		return "—"
	}
	if c, ok := r.cells[bySize0]; ok {
		if met, by := r.target.check(c); !met {
			return "MISSED by " + by
		}
		return "met"
	}
	if r.target.size != 0 {
		c, ok := r.cells[r.target.size]
		if !ok {
			return "not measured at " + sizeLabel(r.target.size)
		}
		if met, by := r.target.check(c); !met {
			return "MISSED by " + by
		}
		return "met"
	}
	var missed []string
	for _, n := range slices.Sorted(maps.Keys(r.cells)) {
		if met, by := r.target.check(r.cells[n]); !met {
			missed = append(missed, by+" at "+sizeLabel(n))
		}
	}
	if len(r.cells) == 0 {
		return "not measured"
	}
	if len(missed) > 0 {
		return "MISSED by " + strings.Join(missed, ", ")
	}
	return "met"
}

type scaleTable struct {
	rows  []*scaleRow
	byKey map[string]*scaleRow
}

func newScaleTable(memories []int) *scaleTable {
	t := &scaleTable{byKey: map[string]*scaleRow{}}
	add := func(key, what string, target scaleTarget) {
		r := &scaleRow{key: key, what: what, target: target, cells: map[int]*scaleCell{}}
		t.rows = append(t.rows, r)
		t.byKey[key] = r
	}
	const k100 = 100000
	add(rowIngest, "`lore ingest` of one agent output (journal, 2 knowledge, 2 learnings, failure report) vs copying the same files into an identical repository and `git add -A .agent && git commit`",
		scaleTarget{"≤ 1.0× git at 100k", k100, ratioAtMost(1.0)})
	add(rowLearning, "`lore learning add` vs writing the same file into an identical repository and `git add <file> && git commit`",
		scaleTarget{"≤ 100 ms at 100k", k100, timeAtMost(100 * time.Millisecond)})
	add(rowKnowledge, "`lore knowledge add` vs writing the same file into an identical repository and `git add <file> && git commit`",
		scaleTarget{"≤ 100 ms at 100k", k100, timeAtMost(100 * time.Millisecond)})
	for _, m := range memories {
		var target scaleTarget
		switch m {
		case 0:
			target = scaleTarget{"≤ 1.0× git (1k files, empty store)", 0, ratioAtMost(1.0)}
		case 10000:
			target = scaleTarget{"≤ 0.6× git at 10k memories", 0, ratioAtMost(0.6)}
		}
		add(memoryRow(m), fmt.Sprintf("`lore add` with %s in memories.md (a repository of 1k tracked files, whatever the entries) vs appending the same block to a copy and `git add && git commit`", memoriesLabel(m)), target)
	}
	add(rowPrime, "`lore prime --task-id --title --description` vs reading and scanning every file under .agent/",
		scaleTarget{"≤ 100 ms at 100k", k100, timeAtMost(100 * time.Millisecond)})
	add(rowPrimeAfter, "the same `lore prime` right after each `lore ingest` (the loop's order) vs the same prime again at once",
		scaleTarget{})
	add(rowFirstSearch, "first `lore search WORD` in a fresh `git clone` (no index, no caches) vs the scan in that clone",
		scaleTarget{"≤ 1.0× the scan at 100k", k100, ratioAtMost(1.0)})
	add(rowFirstBuild, "index built after that first search: time from the search's start until the index is fresh, peak RSS of the build",
		scaleTarget{"≤ 15 s and ≤ 300 MB at 100k", k100, timeRSSAtMost(15*time.Second, 300<<20)})
	add(rowRebuild, "`lore index rebuild`, peak RSS (lore-index's included)",
		scaleTarget{"≤ 15 s and ≤ 300 MB at 100k", k100, timeRSSAtMost(15*time.Second, 300<<20)})
	add(rowIndexDisk, "index directory on disk just after a rebuild, and settled (after the warm searches)",
		scaleTarget{"no replaced segments left: just after ≤ settled", 0, noLeftover})
	add(rowPull, "first `lore search` after a pull that changed 100 entries vs the same search unchanged, in the same round",
		scaleTarget{"≤ 2.0× unchanged at 100k", k100, ratioAtMost(2.0)})
	add(rowWarmSearch, "warm `lore search WORD` vs the scan",
		scaleTarget{"≤ 50 ms at 100k", k100, timeAtMost(50 * time.Millisecond)})
	add(rowAddFiles, "`lore add` in a repository of n tracked files vs `git add f && git commit`",
		scaleTarget{"≤ 0.25× git at 100k", k100, ratioAtMost(0.25)})
	return t
}

func memoryRow(m int) string { return rowMemoryPrefix + strconv.Itoa(m) }

func memoriesLabel(m int) string {
	switch {
	case m == 1:
		return "1 memory"
	case m >= 1000 && m%1000 == 0:
		return fmt.Sprintf("%dk memories", m/1000)
	}
	return fmt.Sprintf("%d memories", m)
}

func ratioAtMost(x float64) func(*scaleCell) (bool, string) {
	return func(c *scaleCell) (bool, string) {
		r := c.ratio()
		return r <= x, fmt.Sprintf("%.2f×", r-x)
	}
}

func timeAtMost(d time.Duration) func(*scaleCell) (bool, string) {
	return func(c *scaleCell) (bool, string) {
		m := median(c.lore)
		return m <= d, fmtDur(m - d)
	}
}

func timeRSSAtMost(d time.Duration, rss int64) func(*scaleCell) (bool, string) {
	return func(c *scaleCell) (bool, string) {
		var by []string
		if m := median(c.lore); m > d {
			by = append(by, fmtDur(m-d))
		}
		if c.rss > rss {
			by = append(by, mb(c.rss-rss))
		} else if c.rss == 0 {
			by = append(by, "an unmeasured peak RSS")
		}
		return len(by) == 0, strings.Join(by, " and ")
	}
}

// noLeftover: what a rebuild leaves is no more than the index settles to,
// give or take 5% or 1 MB.
func noLeftover(c *scaleCell) (bool, string) {
	extra := c.diskAfter - c.diskSettled
	return extra <= 1<<20 || extra*20 <= c.diskSettled, mb(extra) + " left over"
}

func (t *scaleTable) markdown(sizes []int, runs int, command string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Issue 18's table in one run: whole processes on generated stores of n entries (memories 10%%, knowledge 15%%, learnings 25%%, journal 50%%), one store per size for every row of that size, its baselines in a copy or clone of it; each lore command alternates with its baseline, after an untimed warm-up pair; medians of %d runs, with the minimum (%s, %s, %d cores, git %s, lore at %s).\n\n",
		runs, time.Now().UTC().Format("2006-01-02"), runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), gitVersion(), loreRevision())
	fmt.Fprintf(&b, "Command: `%s`\n\n", command)
	b.WriteString("| what |")
	for _, n := range sizes {
		b.WriteString(" " + sizeLabel(n) + " entries |")
	}
	b.WriteString(" target | verdict |\n| --- |")
	for range sizes {
		b.WriteString(" ---: |")
	}
	b.WriteString(" --- | --- |\n")
	for _, r := range t.rows {
		b.WriteString("| " + r.what + " |")
		for i, n := range sizes {
			c, ok := r.cells[n]
			switch {
			case ok:
				b.WriteString(" " + c.String() + " |")
			case r.cells[bySize0] != nil && i == 0:
				b.WriteString(" " + r.cells[bySize0].String() + " |")
			case r.cells[bySize0] != nil:
				b.WriteString(" ″ |")
			default:
				b.WriteString(" — |")
			}
		}
		target := r.target.text
		if target == "" {
			target = "—"
		}
		fmt.Fprintf(&b, " %s | %s |\n", target, r.verdict())
	}
	b.WriteString("\nThe `lore add` rows by memories do not depend on the entries: one figure, in the first column (″: the same). ")
	b.WriteString("The scan reads every file under .agent/ and looks for the word (`go run ./bench scan-baseline DIR WORD`). ")
	b.WriteString("The first search runs in a new clone each run, after the scan in it; when lore answers and leaves lore-index building the index, the bench inherits that process (a child subreaper), waits for it and reads its peak memory, then checks that `lore index status` says fresh; the build's time is counted from the search's start. ")
	b.WriteString("After a pull: a second clone commits a change to 100 knowledge and learning files, the store pulls it, and the first search is timed, then, once lore-index has finished, the same search again (unchanged). ")
	b.WriteString("The ingest, learning and knowledge rows run in the store and in an identical copy that receives the same files, and the bench checks after each pair that the two trees are the same; the memory rows append the bytes lore inserted in memories.md to the copy's file (lore puts a memory at the top of its section), so both files keep the same size.\n")
	return b.String()
}

// scaleRun holds what every measurement of a run shares.
type scaleRun struct {
	t                *scaleTable
	work, lore, self string
	runs             int
	env              []string
	keep             bool // leave every repository in work
}

func (s *scaleRun) set(key string, n int, c *scaleCell) {
	s.t.byKey[key].cells[n] = c
	if n == bySize0 {
		fmt.Fprintf(os.Stderr, "  %s: %s\n", key, c)
	} else {
		fmt.Fprintf(os.Stderr, "  %s, %s entries: %s\n", key, sizeLabel(n), c)
	}
}

// size measures every row that depends on the entries in a store of n
// entries.
func (s *scaleRun) size(n int) error {
	env, runs := s.env, s.runs
	start := time.Now()
	a, b := filepath.Join(s.work, fmt.Sprintf("store-%d", n)), filepath.Join(s.work, fmt.Sprintf("twin-%d", n))
	c, err := generateTwins(a, b, n, s.lore)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d entries: generated the store and its twin in %s\n", n, time.Since(start).Round(time.Second))

	if err := s.firstSearch(c, n); err != nil {
		return err
	}

	// Rebuild, in the store: a warm-up, then timed runs, each followed by
	// the index's size on disk.
	dir, _, err := indexStatus(a, env, s.lore)
	if err != nil {
		return err
	}
	var rebuilds []time.Duration
	var rebuildRSS, diskAfter int64
	for i := -1; i < runs; i++ {
		d, rss, err := timeRSS(a, env, s.lore, "index", "rebuild")
		if err != nil {
			return err
		}
		size, err := diskUsage(dir)
		if err != nil {
			return err
		}
		if err := settle(); err != nil {
			return err
		}
		if i >= 0 {
			rebuilds = append(rebuilds, d)
			rebuildRSS, diskAfter = max(rebuildRSS, rss), max(diskAfter, size)
		}
	}
	s.set(rowRebuild, n, &scaleCell{lore: rebuilds, rss: rebuildRSS})

	// Warm search against the scan, then the index once it settled.
	var searches, scans []time.Duration
	for i := -1; i < runs; i++ {
		tScan, err := timeRun(a, env, s.self, "scan-baseline", a, c.word)
		if err != nil {
			return err
		}
		tSearch, err := timeRun(a, env, s.lore, "search", c.word)
		if err != nil {
			return err
		}
		if i >= 0 {
			scans, searches = append(scans, tScan), append(searches, tSearch)
		}
	}
	s.set(rowWarmSearch, n, &scaleCell{lore: searches, base: scans, baseName: "the scan"})
	if err := settle(); err != nil {
		return err
	}
	settled, err := diskUsage(dir)
	if err != nil {
		return err
	}
	s.set(rowIndexDisk, n, &scaleCell{diskAfter: diskAfter, diskSettled: settled})

	primes, scans, _, err := measurePrime(c, env, s.lore, s.self, runs)
	if err != nil {
		return err
	}
	s.set(rowPrime, n, &scaleCell{lore: primes, base: scans, baseName: "the scan"})
	if err := settle(); err != nil {
		return err
	}

	loreTimes, gitTimes, after, err := measureIngest(a, b, s.work, runs, env, s.lore, primeArgs(c))
	if err != nil {
		return err
	}
	s.set(rowIngest, n, &scaleCell{lore: loreTimes, base: gitTimes, baseName: "git"})
	s.set(rowPrimeAfter, n, &scaleCell{lore: after[0], base: after[1], baseName: "the next prime"})
	if err := settle(); err != nil {
		return err
	}

	g := newGenerator(int64(n))
	g.reseed(int64(n)*7919 + 1)
	for _, kind := range []string{rowLearning, rowKnowledge} {
		loreTimes, gitTimes, err := s.entryAdd(a, b, kind, g)
		if err != nil {
			return err
		}
		s.set(kind, n, &scaleCell{lore: loreTimes, base: gitTimes, baseName: "git"})
		if err := settle(); err != nil {
			return err
		}
	}
	if !s.keep {
		os.RemoveAll(b)
	}

	answered, _, unchanged, err := afterChanges(c, env, s.lore, runs, pullChanges)
	if err != nil {
		return err
	}
	if err := settle(); err != nil {
		return err
	}
	s.set(rowPull, n, &scaleCell{lore: answered, base: unchanged, baseName: "the unchanged search"})
	if !s.keep {
		os.RemoveAll(a)
		os.RemoveAll(a + "-clone")
	}

	repo := filepath.Join(s.work, fmt.Sprintf("files-%d", n))
	start = time.Now()
	if err := makeRepository(repo, n, s.lore); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d entries: built a repository of %d tracked files in %s\n", n, n, time.Since(start).Round(time.Second))
	row, err := measureAdd(repo, s.lore, n, runs)
	if err != nil {
		return err
	}
	s.set(rowAddFiles, n, &scaleCell{lore: row.lore, base: row.git, baseName: "git"})
	if !s.keep {
		os.RemoveAll(repo)
	}
	if err := settle(); err != nil {
		return err
	}
	return nil
}

// settle waits for whatever lore left running in the background (a
// lore-index finishing an update after it answered), so that the next
// measurement starts on a quiet machine.
func settle() error {
	_, err := waitOrphans(30 * time.Minute)
	return err
}

// firstSearch times the first lore search in a fresh clone of the store
// against the scan in that clone, and how long the index took to be
// built from the search's start, with the build's peak memory. Each run
// clones again; the next run starts once the build is over.
func (s *scaleRun) firstSearch(c corpus, n int) error {
	var searches, scans, ready []time.Duration
	var buildRSS int64
	background := 0
	for i := -1; i < s.runs; i++ {
		clone := filepath.Join(s.work, fmt.Sprintf("clone-%d-%d", n, i+1))
		if err := runIn(s.work, s.env, "git", "clone", "-q", "-c", "gc.auto=0", "-c", "maintenance.auto=false", c.dir, clone); err != nil {
			return err
		}
		tScan, err := timeRun(clone, s.env, s.self, "scan-baseline", clone, c.word)
		if err != nil {
			return err
		}
		start := time.Now()
		tSearch, rss, err := timeRSS(clone, s.env, s.lore, "search", c.word)
		if err != nil {
			return err
		}
		end, bgRSS, err := waitIndexed(clone, s.env, s.lore)
		if err != nil {
			return err
		}
		tReady := tSearch
		if !end.IsZero() {
			tReady, rss = end.Sub(start), max(rss, bgRSS)
		}
		if i >= 0 {
			scans, searches, ready = append(scans, tScan), append(searches, tSearch), append(ready, tReady)
			buildRSS = max(buildRSS, rss)
			if !end.IsZero() {
				background++
			}
		}
		fmt.Fprintf(os.Stderr, "  %d entries, first search run %d: scan %s, search %s, index ready after %s (peak %s)\n", n, i+1, fmtDur(tScan), fmtDur(tSearch), fmtDur(tReady), mb(rss))
		if !s.keep {
			os.RemoveAll(clone)
		}
	}
	s.set(rowFirstSearch, n, &scaleCell{lore: searches, base: scans, baseName: "the scan"})
	how := "built during the search"
	switch {
	case background == len(ready):
		how = "built in the background"
	case background > 0:
		how = fmt.Sprintf("built in the background in %d of %d runs", background, len(ready))
	}
	s.set(rowFirstBuild, n, &scaleCell{lore: ready, rss: buildRSS, note: how})
	return nil
}

// waitIndexed waits until the index of the clone at dir is built after a
// search: for the lore-index processes lore left running (inherited by
// the bench as a subreaper), then until lore index status says the index
// is fresh. It returns when the build was over, zero if nothing was left
// running and the index was fresh at once (the search built it), and the
// peak memory of what ran on.
func waitIndexed(dir string, env []string, lore string) (end time.Time, rss int64, err error) {
	orphans, err := waitOrphans(30 * time.Minute)
	if err != nil {
		return time.Time{}, 0, err
	}
	for _, o := range orphans {
		if o.end.After(end) {
			end = o.end
		}
		rss = max(rss, o.rss)
	}
	deadline := time.Now().Add(30 * time.Minute)
	for polled := false; ; polled = true {
		_, fresh, err := indexStatus(dir, env, lore)
		if err != nil {
			return time.Time{}, 0, err
		}
		if fresh {
			if polled {
				end = time.Now()
			}
			return end, rss, nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, 0, fmt.Errorf("the index in %s is still not fresh 30 minutes after the first search", dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// indexStatus asks lore index status where the index is and whether it is
// fresh.
func indexStatus(dir string, env []string, lore string) (indexDir string, fresh bool, err error) {
	cmd := exec.Command(lore, "index", "status", "--format", "json")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		return "", false, fmt.Errorf("lore index status in %s: %v", dir, err)
	}
	var st struct {
		Status struct {
			Dir   string `json:"dir"`
			Fresh bool   `json:"fresh"`
		} `json:"status"`
	}
	if err := json.Unmarshal(out, &st); err != nil || st.Status.Dir == "" {
		return "", false, fmt.Errorf("lore index status --format json in %s: no status.dir in %q (%v)", dir, out, err)
	}
	return st.Status.Dir, st.Status.Fresh, nil
}

// diskUsage is the space the files under dir take on disk.
func diskUsage(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil // removed meanwhile
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		} else {
			total += info.Size()
		}
		return nil
	})
	return total, err
}

// entryAdd times lore learning add or lore knowledge add of new content
// in the store a against writing the file it committed into b, the
// store's twin, and `git add <file> && git commit`, after a warm-up pair.
func (s *scaleRun) entryAdd(a, b, kind string, g *generator) (loreTimes, gitTimes []time.Duration, err error) {
	for i := -1; i < s.runs; i++ {
		k := i + 1
		tags := strings.Join(g.tagList(), ",")
		var args []string
		switch kind {
		case rowLearning:
			args = []string{"learning", "add", "--category", "pitfall", "--tags", tags, "--task", fmt.Sprintf("T-scale-%d", k), "--format", "quiet", g.text(25, 80)}
		case rowKnowledge:
			// Words drawn evenly from the vocabulary: a title unlike any
			// other, so that lore adds an entry rather than update one.
			var title []string
			for j := 0; j < 4; j++ {
				title = append(title, g.words[g.r.Intn(len(g.words))])
			}
			args = []string{"knowledge", "add", "--title", strings.Join(title, " ") + fmt.Sprintf(" scale %d", k), "--tags", tags, "--format", "quiet", g.text(30, 150)}
		}
		tLore, err := timeRun(a, s.env, s.lore, args...)
		if err != nil {
			return nil, nil, err
		}
		files, deleted, err := headChanges(a, s.env)
		if err != nil {
			return nil, nil, err
		}
		if len(files) != 1 || len(deleted) != 0 {
			return nil, nil, fmt.Errorf("lore %s add committed %d files and deleted %d; want one new file", kind, len(files), len(deleted))
		}
		var tGit time.Duration
		for path, content := range files {
			p := filepath.Join(b, filepath.FromSlash(path))
			if _, err := os.Stat(p); err == nil {
				return nil, nil, fmt.Errorf("lore %s add changed %s instead of adding an entry", kind, path)
			}
			start := time.Now()
			if err := os.WriteFile(p, content, 0o644); err != nil {
				return nil, nil, err
			}
			if err := runIn(b, s.env, "git", "add", path); err != nil {
				return nil, nil, err
			}
			if err := runIn(b, s.env, "git", "commit", "-q", "-m", "m"); err != nil {
				return nil, nil, err
			}
			tGit = time.Since(start)
		}
		if err := sameTrees(a, b, s.env); err != nil {
			return nil, nil, err
		}
		if i >= 0 {
			loreTimes, gitTimes = append(loreTimes, tLore), append(gitTimes, tGit)
		}
	}
	return loreTimes, gitTimes, nil
}

// memoryAdd times lore add with m memories in memories.md, in a
// repository of 1,000 tracked files, against appending the bytes lore
// inserted to the same file in a copy of the repository and `git add &&
// git commit`, after a warm-up pair.
func (s *scaleRun) memoryAdd(m int) error {
	start := time.Now()
	a := filepath.Join(s.work, fmt.Sprintf("memories-%d", m))
	b := a + "-git"
	if err := makeRepository(a, 1000, s.lore); err != nil {
		return err
	}
	const rel = ".agent/memories.md"
	g := newGenerator(int64(m) + 1)
	if m > 0 {
		if err := os.WriteFile(filepath.Join(a, rel), []byte(memoriesMarkdown(g, m)), 0o644); err != nil {
			return err
		}
		if err := runIn(a, s.env, "git", "add", rel); err != nil {
			return err
		}
		if err := runIn(a, s.env, "git", "commit", "-q", "-m", "memories"); err != nil {
			return err
		}
	}
	if err := runIn(s.work, s.env, "cp", "-a", a, b); err != nil {
		return err
	}
	for _, dir := range []string{a, b} {
		if err := runIn(dir, s.env, "git", "status", "--porcelain"); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "built two repositories of 1000 files with %s in %s\n", memoriesLabel(m), time.Since(start).Round(time.Millisecond))
	g.reseed(int64(m)*7919 + 2)
	types := []string{"pattern", "decision", "fix", "context"}
	var loreTimes, gitTimes []time.Duration
	for i := -1; i < s.runs; i++ {
		before, err := os.ReadFile(filepath.Join(a, rel))
		if err != nil {
			return err
		}
		text := strings.ReplaceAll(g.text(8, 40), "\n", " ")
		tLore, err := timeRun(a, s.env, s.lore, "add", text, "-t", types[(i+1)%len(types)], "--tags", strings.Join(g.tagList(), ","), "--format", "quiet")
		if err != nil {
			return err
		}
		files, deleted, err := headChanges(a, s.env)
		if err != nil {
			return err
		}
		after, ok := files[rel]
		if !ok || len(files) != 1 || len(deleted) != 0 {
			return fmt.Errorf("lore add committed %d files and deleted %d; want %s alone", len(files), len(deleted), rel)
		}
		block := insertedBytes(before, after)
		start := time.Now()
		f, err := os.OpenFile(filepath.Join(b, rel), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.Write(block)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if err := runIn(b, s.env, "git", "add", rel); err != nil {
			return err
		}
		if err := runIn(b, s.env, "git", "commit", "-q", "-m", "m"); err != nil {
			return err
		}
		tGit := time.Since(start)
		if info, err := os.Stat(filepath.Join(b, rel)); err != nil || info.Size() != int64(len(after)) {
			return fmt.Errorf("the copy's memories.md is not the size of lore's (%d bytes) after run %d: %v", len(after), i+1, err)
		}
		if i >= 0 {
			loreTimes, gitTimes = append(loreTimes, tLore), append(gitTimes, tGit)
		}
	}
	s.set(memoryRow(m), bySize0, &scaleCell{lore: loreTimes, base: gitTimes, baseName: "git"})
	if !s.keep {
		os.RemoveAll(a)
		os.RemoveAll(b)
	}
	return nil
}

// insertedBytes is what after holds that before does not, when after is
// before with bytes inserted in one place.
func insertedBytes(before, after []byte) []byte {
	p := 0
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	q := 0
	for q < len(before)-p && q < len(after)-p && before[len(before)-1-q] == after[len(after)-1-q] {
		q++
	}
	return after[p : len(after)-q]
}

// loreRevision is the commit of the source tree lore was built from,
// marked when the tree has changes of its own.
func loreRevision() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "?"
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		rev += " with uncommitted changes"
	}
	return rev
}

func parseCounts(list string, least int) ([]int, error) {
	var out []int
	for _, s := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < least {
			return nil, fmt.Errorf("bad count %q", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func sizeLabel(n int) string {
	if n >= 1000 && n%1000 == 0 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

// fmtDur prints milliseconds below a second, seconds above.
func fmtDur(d time.Duration) string {
	if d >= time.Second || d <= -time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return ms(d)
}

func mb(n int64) string { return fmt.Sprintf("%d MB", n>>20) }
