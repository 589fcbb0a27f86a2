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

// primeTopic is what most entries of the prime benchmark's stores are
// about (generateCorpusAbout), and primeTopicShare their share.
const (
	primeTopic      = "checkout"
	primeTopicShare = 0.9
)

// primeVariant is one way of calling lore prime that the benchmark times:
// what it is called in the table and its arguments in a store.
type primeVariant struct {
	name string
	args func(c corpus) []string
}

// primeVariants are the primes the benchmark times in each store: for a
// task with a history (few entries match it), without a task (every
// entry is a candidate, newest first), and for a task that most entries
// match (its feature is the store's topic, and its title names it).
var primeVariants = []primeVariant{
	{"for a task with a history", primeArgs},
	{"without a task", func(corpus) []string { return []string{"prime"} }},
	{"for a task most entries match", func(c corpus) []string {
		return []string{"prime", "--task-id", "task-7", "--title", "Fix the " + c.topic + " " + strings.ReplaceAll(c.tag, "-", " "),
			"--description", "The " + c.word + " step fails again", "--feature", c.topic, "--run", "run-00000000", "--iteration", "40", "--limit", "100"}
	}},
}

// benchPrime times `lore prime` on generated stores, each way of
// primeVariants, beside the program that reads and scans every file
// under .agent/ (what prime would cost if it read everything).
func benchPrime(args []string) error {
	fs := flag.NewFlagSet("prime", flag.ExitOnError)
	sizes := fs.String("sizes", "1000,10000,100000", "entries in each store (comma-separated)")
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
	fmt.Fprintf(&out, "Whole-process `lore prime` on generated stores (memories 10%%, knowledge 15%%, learnings 25%%, journal 50%%; %.0f%% of the entries of every kind about one topic: a tag of the knowledge, learnings and memories, the feature of the journal entries), %d runs of each after a warm-up, alternating with the baseline that reads every file under .agent/ and scans it (%s, %d cores, %s). Three primes: for a task with a history (previous attempts, a run journal, a common tag's words and a mid-frequency word in its text: few entries match it); without a task (every entry a candidate, newest first); and for the same task with the topic as its feature and in its title, which %.0f%% of the entries match. CPU is the user and system time of lore and of the lore-index it waits for (the search index's answer, for a task), median.\n\n",
		100*primeTopicShare, *runs, runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"), 100*primeTopicShare)
	fmt.Fprintf(&out, "Command: `go run ./bench prime -sizes %s -runs %d -write BENCHMARKS.md`\n\n", *sizes, *runs)
	out.WriteString("| entries | lore prime | median | min | CPU | first prime in the clone | read and scan every file | prime / scan |\n| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	var verdicts []string
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
		loads.look()
		timed, first, err := measurePrimes(c, env, lore, self, *runs, primeVariants)
		if err != nil {
			return err
		}
		loads.look()
		for v, t := range timed {
			firstCell := "—"
			if v == 0 {
				firstCell = ms(first)
			}
			row := fmt.Sprintf("| %d | %s | %s | %s | %s | %s | %s | %.2f× |\n", n, primeVariants[v].name, ms(median(t.primes)), ms(minimum(t.primes)), ms(median(t.cpu)),
				firstCell, ms(median(t.scans)), float64(median(t.primes))/float64(median(t.scans)))
			fmt.Fprint(os.Stderr, row)
			out.WriteString(row)
			if n == 100000 && v > 0 {
				verdicts = append(verdicts, primeVerdict(primeVariants[v].name, median(t.primes)))
			}
		}
	}
	out.WriteString("\nTargets: prime with a task at 10k entries ≤ 100 ms, whole process (DESIGN.md); prime ≤ 100 ms at 100k entries without a task and with a task most entries match, its cost growing at most linearly with the store (issue 35).\n")
	if len(verdicts) > 0 {
		out.WriteString("At 100k: " + strings.Join(verdicts, "; ") + ".\n")
	}
	if loads.seen {
		fmt.Fprintf(&out, "Load average (1 minute) before and after each size's runs: %.2f to %.2f, on %d cores.\n", loads.min, loads.max, runtime.NumCPU())
	}
	fmt.Print(out.String())
	if *write != "" {
		return replaceSection(*write, "prime", out.String())
	}
	return nil
}

// loadRange is the lowest and highest load average looked at.
type loadRange struct {
	min, max float64
	seen     bool
}

// look reads the 1-minute load average (Linux; nothing elsewhere).
func (l *loadRange) look() {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return
	}
	if !l.seen || v < l.min {
		l.min = v
	}
	if !l.seen || v > l.max {
		l.max = v
	}
	l.seen = true
}

// primeVerdict says whether a prime's median meets issue 35's 100 ms.
func primeVerdict(name string, d time.Duration) string {
	const target = 100 * time.Millisecond
	if d <= target {
		return name + " " + ms(d) + ", met"
	}
	return fmt.Sprintf("%s %s, MISSED by %s", name, ms(d), ms(d-target))
}

// primeArgs is lore prime for a task in the store c: task-7's attempts
// are in the journal; the title and description hold a common tag's words
// and a mid-frequency word.
func primeArgs(c corpus) []string {
	return []string{"prime", "--task-id", "task-7", "--title", "Fix " + strings.ReplaceAll(c.tag, "-", " "),
		"--description", "The " + c.word + " step fails again", "--run", "run-00000000", "--iteration", "40", "--limit", "100"}
}

// primeTimes are the timed runs of one prime and of the baseline run
// just before each: wall times, and the prime's CPU time.
type primeTimes struct {
	primes, cpu, scans []time.Duration
}

// measurePrime is measurePrimes of the prime for a task with a history
// alone.
func measurePrime(c corpus, env []string, lore, self string, runs int) (primes, scans []time.Duration, first time.Duration, err error) {
	timed, first, err := measurePrimes(c, env, lore, self, runs, primeVariants[:1])
	if err != nil {
		return nil, nil, 0, err
	}
	return timed[0].primes, timed[0].scans, first, nil
}

// measurePrimes alternates the scan baseline (self scan-baseline) and each
// of the primes of variants in c, runs times after a warm-up round, and
// returns each variant's timed runs and the warm-up's first prime (the
// first in the clone if nothing ran before).
func measurePrimes(c corpus, env []string, lore, self string, runs int, variants []primeVariant) (timed []primeTimes, first time.Duration, err error) {
	timed = make([]primeTimes, len(variants))
	for i := -1; i < runs; i++ {
		for v, variant := range variants {
			tScan, err := timeRun(c.dir, env, self, "scan-baseline", c.dir, c.word)
			if err != nil {
				return nil, 0, err
			}
			tPrime, cpu, err := timeCPU(c.dir, env, lore, variant.args(c)...)
			if err != nil {
				return nil, 0, err
			}
			switch {
			case i >= 0:
				t := &timed[v]
				t.scans, t.primes, t.cpu = append(t.scans, tScan), append(t.primes, tPrime), append(t.cpu, cpu)
			case v == 0:
				first = tPrime
			}
		}
	}
	return timed, first, nil
}
