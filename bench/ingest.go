package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// benchIngest times `lore ingest` of one agent output holding n learning
// sigils and n/10 knowledge sigils, in a fresh repository each run, beside
// what git costs for the same result: copying the files lore wrote into
// another fresh repository and `git add -A .agent && git commit`. The
// time per sigil says whether ingest is linear in its input.
func benchIngest(args []string) error {
	fs := flag.NewFlagSet("ingest", flag.ExitOnError)
	sizes := fs.String("sizes", "100,1000,10000", "learning sigils in the output (comma-separated)")
	runs := fs.Int("runs", 3, "timed runs of each command")
	write := fs.String("write", "", "replace the ingest section of this Markdown file with the results")
	fs.Parse(args)

	work, err := os.MkdirTemp("", "lore-bench-ingest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	lore, err := buildLore(filepath.Join(work, "bin"))
	if err != nil {
		return err
	}
	env := benchEnv(work)
	var out strings.Builder
	fmt.Fprintf(&out, "Whole-process `lore ingest` of one output with n learning sigils and n/10 knowledge sigils into a fresh store, against copying the files it wrote into another fresh repository and `git add -A .agent && git commit` (the same result by hand); %d runs each, medians (%s, %d cores, %s, git %s).\n\n",
		*runs, runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"), gitVersion())
	fmt.Fprintf(&out, "Command: `go run ./bench ingest -sizes %s -runs %d -write BENCHMARKS.md`\n\n", *sizes, *runs)
	out.WriteString("| learning sigils | lore ingest | per sigil | copy + git add + commit | lore / git |\n")
	out.WriteString("| ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("bad size %q", s)
		}
		output := filepath.Join(work, fmt.Sprintf("output-%d.txt", n))
		if err := os.WriteFile(output, []byte(agentOutput(n)), 0o644); err != nil {
			return err
		}
		var loreTimes, gitTimes []time.Duration
		for i := 0; i < *runs; i++ {
			a, b := filepath.Join(work, fmt.Sprintf("a-%d-%d", n, i)), filepath.Join(work, fmt.Sprintf("b-%d-%d", n, i))
			for _, dir := range []string{a, b} {
				if err := freshStore(dir, env, lore); err != nil {
					return err
				}
			}
			start := time.Now()
			if err := runIn(a, env, lore, "ingest", "--task", "T-1", output); err != nil {
				return err
			}
			loreTimes = append(loreTimes, time.Since(start))
			start = time.Now()
			if err := runIn(b, env, "cp", "-r", filepath.Join(a, ".agent"), b); err != nil {
				return err
			}
			if err := runIn(b, env, "git", "add", "-A", ".agent"); err != nil {
				return err
			}
			if err := runIn(b, env, "git", "commit", "-q", "-m", "m"); err != nil {
				return err
			}
			gitTimes = append(gitTimes, time.Since(start))
			os.RemoveAll(a)
			os.RemoveAll(b)
		}
		l, g := median(loreTimes), median(gitTimes)
		row := fmt.Sprintf("| %d | %s | %.0f µs | %s | %.2f× |\n", n, ms(l), float64(l.Microseconds())/float64(n), ms(g), float64(l)/float64(g))
		fmt.Fprint(os.Stderr, row)
		out.WriteString(row)
	}
	fmt.Print(out.String())
	if *write != "" {
		return replaceSection(*write, "ingest", out.String())
	}
	return nil
}

// freshStore makes a repository with one commit and lore's store.
func freshStore(dir string, env []string, lore string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "initial"}} {
		if err := runIn(dir, env, "git", args...); err != nil {
			return err
		}
	}
	return runIn(dir, env, lore, "init")
}

// agentOutput is an agent's output that ends a task and records n
// learnings and n/10 knowledge entries, in words of a small vocabulary
// (so that many learnings share words, as a real loop's do) with a word
// of their own.
func agentOutput(n int) string {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	vocabulary := strings.Fields("lock index commit merge rebase stash branch tree blob object pack ref head fsync rename test build deploy cache retry timeout flaky parser config migration schema")
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocabulary[rng.IntN(len(vocabulary))]
		}
		return strings.Join(w, " ")
	}
	var b strings.Builder
	b.WriteString("Done with the task.\n<task-done>T-1</task-done>\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<learning category=\"pitfall\" tags=\"t%d,bench\">Learning %d: %s marker%d.</learning>\n", i%50, i, words(10), i)
		if i%10 == 0 {
			fmt.Fprintf(&b, "<knowledge title=\"Note %d on %s\" tags=\"t%d,bench\">%s.</knowledge>\n", i, words(2), i%50, words(20))
		}
	}
	return b.String()
}
