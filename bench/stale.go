package main

import (
	"crypto/sha1"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// benchStale times what staleness costs (issue 38): lore prime on a store
// where half the entries cite files of the repository (two each, a tenth
// of the cited files changed since), against the same prime with the
// citations file moved aside, alternating; and lore stale, against C git
// listing HEAD's tree (git ls-tree -r HEAD), which any staleness check
// must at least read.
func benchStale(args []string) error {
	fs := flag.NewFlagSet("stale", flag.ExitOnError)
	sizes := fs.String("sizes", "1000,10000,100000", "entries in each store (comma-separated)")
	runs := fs.Int("runs", 5, "timed runs of each command")
	files := fs.Int("files", 2000, "source files in the repository")
	write := fs.String("write", "", "replace the stale section of this Markdown file with the results")
	keep := fs.Bool("keep", false, "keep the stores (their directory is printed)")
	fs.Parse(args)

	work, err := os.MkdirTemp("", "lore-bench-stale-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "stores in", work)
	} else {
		defer os.RemoveAll(work)
	}
	lore, err := buildLore(filepath.Join(work, "bin"))
	if err != nil {
		return err
	}
	var out strings.Builder
	fmt.Fprintf(&out, "Staleness (issue 38) on the stores of the prime bench, with %d source files committed beside them; half the entries (memories, knowledge, learnings) cite two of those files each in .agent/citations.md, and a tenth of the cited files changed since, in a later commit. Prime for a task most entries match (each store's search index built first: `lore index rebuild`), with the citations and in a twin of the store whose citations a last commit removed, alternating; `lore stale` against `git ls-tree -r HEAD` (C git reading the tree any check must read); %d runs after a warm-up, medians (%s, %d cores, %s).\n\n",
		*files, *runs, runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&out, "Command: `go run ./bench stale -sizes %s -runs %d -write BENCHMARKS.md`\n\n", *sizes, *runs)
	out.WriteString("| entries | citations | stale entries | prime with | prime without | with / without | lore stale | git ls-tree -r | stale / git |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	var loads loadRange
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("bad size %q", s)
		}
		c, err := generateCorpusAbout(filepath.Join(work, fmt.Sprintf("store-%d", n)), n, int64(n), primeTopic, primeTopicShare)
		if err != nil {
			return err
		}
		env := benchEnv(filepath.Dir(c.dir))
		cited, err := citeHalf(c.dir, env, *files, int64(n))
		if err != nil {
			return err
		}
		// The twin: the same repository, its citations removed in one more
		// commit, each store keeping its own warm caches.
		twin := c.dir + "-twin"
		if err := runIn(filepath.Dir(c.dir), env, "cp", "-a", c.dir, twin); err != nil {
			return err
		}
		if err := runIn(twin, env, "git", "rm", "-q", ".agent/citations.md"); err != nil {
			return err
		}
		if err := runIn(twin, env, "git", "commit", "-q", "-m", "no citations"); err != nil {
			return err
		}
		// Each store's search index built before anything is timed: the
		// first prime in a clone builds it in the background, and primes
		// scan every file until it is done (0.5 s at 10k entries), which
		// is what made an earlier run's 10k row 569 ms with citations.
		for _, dir := range []string{c.dir, twin} {
			if err := runIn(dir, env, lore, "index", "rebuild"); err != nil {
				return err
			}
		}
		loads.look()
		args := primeVariants[2].args(c)
		fmt.Fprintf(os.Stderr, "%d entries: lore %s\n", n, strings.Join(args, " "))
		var with, without, stale, tree []time.Duration
		for i := -1; i < *runs; i++ {
			tWith, err := timeRun(c.dir, env, lore, args...)
			if err != nil {
				return err
			}
			tWithout, err := timeRun(twin, env, lore, args...)
			if err != nil {
				return err
			}
			tStale, err := timeRun(c.dir, env, lore, "stale", "--format", "json")
			if err != nil {
				return err
			}
			tTree, err := timeRun(c.dir, env, "git", "ls-tree", "-r", "HEAD")
			if err != nil {
				return err
			}
			if i >= 0 {
				with, without, stale, tree = append(with, tWith), append(without, tWithout), append(stale, tStale), append(tree, tTree)
			}
		}
		loads.look()
		row := fmt.Sprintf("| %d | %d | %d | %s | %s | %.2f× | %s | %s | %.1f× |\n", n, cited.lines, cited.stale,
			ms(median(with)), ms(median(without)), float64(median(with))/float64(median(without)),
			ms(median(stale)), ms(median(tree)), float64(median(stale))/float64(median(tree)))
		fmt.Fprint(os.Stderr, row)
		out.WriteString(row)
	}
	out.WriteString("\nTargets (issue 38): prime with staleness at 10k entries, half of them citing files, ≤ 1.1× prime without it; lore stale at 100k well under a second.\n")
	if loads.seen {
		fmt.Fprintf(&out, "Load average (1 minute) before and after each size's runs: %.2f to %.2f, on %d cores.\n", loads.min, loads.max, runtime.NumCPU())
	}
	fmt.Print(out.String())
	if *write != "" {
		return replaceSection(*write, "stale", out.String())
	}
	return nil
}

// citedStore is what citeHalf wrote: citation lines, and the entries a
// changed file makes stale.
type citedStore struct{ lines, stale int }

var memoryID = regexp.MustCompile(`(?m)^### (mem-\S+)`)

// citeHalf commits files source files into the store's repository, has
// half its memories, knowledge entries and learnings cite two of them,
// commits that, then changes a tenth of the cited files in a last commit.
func citeHalf(dir string, env []string, files int, seed int64) (citedStore, error) {
	rng := rand.New(rand.NewSource(seed))
	var out citedStore
	blobs := make([]string, files)
	path := func(i int) string { return fmt.Sprintf("src/pkg%02d/file%04d.go", i%50, i) }
	content := func(i, version int) string {
		return fmt.Sprintf("package pkg%02d\n\n// File %d, version %d.\nfunc F%d() int { return %d }\n", i%50, i, version, i, version)
	}
	for i := range files {
		p := filepath.Join(dir, filepath.FromSlash(path(i)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return out, err
		}
		data := content(i, 1)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return out, err
		}
		blobs[i] = gitBlob([]byte(data))
	}
	if err := runIn(dir, env, "git", "add", "src"); err != nil {
		return out, err
	}
	if err := runIn(dir, env, "git", "commit", "-q", "-m", "the code"); err != nil {
		return out, err
	}
	cmd := exec.Command("git", "rev-parse", "HEAD")
	cmd.Dir, cmd.Env = dir, env
	rev, err := cmd.Output()
	if err != nil {
		return out, err
	}
	head := strings.TrimSpace(string(rev))
	var keys []string
	memories, _ := os.ReadFile(filepath.Join(dir, ".agent", "memories.md"))
	for _, m := range memoryID.FindAllStringSubmatch(string(memories), -1) {
		keys = append(keys, m[1])
	}
	for _, kind := range []string{"knowledge", "learnings"} {
		names, _ := filepath.Glob(filepath.Join(dir, ".agent", kind, "*.md"))
		for _, name := range names {
			keys = append(keys, kind+"/"+filepath.Base(name))
		}
	}
	changed := map[int]bool{}
	for i := range files / 10 {
		changed[rng.Intn(files)] = true
		_ = i
	}
	var b strings.Builder
	b.WriteString("# Citations\n\n| entry | file | blob | commit |\n| --- | --- | --- | --- |\n")
	for i, key := range keys {
		if i%2 == 1 {
			continue
		}
		a, c := rng.Intn(files), rng.Intn(files)
		for _, f := range []int{a, c} {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", key, path(f), blobs[f], head)
			out.lines++
		}
		if changed[a] || changed[c] {
			out.stale++
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".agent", "citations.md"), []byte(b.String()), 0o644); err != nil {
		return out, err
	}
	if err := runIn(dir, env, "git", "add", ".agent/citations.md"); err != nil {
		return out, err
	}
	if err := runIn(dir, env, "git", "commit", "-q", "-m", "citations"); err != nil {
		return out, err
	}
	for i := range changed {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(path(i))), []byte(content(i, 2)), 0o644); err != nil {
			return out, err
		}
	}
	if err := runIn(dir, env, "git", "commit", "-q", "-am", "change a tenth of the cited files"); err != nil {
		return out, err
	}
	return out, nil
}

// gitBlob is git's blob id of data.
func gitBlob(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return fmt.Sprintf("%x", h.Sum(nil))
}
