// Command bench measures lore against plain baselines in the same run:
// whole processes on real git repositories built for the purpose. It is not
// part of `go test ./...`.
//
//	go run ./bench add [-sizes 1000,100000] [-runs 7] [-write BENCHMARKS.md]
//	go run ./bench search [-sizes 1000,10000,100000] [-runs 7] [-first-rounds 5] [-write BENCHMARKS.md]
//	go run ./bench prime [-sizes 1000,10000] [-runs 7] [-write BENCHMARKS.md]
//	go run ./bench ingest [-sizes 100,1000,10000] [-runs 3] [-write BENCHMARKS.md]
//	go run ./bench recall [-corpus bench/recall|bench/recall-pipeline|bench/recall-questions|bench/recall-paraphrase] [-sizes corpus,10000] [-engines index,scan] [-filler realistic|madeup] [-write BENCHMARKS.md] [-details FILE] [-v]
//	go run ./bench ingest-store [-sizes 1000,100000] [-runs 9 | -runs 41,3] [-write BENCHMARKS.md]
//	go run ./bench scale [-sizes 1000,10000,100000] [-runs 5] [-memories 0,1000,10000] [-write BENCHMARKS.md]
//	go run ./bench lifecycle [-runs 3] [-learnings 10000] [-entries 100000] [-write BENCHMARKS.md]
//	go run ./bench run [-sizes 1000,10000] [-runs 9] [-write BENCHMARKS.md]
//
// "add" times `lore add` against `git add f && git commit -m m` (the two
// git processes, one after the other) on the same repository, alternating
// the two so that both see the same machine state, and reports medians and
// the ratio lore/git.
//
// "search" generates stores of lore entries across kinds (corpus.go) and
// times `lore index rebuild` (and its peak memory), `lore search` plain,
// fuzzy and filtered against a program that reads and scans every file,
// `grep -ril` and `rg -il` (when installed) in the same rounds, the first
// search after 100 entries changed by hand or by a pull, and the first
// search in a fresh clone against LORE_INDEX=off's scan, in rounds.
//
// "prime" times `lore prime` for a task on the same kind of stores.
//
// "ingest" times `lore ingest` of outputs with many sigils against copying
// the files it wrote and committing them with git (ingest.go).
//
// "recall" measures whether search and prime find the right entry: a
// labelled store and labelled queries of several kinds (bench/recall, a
// Go web service's; bench/recall-pipeline, a data pipeline team's;
// bench/recall-questions, a mobile team's, asked in natural questions;
// bench/recall-paraphrase, a clinic booking SaaS team's, asked mostly in
// paraphrases that share no key word with the answer),
// recall@1/5/10 and MRR of lore search with its index and scanning the
// files, the share of queries whose
// relevant entry lore prime shows, and a grep baseline, in the labelled
// store alone and inside 10,000 generated entries (recall.go), by
// default realistic ones that share its words (distractors.go).
// "ingest-store" times `lore ingest` of one realistic agent output in a
// store of n entries against writing the same files into an identical
// repository and committing them with git (ingeststore.go).
//
// "scale" measures every row of issue 18's table in one run, at each size
// from one generated store (its baselines in a copy or clone of it):
// ingest, learning add and knowledge add against the same files committed
// with git; lore add with 0, 1k and 10k memories in memories.md; prime
// and the first search in a fresh clone against the scan, how long the
// index then takes to be built and its peak memory; index rebuild, its
// peak memory and the index's size on disk; the search after a pull
// against an unchanged one; warm search; lore add among n tracked files.
// It prints one table with each row's target and whether it is met
// (scale.go).
//
// "lifecycle" times the commands that act on a whole store, each run in a
// fresh copy or a fresh empty repository: lore learning summarize on
// 10,000 learnings whose tags form clusters, and lore prune on 10,000
// learnings half of them older than 90 days, against C git committing the
// files lore's commit changed; lore export of a 100,000-entry store against
// reading every file of it; lore import of that export into an empty
// repository against copying the store's .agent in and committing it with
// git (lifecycle.go).
//
// "run" times one whole `lore run` iteration with an agent that exits at
// once against the shell script an orchestrator writes for it without
// lore run (lore prime, the agent, lore ingest), in twin stores (run.go).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench add|search|prime|stale|ingest|ingest-store|recall|scale|lifecycle|run [-sizes …] [-runs N] [-write BENCHMARKS.md]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "add":
		err = benchAdd(os.Args[2:])
	case "search":
		err = benchSearch(os.Args[2:])
	case "prime":
		err = benchPrime(os.Args[2:])
	case "stale":
		err = benchStale(os.Args[2:])
	case "ingest":
		err = benchIngest(os.Args[2:])
	case "recall":
		err = benchRecall(os.Args[2:])
	case "ingest-store":
		err = benchIngestStore(os.Args[2:])
	case "scale":
		err = benchScale(os.Args[2:])
	case "lifecycle":
		err = benchLifecycle(os.Args[2:])
	case "run":
		err = benchRun(os.Args[2:])
	case "corpus":
		err = benchCorpus(os.Args[2:])
	case "scan-baseline":
		err = scanBaseline(os.Args[2:])
	case "ingest-output":
		err = printIngestOutput(os.Args[2:])
	default:
		err = fmt.Errorf("unknown benchmark %q (have: add, search, prime, ingest, ingest-store, recall, scale, lifecycle, run)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func benchAdd(args []string) error {
	fs := flag.NewFlagSet("add", flag.ExitOnError)
	sizes := fs.String("sizes", "1000,100000", "tracked files in each repository (comma-separated)")
	runs := fs.Int("runs", 7, "timed runs of each command per repository")
	write := fs.String("write", "", "replace the add section of this Markdown file with the results")
	keep := fs.Bool("keep", false, "keep the generated repositories")
	fs.Parse(args)

	work, err := os.MkdirTemp("", "lore-bench-")
	if err != nil {
		return err
	}
	if !*keep {
		defer os.RemoveAll(work)
	}
	lore, err := buildLore(work)
	if err != nil {
		return err
	}
	var rows []addRow
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("bad size %q", s)
		}
		repo := filepath.Join(work, fmt.Sprintf("repo-%d", n))
		start := time.Now()
		if err := makeRepository(repo, n, lore); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "built a repository of %d tracked files in %s\n", n, time.Since(start).Round(time.Second))
		row, err := measureAdd(repo, lore, n, *runs)
		if err != nil {
			return err
		}
		rows = append(rows, row)
		fmt.Fprintln(os.Stderr, row.markdown())
	}
	table := addTable(rows, *runs, *sizes)
	fmt.Print(table)
	if *write != "" {
		return replaceSection(*write, "add", table)
	}
	return nil
}

// buildLore builds lore and lore-index into dir, side by side as go
// install puts them (lore finds lore-index next to itself), and returns
// lore's path.
func buildLore(dir string) (string, error) {
	for _, name := range []string{"lore", "lore-index"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), "./cmd/"+name)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("go build ./cmd/%s: %w", name, err)
		}
	}
	return filepath.Join(dir, "lore"), nil
}

// benchEnv keeps the user's git configuration out of the measurements.
func benchEnv(home string) []string {
	return append(os.Environ(),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com")
}

func runIn(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// makeRepository creates a repository with n tracked files spread over a
// source tree (directories of up to 100 files, two levels deep), commits
// them, packs the objects as a cloned repository would have them, and
// initialises lore's store.
func makeRepository(dir string, n int, lore string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	env := benchEnv(filepath.Dir(dir))
	if err := runIn(dir, env, "git", "init", "-q", "-b", "main"); err != nil {
		return err
	}
	for _, kv := range [][2]string{{"gc.auto", "0"}, {"maintenance.auto", "false"}} {
		if err := runIn(dir, env, "git", "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	for i := 0; i < n; i++ {
		path := filepath.Join(dir, "src", fmt.Sprintf("pkg%03d", i/10000), fmt.Sprintf("mod%03d", i/100%100), fmt.Sprintf("file%05d.go", i))
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
		}
		body := fmt.Sprintf("package mod%03d\n\n// File %d of the benchmark corpus.\nfunc F%d() int { return %d }\n%s", i/100%100, i, i, i, strings.Repeat("// padding line\n", i%20))
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			return err
		}
	}
	os.WriteFile(filepath.Join(dir, "f"), []byte("baseline file\n"), 0o644)
	steps := [][]string{
		{"git", "add", "-A"},
		{"git", "commit", "-q", "-m", "corpus"},
		{"git", "repack", "-adq"},
		{"git", "prune-packed"},
		{lore, "init"},
		{"git", "status", "--porcelain"}, // refresh the index once, as a working copy would be
	}
	for _, s := range steps {
		if err := runIn(dir, env, s[0], s[1:]...); err != nil {
			return err
		}
	}
	return nil
}

type addRow struct {
	files          int
	lore, git      []time.Duration
	loreMed, gitMd time.Duration
}

func (r addRow) ratio() float64 { return float64(r.loreMed) / float64(r.gitMd) }

func (r addRow) markdown() string {
	return fmt.Sprintf("| %d | %s | %s | %s | %s | %.2f× |", r.files,
		ms(r.loreMed), ms(minimum(r.lore)), ms(r.gitMd), ms(minimum(r.git)), r.ratio())
}

// measureAdd alternates lore add and the git pair, after one untimed
// warm-up of each.
func measureAdd(dir, lore string, files, runs int) (addRow, error) {
	env := benchEnv(filepath.Dir(dir))
	row := addRow{files: files}
	for i := -1; i < runs; i++ {
		start := time.Now()
		if err := runIn(dir, env, lore, "add", fmt.Sprintf("benchmark memory %d: the build uses make", i), "-t", "fix", "--tags", "bench", "--format", "quiet"); err != nil {
			return row, err
		}
		loreTime := time.Since(start)

		f, err := os.OpenFile(filepath.Join(dir, "f"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return row, err
		}
		fmt.Fprintf(f, "change %d\n", i)
		f.Close()
		start = time.Now()
		if err := runIn(dir, env, "git", "add", "f"); err != nil {
			return row, err
		}
		if err := runIn(dir, env, "git", "commit", "-q", "-m", "m"); err != nil {
			return row, err
		}
		gitTime := time.Since(start)
		if i >= 0 {
			row.lore = append(row.lore, loreTime)
			row.git = append(row.git, gitTime)
		}
	}
	row.loreMed, row.gitMd = median(row.lore), median(row.git)
	return row, nil
}

func addTable(rows []addRow, runs int, sizes string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Whole-process `lore add` against `git add f && git commit -m m` on the same repository, alternating, %d runs each after a warm-up (%s, %d cores, %s, git %s).\n\n",
		runs, runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"), gitVersion())
	fmt.Fprintf(&b, "Command: `go run ./bench add -sizes %s -runs %d -write BENCHMARKS.md`\n\n", sizes, runs)
	b.WriteString("| tracked files | lore add median | lore add min | git add+commit median | git min | lore / git |\n")
	b.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows {
		b.WriteString(r.markdown() + "\n")
	}
	return b.String()
}

func gitVersion() string {
	out, err := exec.Command("git", "version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "git version ")
}

// replaceSection puts content between <!-- bench:name --> and
// <!-- /bench:name --> in path, appending the section if it is missing.
func replaceSection(path, name, content string) error {
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	open, close := "<!-- bench:"+name+" -->\n", "<!-- /bench:"+name+" -->\n"
	text := string(data)
	section := open + content + close
	i, j := strings.Index(text, open), strings.Index(text, close)
	if i >= 0 && j > i {
		text = text[:i] + section + text[j+len(close):]
	} else {
		text += "\n" + section
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func minimum(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds {
		if d < m {
			m = d
		}
	}
	return m
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
