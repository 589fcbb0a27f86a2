package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// benchPrime times `lore prime` for a task on generated stores, beside
// the program that reads and scans every file under .agent/ (what prime
// would cost if it read everything).
func benchPrime(args []string) error {
	fs := flag.NewFlagSet("prime", flag.ExitOnError)
	sizes := fs.String("sizes", "1000,10000", "entries in each store (comma-separated)")
	runs := fs.Int("runs", 7, "timed runs of each command")
	write := fs.String("write", "", "replace the prime section of this Markdown file with the results")
	fs.Parse(args)

	work, err := os.MkdirTemp("", "lore-bench-prime-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	lore, err := buildLore(filepath.Join(work, "bin"))
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var out strings.Builder
	fmt.Fprintf(&out, "Whole-process `lore prime` for a task with a history (previous attempts, a run journal, tags to match) on generated stores (memories 10%%, knowledge 15%%, learnings 25%%, journal 50%%), %d runs each after a warm-up, alternating with the baseline that reads every file under .agent/ and scans it (%s, %d cores, %s).\n\n",
		*runs, runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&out, "Command: `go run ./bench prime -sizes %s -runs %d -write BENCHMARKS.md`\n\n", *sizes, *runs)
	out.WriteString("| entries | lore prime | min | first prime in the clone | read and scan every file | prime / scan |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("bad size %q", s)
		}
		c, err := generateCorpus(filepath.Join(work, fmt.Sprintf("store-%d", n)), n, int64(n))
		if err != nil {
			return err
		}
		env := benchEnv(filepath.Dir(c.dir))
		primes, scans, first, err := measurePrime(c, env, lore, self, *runs)
		if err != nil {
			return err
		}
		row := fmt.Sprintf("| %d | %s | %s | %s | %s | %.2f× |\n", n, ms(median(primes)), ms(minimum(primes)), ms(first), ms(median(scans)),
			float64(median(primes))/float64(median(scans)))
		fmt.Fprint(os.Stderr, row)
		out.WriteString(row)
	}
	out.WriteString("\nTarget (DESIGN.md): prime with a task at 10k entries ≤ 100 ms, whole process.\n")
	fmt.Print(out.String())
	if *write != "" {
		return replaceSection(*write, "prime", out.String())
	}
	return nil
}

// primeArgs is lore prime for a task in the store c: task-7's attempts
// are in the journal; the title and description hold a common tag's words
// and a mid-frequency word.
func primeArgs(c corpus) []string {
	return []string{"prime", "--task-id", "task-7", "--title", "Fix " + strings.ReplaceAll(c.tag, "-", " "),
		"--description", "The " + c.word + " step fails again", "--run", "run-00000000", "--iteration", "40", "--limit", "100"}
}

// measurePrime alternates the scan baseline (self scan-baseline) and lore
// prime in c, runs times after a warm-up pair, and returns the timed runs
// and the warm-up's prime (the first in the clone if nothing ran before).
func measurePrime(c corpus, env []string, lore, self string, runs int) (primes, scans []time.Duration, first time.Duration, err error) {
	prime := primeArgs(c)
	for i := -1; i < runs; i++ {
		tScan, err := timeRun(c.dir, env, self, "scan-baseline", c.dir, c.word)
		if err != nil {
			return nil, nil, 0, err
		}
		tPrime, err := timeRun(c.dir, env, lore, prime...)
		if err != nil {
			return nil, nil, 0, err
		}
		if i >= 0 {
			scans, primes = append(scans, tScan), append(primes, tPrime)
		} else {
			first = tPrime
		}
	}
	return primes, scans, first, nil
}
