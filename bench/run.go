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

// runAgent is the agent of the run benchmark: it reads the prompt and
// says the task is done at once, in words of its own each time (as
// before lore ingest stopped taking the same output again for the same
// iteration: the benchmark measures what it always did).
const runAgent = "#!/bin/sh\ncat > /dev/null\necho \"<journal>Nothing to do (process $$).</journal>\"\necho '<task-done>T-1</task-done>'\n"

// runScript is what an orchestrator writes by hand for one iteration
// without lore run: prime, the agent on the prompt, ingest its output.
const runScript = `#!/bin/sh
set -e
lore=$1
"$lore" prime --task-id T-1 --title 'Keep the build green' > .git/prompt.md
start=$(date +%s)
./agent.sh < .git/prompt.md > .git/output.txt
"$lore" ingest .git/output.txt --task T-1 --duration $(( $(date +%s) - start )) > /dev/null
`

// benchRun times one whole `lore run` iteration with an agent that exits
// at once, against the shell script an orchestrator would write for the
// same iteration (lore prime, the agent, lore ingest), in twin stores of n
// entries; pairs alternate after a warm-up pair.
func benchRun(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	sizes := fs.String("sizes", "1000,10000", "entries in each store (comma-separated)")
	runs := fs.Int("runs", 9, "timed pairs per store")
	write := fs.String("write", "", "replace the run section of this Markdown file with the results")
	fs.Parse(args)
	work, err := os.MkdirTemp("", "lore-bench-run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	lore, err := buildLore(filepath.Join(work, "bin"))
	if err != nil {
		return err
	}
	var out strings.Builder
	fmt.Fprintf(&out, "Whole-process `lore run --task-id T-1 --title … -- ./agent.sh` (an agent that reads the prompt and prints `<task-done>` at once) in a store of n entries, against the shell script an orchestrator writes for the same iteration without it: `lore prime` to a file, the agent on it, `lore ingest` of its output. Both record one iteration as one commit; twin stores with their search index built, paired runs after a warm-up pair, medians (%s, %d cores, %s, git %s).\n\n",
		runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"), gitVersion())
	fmt.Fprintf(&out, "Command: `go run ./bench run -sizes %s -runs %d -write BENCHMARKS.md`\n\n", *sizes, *runs)
	out.WriteString("| entries | pairs | lore run median | prime + agent + ingest script median | lore run / script |\n")
	out.WriteString("| ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("bad size %q", s)
		}
		a, b := filepath.Join(work, fmt.Sprintf("run-%d", n)), filepath.Join(work, fmt.Sprintf("script-%d", n))
		if _, err := generateTwins(a, b, n, lore); err != nil {
			return err
		}
		for _, dir := range []string{a, b} {
			if err := os.WriteFile(filepath.Join(dir, "agent.sh"), []byte(runAgent), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, ".git", "iteration.sh"), []byte(runScript), 0o755); err != nil {
				return err
			}
			// The agent is the project's: tracked, so that it is not an
			// untracked file of every iteration. The search index is built
			// before the timing: a build in the background would slow
			// whichever side it overlapped.
			env := benchEnv(work)
			if err := runIn(dir, env, lore, "index", "rebuild"); err != nil {
				return err
			}
			if err := runIn(dir, env, "git", "add", "agent.sh"); err != nil {
				return err
			}
			if err := runIn(dir, env, "git", "commit", "-q", "-m", "agent"); err != nil {
				return err
			}
		}
		env := append(benchEnv(work), "PATH="+filepath.Dir(lore)+":"+os.Getenv("PATH"))
		var loreTimes, scriptTimes []time.Duration
		for i := 0; i <= *runs; i++ {
			l, err := timeRun(a, env, lore, "run", "--task-id", "T-1", "--title", "Keep the build green", "--", "./agent.sh")
			if err != nil {
				return err
			}
			g, err := timeRun(b, env, filepath.Join(b, ".git", "iteration.sh"), lore)
			if err != nil {
				return err
			}
			if i > 0 { // the first pair warms up
				loreTimes, scriptTimes = append(loreTimes, l), append(scriptTimes, g)
			}
		}
		for _, dir := range []string{a, b} {
			if err := checkIterations(dir, env, lore, *runs+1); err != nil {
				return err
			}
		}
		l, g := median(loreTimes), median(scriptTimes)
		row := fmt.Sprintf("| %d | %d | %s | %s | %.2f× |\n", n, *runs, ms(l), ms(g), float64(l)/float64(g))
		fmt.Fprint(os.Stderr, row)
		out.WriteString(row)
		os.RemoveAll(a)
		os.RemoveAll(b)
	}
	fmt.Print(out.String())
	if *write != "" {
		return replaceSection(*write, "run", out.String())
	}
	return nil
}

// checkIterations checks that the store at dir recorded want iterations
// of task T-1, each done, and that git has nothing to say.
func checkIterations(dir string, env []string, lore string, want int) error {
	list, err := runOut(dir, env, lore, "journal", "list", "--task", "T-1", "--format", "json")
	if err != nil {
		return err
	}
	if got := strings.Count(string(list), `"outcome": "done"`); got != want {
		return fmt.Errorf("%s: %d iterations of T-1 done, want %d", dir, got, want)
	}
	status, err := runOut(dir, env, "git", "status", "--porcelain")
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(status)) != "" {
		return fmt.Errorf("%s: git status after the runs:\n%s", dir, status)
	}
	return nil
}
