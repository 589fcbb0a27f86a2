package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
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

// benchSearch measures lore search, the freshness check and the rebuild on
// generated stores, each beside reading and scanning every file.
func benchSearch(args []string) error {
	fs := flag.NewFlagSet("search", flag.ExitOnError)
	sizes := fs.String("sizes", "1000,10000,100000", "entries in each store (comma-separated)")
	runs := fs.Int("runs", 7, "timed runs of each command")
	write := fs.String("write", "", "replace the search section of this Markdown file with the results")
	keep := fs.Bool("keep", false, "keep the generated repositories")
	residentRuns := fs.Int("resident-runs", 30, "timed runs of the search a resident lore-index answers, and of grep beside it (each ~10 ms)")
	rounds := fs.Int("first-rounds", 5, "rounds of the first search in a fresh clone at each size (the first as cloned, the others with its index removed)")
	fs.Parse(args)

	work, err := os.MkdirTemp("", "lore-bench-search-")
	if err != nil {
		return err
	}
	if !*keep {
		defer os.RemoveAll(work)
	} else {
		fmt.Fprintln(os.Stderr, "keeping", work)
	}
	bin := filepath.Join(work, "bin")
	if _, err := buildLore(bin); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	lore := filepath.Join(bin, "lore")
	rg, rgErr := exec.LookPath("rg")
	var out, side strings.Builder
	fmt.Fprintf(&out, "Whole processes on generated stores (memories 10%%, knowledge 15%%, learnings 25%%, journal 50%%), %d runs each, alternating with the baseline: a program that reads every file under .agent/ and scans it for the word (%s, %d cores, %s).\n\n",
		*runs, runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&out, "Command: `go run ./bench search -sizes %s -runs %d -write BENCHMARKS.md`\n\n", *sizes, *runs)
	out.WriteString("| entries | rebuild | rebuild peak RSS | scan all files | search | fuzzy search | filtered search | scan / search | search after 100 edits | index settled | after a pull of 100 | index settled | edits / unchanged | pull / unchanged |\n")
	out.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("bad size %q", s)
		}
		start := time.Now()
		c, err := generateCorpus(filepath.Join(work, fmt.Sprintf("store-%d", n)), n, int64(n))
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "generated %d entries in %s\n", n, time.Since(start).Round(time.Millisecond))
		env := benchEnv(filepath.Dir(c.dir))

		// Rebuild: once untimed to warm the page cache, then timed.
		if _, err := timeRun(c.dir, env, lore, "index", "rebuild"); err != nil {
			return err
		}
		rebuild, rss, err := timeRSS(c.dir, env, lore, "index", "rebuild")
		if err != nil {
			return err
		}
		load := loadAverage()
		var scan, plain, fuzzy, filtered, grep, ripgrep []time.Duration
		for i := -1; i < *runs; i++ {
			tScan, err := timeRun(c.dir, env, self, "scan-baseline", c.dir, c.word)
			if err != nil {
				return err
			}
			tGrep, err := timeMatches(c.dir, env, "grep", "-ril", c.word, ".agent/")
			if err != nil {
				return err
			}
			var tRg time.Duration
			if rgErr == nil {
				if tRg, err = timeMatches(c.dir, env, rg, "-il", c.word, ".agent/"); err != nil {
					return err
				}
			}
			tPlain, err := timeRun(c.dir, env, lore, "search", c.word)
			if err != nil {
				return err
			}
			tFuzzy, err := timeRun(c.dir, env, lore, "search", c.typo)
			if err != nil {
				return err
			}
			tFiltered, err := timeRun(c.dir, env, lore, "search", c.word, "--kind", "learning", "--tags", c.tag)
			if err != nil {
				return err
			}
			if i >= 0 {
				scan, plain, fuzzy, filtered = append(scan, tScan), append(plain, tPlain), append(fuzzy, tFuzzy), append(filtered, tFiltered)
				grep, ripgrep = append(grep, tGrep), append(ripgrep, tRg)
			}
		}
		resident, residentGrep, err := residentSearches(c, env, lore, *residentRuns)
		if err != nil {
			return err
		}
		first, plainScan, err := firstSearchInClone(c, env, lore, *rounds)
		if err != nil {
			return err
		}
		rgCells := "– | –"
		if rgErr == nil {
			rgCells = fmt.Sprintf("%s | %.2f×", ms(median(ripgrep)), float64(median(plain))/float64(median(ripgrep)))
		}
		sideRow := fmt.Sprintf("| %d | %s | %s | %.2f× | %s | %s | %s | %.2f× | %s | %s | %.2f× | %s |\n", n,
			ms(median(plain)), ms(median(grep)), float64(median(plain))/float64(median(grep)), rgCells,
			ms(median(resident)), ms(median(residentGrep)), float64(median(resident))/float64(median(residentGrep)),
			ms(median(first)), ms(median(plainScan)), float64(median(first))/float64(median(plainScan)), load)
		fmt.Fprint(os.Stderr, sideRow)
		side.WriteString(sideRow)
		edits, editsSettled, _, err := afterChanges(c, env, lore, *runs, handEdit)
		if err != nil {
			return err
		}
		pulls, pullsSettled, _, err := afterChanges(c, env, lore, *runs, pullChanges)
		if err != nil {
			return err
		}
		row := fmt.Sprintf("| %d | %.1f s | %d MB | %s | %s | %s | %s | %.0f× | %s | %s | %s | %s | %.2f× | %.2f× |\n", n,
			rebuild.Seconds(), rss>>20, ms(median(scan)), ms(median(plain)), ms(median(fuzzy)), ms(median(filtered)),
			float64(median(scan))/float64(median(plain)), ms(median(edits)), ms(median(editsSettled)),
			ms(median(pulls)), ms(median(pullsSettled)),
			float64(median(edits))/float64(median(plain)), float64(median(pulls))/float64(median(plain)))
		fmt.Fprint(os.Stderr, row)
		out.WriteString(row)
	}
	rgName := "`rg -il`"
	if rgErr != nil {
		rgName = "`rg -il` (not installed)"
	}
	fmt.Fprintf(&out, "\nSide by side with grep (issue 39): warm `lore search <word>` (the search column above) against `grep -ril <word> .agent/` and %s, in the same rounds, alternating; the same search answered by a resident lore-index (`LORE_INDEX_SERVER=1`, opt-in; started by an untimed search) against `grep -ril` in %d rounds of their own, alternating; and the first `lore search` in a fresh `git clone` of the store (no index yet), %d rounds in one clone: the first as cloned, the others with the index the last one built removed (`.git/lore/index`), against `LORE_INDEX=off lore search` in the clone just before it. Load average (1, 5, 15 min) when the size started.\n\n", rgName, *residentRuns, *rounds)
	out.WriteString("| entries | lore search | grep -ril | lore / grep | rg -il | lore / rg | resident lore search | grep -ril | resident / grep | first search, fresh clone | plain scan | first / scan | load |\n")
	out.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :--- |\n")
	out.WriteString(side.String())
	out.WriteString("\nTargets (DESIGN.md): search at 100k entries ≤ 50 ms and ≥ 20× faster than the scan; search right after 100 entries changed ≤ 2× a search with nothing changed; rebuild of 100k entries ≤ 20 s with peak memory ≤ 500 MB. \"100 edits\" rewrites 100 knowledge and learning files the way editors save (a new file renamed over the old); \"a pull\" fast-forwards to a commit from another clone that changes 100 entries.\n")
	fmt.Print(out.String())
	if *write != "" {
		return replaceSection(*write, "search", out.String())
	}
	return nil
}

// residentSearches times warm `lore search` answered by a resident
// lore-index (LORE_INDEX_SERVER=1) alternating with `grep -ril`, runs
// times after two untimed searches (the first starts the resident), and
// stops the resident: every other figure is of lore without one.
func residentSearches(c corpus, env []string, lore string, runs int) (resident, grep []time.Duration, err error) {
	renv := append(slices.Clone(env), "LORE_INDEX_SERVER=1")
	defer func() {
		if _, stopErr := timeRun(c.dir, env, lore, "index", "stop"); err == nil {
			err = stopErr
		}
	}()
	for i := -2; i < runs; i++ {
		tResident, err := timeRun(c.dir, renv, lore, "search", c.word)
		if err != nil {
			return nil, nil, err
		}
		tGrep, err := timeMatches(c.dir, env, "grep", "-ril", c.word, ".agent/")
		if err != nil {
			return nil, nil, err
		}
		if i >= 0 {
			resident, grep = append(resident, tResident), append(grep, tGrep)
		}
	}
	return resident, grep, nil
}

// afterChanges times the first search after change(i) changed 100
// entries, runs times: until lore answered, and until the index holds
// every change (lore-index answers once the changed entries the search
// can find are indexed, and indexes the others after lore has gone, as
// long as it holds the index's write lock). unchanged is the same search
// in the same round once nothing has changed since the last one, the
// baseline to compare answered with.
func afterChanges(c corpus, env []string, lore string, runs int, change func(c corpus, env []string, round int) error) (answered, settled, unchanged []time.Duration, err error) {
	lock := filepath.Join(c.dir, ".git", "lore", "index", "write.lock")
	for i := 0; i < runs; i++ {
		if err := change(c, env, i); err != nil {
			return nil, nil, nil, err
		}
		start := time.Now()
		d, err := timeRun(c.dir, env, lore, "search", c.word)
		if err != nil {
			return nil, nil, nil, err
		}
		if err := waitForLock(lock); err != nil {
			return nil, nil, nil, err
		}
		answered, settled = append(answered, d), append(settled, time.Since(start))
		// Let the racy window pass so that the next round starts clean.
		time.Sleep(100 * time.Millisecond)
		if _, err := timeRun(c.dir, env, lore, "search", c.word); err != nil {
			return nil, nil, nil, err
		}
		d, err = timeRun(c.dir, env, lore, "search", c.word)
		if err != nil {
			return nil, nil, nil, err
		}
		unchanged = append(unchanged, d)
	}
	return answered, settled, unchanged, nil
}

// firstSearchInClone times, in rounds rounds in a fresh clone of the
// store, the scan lore does without an index (LORE_INDEX=off), then the
// first lore search, which finds no index; each round waits for the index
// that search left building, and the next removes it, which gives the
// clone back the state it was cloned in (its entry caches are warm in
// both runs of a round alike). One clone and several rounds measure what
// three clones did, with less noise: their medians had moved by 40%
// between runs at 1k.
func firstSearchInClone(c corpus, env []string, lore string, rounds int) (first, scan []time.Duration, err error) {
	clone := c.dir + "-fresh"
	if err := runIn(filepath.Dir(c.dir), env, "git", "clone", "-q", "-c", "gc.auto=0", "-c", "maintenance.auto=false", c.dir, clone); err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(clone)
	indexDir := filepath.Join(clone, ".git", "lore", "index")
	for i := 0; i < rounds; i++ {
		if err := os.RemoveAll(indexDir); err != nil {
			return nil, nil, err
		}
		tScan, err := timeRun(clone, append(env[:len(env):len(env)], "LORE_INDEX=off"), lore, "search", c.word)
		if err != nil {
			return nil, nil, err
		}
		tFirst, err := timeRun(clone, env, lore, "search", c.word)
		if err != nil {
			return nil, nil, err
		}
		// lore-index builds the index after lore has gone, holding the
		// write lock lore took before it exited.
		if err := waitForLock(filepath.Join(indexDir, "write.lock")); err != nil {
			return nil, nil, err
		}
		first, scan = append(first, tFirst), append(scan, tScan)
	}
	return first, scan, nil
}

// timeMatches times a grep-like command, whose exit status 1 says it
// found nothing.
func timeMatches(dir string, env []string, name string, args ...string) (time.Duration, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil
	}
	return d, err
}

// loadAverage is the machine's load average over 1, 5 and 15 minutes.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

// waitForLock returns once nobody holds the flock on path.
func waitForLock(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
}

// changedFiles picks 100 knowledge and learning files for round.
func changedFiles(c corpus, round int) ([]string, error) {
	var files []string
	for _, d := range []string{"knowledge", "learnings"} {
		entries, err := os.ReadDir(filepath.Join(c.dir, ".agent", d))
		if err != nil {
			return nil, err
		}
		for i := 0; i < 50 && i < len(entries); i++ {
			files = append(files, filepath.Join(".agent", d, entries[(round*50+i)%len(entries)].Name()))
		}
	}
	return files, nil
}

// handEdit appends a sentence to 100 files, saving each as editors do.
func handEdit(c corpus, env []string, round int) error {
	files, err := changedFiles(c, round)
	if err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(c.dir, f)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		data = append(data, fmt.Sprintf("Edited by hand in round %d.\n", round)...)
		if err := os.WriteFile(p+".tmp", data, 0o644); err != nil {
			return err
		}
		if err := os.Rename(p+".tmp", p); err != nil {
			return err
		}
	}
	return nil
}

// pullChanges commits a change to 100 entries in a second clone and pulls
// it into the store.
func pullChanges(c corpus, env []string, round int) error {
	other := c.dir + "-clone"
	if _, err := os.Stat(other); err != nil {
		// No automatic gc in the clone: it would run in the background
		// while searches are timed.
		if err := runIn(filepath.Dir(c.dir), env, "git", "clone", "-q", "-c", "gc.auto=0", "-c", "maintenance.auto=false", c.dir, other); err != nil {
			return err
		}
	} else if err := runIn(other, env, "git", "pull", "-q", "--ff-only"); err != nil {
		return err
	}
	if err := runIn(c.dir, env, "git", "add", "-A"); err != nil {
		return err
	}
	runIn(c.dir, env, "git", "commit", "-q", "-m", "hand edits") // nothing to commit is fine
	if err := runIn(other, env, "git", "pull", "-q", "--ff-only", "origin", "main"); err != nil {
		return err
	}
	files, err := changedFiles(corpus{dir: other}, round+100)
	if err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(other, f)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, append(data, fmt.Sprintf("Changed upstream in round %d.\n", round)...), 0o644); err != nil {
			return err
		}
	}
	for _, s := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "upstream"}} {
		if err := runIn(other, env, "git", s...); err != nil {
			return err
		}
	}
	return runIn(c.dir, env, "git", "pull", "-q", "--ff-only", other, "main")
}

func timeRun(dir string, env []string, name string, args ...string) (time.Duration, error) {
	d, _, err := timeRSS(dir, env, name, args...)
	return d, err
}

// timeRSS runs a command and returns its wall time and peak memory.
func timeRSS(dir string, env []string, name string, args ...string) (time.Duration, int64, error) {
	d, rss, _, err := timeUsage(dir, env, name, args...)
	return d, rss, err
}

// timeCPU runs a command and returns its wall time and its CPU time
// (user and system, its children's not included).
func timeCPU(dir string, env []string, name string, args ...string) (time.Duration, time.Duration, error) {
	d, _, cpu, err := timeUsage(dir, env, name, args...)
	return d, cpu, err
}

// timeUsage runs a command and returns its wall time, peak memory and
// CPU time.
func timeUsage(dir string, env []string, name string, args ...string) (time.Duration, int64, time.Duration, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10 // kilobytes on Linux
	}
	return d, rss, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// scanBaseline is the search without an index: read every file under
// .agent/ and print the lines holding the word, case-insensitively.
func scanBaseline(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: scan-baseline DIR WORD")
	}
	word := bytes.ToLower([]byte(args[1]))
	matches := 0
	err := filepath.WalkDir(filepath.Join(args[0], ".agent"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(bytes.ToLower(data), word) {
			matches++
		}
		return nil
	})
	fmt.Println(matches, "files match")
	return err
}
