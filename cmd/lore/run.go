package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/prompt"
	"lore/strategy"
)

// runCommandName is lore run's name: normalizeArgs leaves what follows
// its "--" alone, for it is the agent's command.
const runCommandName = "run"

// lore run's exit statuses beyond 0 (done), 1 (failed) and 2 (usage).
const (
	exitBlocked     = 3   // the agent did not say how the task went
	exitStuck       = 4   // the task failed strategy.StuckThreshold times in a row, or more
	exitInterrupted = 130 // 128 + SIGINT, as a shell says it
)

// humanEscalation is the consecutive failure at which seed 002 stops
// acting on its own and asks a person (its fourth stage, one past the
// stuck warning): lore run --repeat stops there.
const humanEscalation = strategy.StuckThreshold + 1

// agentWaitDelay is how long lore waits, once the agent has exited, for
// what the agent's children still hold of its stdout and stderr (a
// server it started in the background): then the pipes are closed.
const agentWaitDelay = 2 * time.Second

type runOptions struct {
	prime     primeOptions // the task, as lore prime takes it
	command   []string     // the agent's command, placeholders unreplaced
	repeat    int
	runEnd    bool   // the run ends with lore run's last iteration (endRun)
	objective string // the run's objective, for its extraction
}

func runAgentCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      runCommandName,
		Usage:     "run one iteration of an agent: prime, the agent's command, ingest its output in one commit",
		UsageText: "lore run [task flags] [prime flags] [--repeat N] [--run-end [--objective TEXT]] -- <agent command…>",
		Description: "The task (an Assigned Task block) and the context lore prime prints go to the agent's stdin,\n" +
			"unless an argument says where: {prompt} is replaced by them, {prompt_file} by the path of a\n" +
			"temporary file holding them (mode 0600, removed afterwards), {model} by the model lore model\n" +
			"chooses for the task (or --model). The agent runs without a shell, in lore's directory. The\n" +
			"agent's stdout and stderr are shown as they come; both are ingested (stdout, then stderr) with\n" +
			"the files the iteration changed (.agent/ left out), its duration and how the agent exited: a\n" +
			"non-zero exit without <task-done> or <task-failed> is a failed iteration. Ctrl-C stops the\n" +
			"agent, and the iteration is recorded as interrupted. When the iteration cannot be recorded,\n" +
			"the agent's output is kept under the git directory and lore names the lore ingest command\n" +
			"that records it.\n\n" +
			"Exit status: 0 done, 1 failed, 3 blocked (no task sigil), 4 stuck (3 consecutive failures),\n" +
			"130 interrupted, 2 usage. --repeat N runs up to N iterations of the task, and stops at the first\n" +
			"done or at its 4th consecutive failure, where seed 002 hands a task to a person.\n\n" +
			"  lore run --title 'Add the login form' -- claude -p {prompt}\n" +
			"  lore run --task-id T-1 --repeat 5 -- my-agent --model {model}",
		Flags: primeFlags(
			&cli.IntFlag{Name: "repeat", Value: 1, Usage: "run up to N iterations, until the task is done or at its 4th consecutive failure"},
			&cli.BoolFlag{Name: "run-end", Usage: "the run ends with the last iteration: then lore prune (and lore extract and promote with learnings.auto_promote), as lore ingest --run-end does"},
			&cli.StringFlag{Name: "objective", Usage: "with --run-end: the run's objective, which names its task type for lore extract (default: the task's title and description)"},
		),
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			switch {
			case len(args) == 0:
				return usagef("run needs the agent's command after --: lore run [flags] -- claude -p {prompt}")
			case args[0] != "--":
				return usagef("the agent's command goes after --: lore run [flags] -- %s …", args[0])
			case len(args) == 1:
				return usagef("no agent command after --: lore run [flags] -- claude -p {prompt}")
			}
			opts := runOptions{command: args[1:], repeat: c.Int("repeat"), runEnd: c.Bool("run-end"), objective: c.String("objective")}
			if opts.repeat < 1 {
				return usagef("--repeat must be 1 or more")
			}
			if opts.objective != "" && !opts.runEnd {
				return usagef("--objective names the run's objective at its end: give --run-end with it")
			}
			var err error
			if opts.prime, err = primeOptionsFrom(c); err != nil {
				return err
			}
			opts.prime.format = "markdown"
			if run := opts.prime.loop.Run; run != "" && !entry.ValidRunID(run) {
				return usagef("--run %q may only hold lowercase letters, digits, '.', '_' and '-'", run)
			}
			return runWith(e, globalsFrom(c), opts, runAgent)
		},
	}
}

// runAgent runs the agent for up to opts.repeat iterations of one task
// and says, last, how it ended; the exit status says it too.
func runAgent(e *env, g globals, opts runOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	// Every iteration goes to one run, started now if there is none, so
	// that prime and ingest agree on it and on the iteration's number.
	if opts.prime.loop.Run == "" {
		if opts.prime.loop.Run, err = s.CurrentRun(); err != nil {
			return err
		}
	}
	if opts.prime.loop.Run == "" {
		if opts.prime.loop.Run, err = s.StartRun(""); err != nil {
			return err
		}
		p.notice("started run " + opts.prime.loop.Run + " (lore journal start names one)")
	}
	opts.prime.task.Run = opts.prime.loop.Run

	sigs := catchInterrupts()
	defer sigs.stop()
	failures := 0 // consecutive, of this lore run: a task-less iteration's count
	for n := 1; ; n++ {
		it, err := runIteration(e, g, s, opts.prime, opts.command, sigs)
		if err != nil {
			return err
		}
		switch {
		case it.outcome == "done":
			failures = 0
		case strategy.FailedOutcome(it.outcome):
			failures++
		}
		if it.task == "" {
			it.failures = failures
		}
		code, line := it.exitCode(), it.summary()
		switch {
		case sigs.caught() != nil:
			if !it.interrupted { // during the recording: the agent had ended
				line += "; interrupted, stopping"
			}
			code = exitInterrupted
		case code == exitOK && opts.repeat > 1:
			line += fmt.Sprintf(", at iteration %d of %d", n, opts.repeat)
		case code == exitOK:
		case it.failures >= humanEscalation && opts.repeat > 1:
			line += fmt.Sprintf("; stopping after iteration %d: seed 002 hands a task that failed %d times in a row to a person "+
				"(decompose it, fix the code by hand, or end the run)", n, it.failures)
		case n < opts.repeat:
			p.notice(fmt.Sprintf("%s; running iteration %d of %d", line, n+1, opts.repeat))
			// The next iteration: the run's next number, on the task this
			// one recorded.
			opts.prime.loop.Iteration = 0
			if opts.prime.loop.TaskID == "" && it.task != "" {
				opts.prime.loop.TaskID, opts.prime.task.ID = it.task, it.task
			}
			continue
		case opts.repeat > 1:
			line += fmt.Sprintf("; not done after %d iterations", n)
		}
		p.notice(fmt.Sprintf("%s (exit %d)", line, code))
		if opts.runEnd && sigs.caught() == nil {
			// The run's end, as lore ingest --run-end does it; its
			// objective is the task's when none is given.
			objective := opts.objective
			if objective == "" {
				objective = strings.TrimSpace(opts.prime.task.Title + " " + opts.prime.task.Description)
			}
			// Its report goes to stderr: lore run's stdout is the agent's.
			ie := *e
			ie.stdout = e.stderr
			end, err := endRun(&ie, s, g.printer(&ie), opts.prime.loop.Run, objective)
			if err != nil {
				p.notice("the iterations are recorded; " + err.Error())
				return &reportedError{code: exitFailure}
			}
			end.report(e.stderr)
		}
		if code == exitOK {
			return nil
		}
		return &reportedError{code: code}
	}
}

// iteration is how one iteration ended, as recorded.
type iteration struct {
	key, task, outcome string
	why                string // the agent's end, or why there is no outcome, or the failure
	failures           int    // the task's consecutive failures, this iteration included
	interrupted        bool
}

// exitCode is lore run's exit status for the iteration.
func (it iteration) exitCode() int {
	switch {
	case it.interrupted:
		return exitInterrupted
	case it.outcome == "done":
		return exitOK
	case it.failures >= strategy.StuckThreshold:
		return exitStuck
	case it.outcome == "blocked":
		return exitBlocked
	}
	return exitFailure
}

// summary is the line that says how the iteration ended.
func (it iteration) summary() string {
	what := "iteration " + it.key
	if it.task != "" {
		what = "task " + it.task + " (" + it.key + ")"
	}
	line := what + " " + it.outcome
	if it.why != "" {
		line += ": " + it.why
	}
	switch code := it.exitCode(); {
	case code == exitStuck:
		line += fmt.Sprintf("; stuck, %d consecutive failures", it.failures)
	case code == exitFailure || code == exitBlocked:
		line += fmt.Sprintf("; %d consecutive %s", it.failures, words.Plural(it.failures, "failure", "failures"))
	}
	return line
}

// runIteration primes, runs the agent and records the iteration.
func runIteration(e *env, g globals, s *mdstore.Store, opts primeOptions, command []string, sigs *interrupts) (iteration, error) {
	pr, err := preparePrime(e, g, s, opts)
	if err != nil {
		return iteration{}, err
	}
	// The agent learns its task from lore run, as from an orchestrator.
	context := prompt.AssignedTask(pr.in.Task, opts.headingLevel) + pr.context(e).Markdown()
	number := opts.loop.Iteration
	if number == 0 {
		number = pr.in.Loop.Iteration // the run's next
	}
	model := pr.in.Loop.Model.Model // what lore model says, or --model
	argv, usage, err := agentArgs(command, context, model)
	if err != nil {
		return iteration{}, err
	}
	defer usage.removeFile()
	// The model the agent used: the one given, or lore's when the command
	// takes it; otherwise lore cannot tell.
	recorded := opts.loop.Model
	if recorded == "" && usage.model {
		recorded = model
	}
	var stdin io.Reader = e.stdin
	if !usage.prompt {
		stdin = strings.NewReader(context)
	}

	repo := worktreeOf(s)
	before, err := repo.read()
	if err != nil {
		pr.printer.notice("cannot list the files the iteration changes: " + err.Error())
		repo = nil
	}
	if sigs.caught() != nil {
		pr.printer.notice(fmt.Sprintf("interrupted before the agent started: nothing was recorded (exit %d)", exitInterrupted))
		return iteration{}, &reportedError{code: exitInterrupted}
	}
	start := e.now()
	ran, err := runProcess(e, argv, stdin, sigs)
	if err != nil {
		hint := ""
		if errors.Is(err, syscall.E2BIG) {
			hint = fmt.Sprintf(" (the context is %d bytes: give it with {prompt_file} or on stdin, or lower --budget)", len(context))
		}
		return iteration{}, fmt.Errorf("could not start the agent: %w%s; nothing was recorded", err, hint)
	}
	duration := e.now().Sub(start).Seconds()
	var files []string
	if repo != nil {
		after, err := repo.read()
		if err == nil {
			files, err = repo.changed(before, after)
		}
		if err != nil {
			pr.printer.notice("cannot list the files the iteration changed: " + err.Error())
		}
	}

	in := mdstore.IngestInput{Output: ran.output(), RunID: opts.loop.Run, Iteration: number, TaskID: opts.loop.TaskID,
		FeatureID: opts.task.Feature, Model: recorded, DurationSecs: math.Round(duration*1000) / 1000, Files: files,
		ProcessEnd: ran.end(), Interrupted: ran.interrupted != nil}
	// ingest's report goes to stderr: lore run's stdout is the agent's.
	ie := *e
	ie.stdout = e.stderr
	res, err := ingest(&ie, g, ingestOptions{ran: true, format: "table", in: in})
	if res == nil || res.Journal == nil {
		if err == nil {
			err = errors.New("no iteration was recorded")
		}
		return iteration{}, keepOutput(e, s, in, err)
	}
	if err != nil { // recorded, and what follows ingest failed (summarizing learnings)
		pr.printer.notice(err.Error())
	}
	j := res.Journal
	it := iteration{key: j.Key(), task: j.TaskID, outcome: j.Outcome, interrupted: ran.interrupted != nil}
	switch {
	case in.ProcessEnd != "":
		it.why = "the agent " + in.ProcessEnd
	case res.NoOutcome != "":
		it.why = res.NoOutcome
	case j.Failure != nil:
		it.why = summary(j.Failure.WhyFailed, 80)
	}
	if it.task != "" {
		// As lore status counts them: from the attempts prime counted and
		// this one, when prime counted this task's; else read again
		// (reading a store's whole journal costs a large store 40 ms).
		if it.task == opts.loop.TaskID && !res.JournalReplaced {
			it.failures = failuresAfter(pr.in.Loop.Task.ConsecutiveFailures, j.Outcome)
		} else {
			_, st, _, err := loadLoop(s, pr.printer, strategy.Input{TaskID: it.task, Run: j.RunID})
			if err != nil {
				return it, err
			}
			it.failures = st.Task.ConsecutiveFailures
		}
	}
	return it, nil
}

// failuresAfter is a task's consecutive failures once an attempt ends
// with outcome, given those before it: strategy.TaskFigures' rule.
func failuresAfter(before int, outcome string) int {
	switch {
	case outcome == "done":
		return 0
	case strategy.FailedOutcome(outcome):
		return before + 1
	}
	return before
}

// keepOutput saves the agent's output when it could not be recorded,
// under the clone's state directory (<git-dir>/lore), and says where and
// how to record it later.
func keepOutput(e *env, s *mdstore.Store, in mdstore.IngestInput, cause error) error {
	msg := "could not record the iteration: " + cause.Error()
	dir := s.StateDir()
	f, err := os.CreateTemp(dir, fmt.Sprintf("run-output-%s-%04d-*.txt", in.RunID, in.Iteration))
	if errors.Is(err, os.ErrNotExist) {
		if err = os.MkdirAll(dir, 0o755); err == nil {
			f, err = os.CreateTemp(dir, fmt.Sprintf("run-output-%s-%04d-*.txt", in.RunID, in.Iteration))
		}
	}
	if err == nil {
		_, err = f.WriteString(in.Output)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		printError(e, msg+"; nor could its output be kept ("+err.Error()+"); it was shown above")
		return &reportedError{code: exitFailure}
	}
	cmd := []string{"lore ingest", f.Name(), "--run", in.RunID, "--iteration", fmt.Sprint(in.Iteration)}
	if in.TaskID != "" {
		cmd = append(cmd, "--task", in.TaskID)
	}
	if in.Model != "" {
		cmd = append(cmd, "--model", in.Model)
	}
	cmd = append(cmd, "--duration", fmt.Sprint(in.DurationSecs))
	if len(in.Files) > 0 {
		cmd = append(cmd, "--files", strings.Join(in.Files, ","))
	}
	printError(e, fmt.Sprintf("%s; the agent's output is kept in %s (%s records it)", msg, f.Name(), strings.Join(cmd, " ")))
	return &reportedError{code: exitFailure}
}

// placeholders says which placeholders the agent's command holds, and the
// prompt file made for {prompt_file}.
type placeholders struct {
	prompt     bool   // {prompt} or {prompt_file}: stdin is not the context
	model      bool   // {model}
	promptFile string // "" without {prompt_file}
}

func (u placeholders) removeFile() {
	if u.promptFile != "" {
		os.Remove(u.promptFile)
	}
}

// agentArgs replaces the placeholders of the agent's command: {prompt}
// by the context, {prompt_file} by the path of a file holding it (made
// here, mode 0600, in the temporary directory: outside the repository),
// {model} by the model.
func agentArgs(command []string, context, model string) ([]string, placeholders, error) {
	var u placeholders
	for _, a := range command {
		u.prompt = u.prompt || strings.Contains(a, "{prompt}") || strings.Contains(a, "{prompt_file}")
		u.model = u.model || strings.Contains(a, "{model}")
		if strings.Contains(a, "{prompt_file}") && u.promptFile == "" {
			f, err := os.CreateTemp("", "lore-prompt-*.md")
			if err != nil {
				return nil, u, fmt.Errorf("write the prompt file: %w", err)
			}
			u.promptFile = f.Name()
			_, err = f.WriteString(context)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				u.removeFile()
				return nil, u, fmt.Errorf("write the prompt file: %w", err)
			}
		}
	}
	r := strings.NewReplacer("{prompt}", context, "{prompt_file}", u.promptFile, "{model}", model)
	argv := make([]string, len(command))
	for i, a := range command {
		argv[i] = r.Replace(a)
	}
	return argv, u, nil
}

// agentRun is how the agent's process went.
type agentRun struct {
	stdout, stderr *agentStream
	state          *os.ProcessState
	interrupted    os.Signal // the signal that stopped the iteration, nil if none did
}

// output is what ingest reads: the agent's stdout, then its stderr.
func (r agentRun) output() string {
	out := r.stdout.kept.String()
	if r.stderr.kept.Len() > 0 {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += r.stderr.kept.String()
	}
	return out
}

// end says how the agent ended when it did not end well ("exited with
// status 7", "was interrupted with SIGINT (Ctrl-C)"); "" for exit status 0.
func (r agentRun) end() string {
	how := ""
	ws, ok := r.state.Sys().(syscall.WaitStatus)
	switch {
	case ok && ws.Signaled() && r.interrupted != nil && os.Signal(ws.Signal()) == r.interrupted:
	case ok && ws.Signaled():
		how = fmt.Sprintf("was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
	case r.state.ExitCode() != 0:
		how = fmt.Sprintf("exited with status %d", r.state.ExitCode())
	}
	if r.interrupted == nil {
		return how
	}
	if how != "" {
		how = " and " + strings.TrimPrefix(how, "was ")
	}
	return "was interrupted with " + signalName(r.interrupted) + how
}

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// runProcess runs the agent (no shell) in lore's directory, with lore's
// environment: its stdout and stderr are copied to lore's as they come
// and kept. An error is a process that did not start.
func runProcess(e *env, argv []string, stdin io.Reader, sigs *interrupts) (agentRun, error) {
	var mu sync.Mutex // lore's stdout and stderr may be one writer
	r := agentRun{stdout: &agentStream{mu: &mu, to: e.stdout}, stderr: &agentStream{mu: &mu, to: e.stderr}}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = e.workDir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, r.stdout, r.stderr
	cmd.WaitDelay = agentWaitDelay
	if err := cmd.Start(); err != nil {
		return r, err
	}
	sigs.watch(cmd.Process)
	err := cmd.Wait()
	sigs.watch(nil)
	r.state = cmd.ProcessState
	r.interrupted = sigs.caught()
	if r.state == nil { // never: Wait has the process's status once it started
		return r, err
	}
	return r, nil // a non-zero exit is the agent's to report; ErrWaitDelay, its children's
}

// agentStream copies what the agent writes on one stream to lore's as it
// comes, and keeps all of it: once lore's stream fails (a reader that
// went away), it only keeps.
type agentStream struct {
	mu     *sync.Mutex
	to     io.Writer
	broken bool
	kept   bytes.Buffer
}

func (s *agentStream) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kept.Write(b)
	if !s.broken {
		if _, err := s.to.Write(b); err != nil {
			s.broken = true
		}
	}
	return len(b), nil
}

// interrupts catches SIGINT and SIGTERM for as long as lore run works, so
// that lore outlives its agent and records the iteration, and passes
// each on to the agent while it runs (at a terminal Ctrl-C reaches the
// agent too: it is in lore's process group). The third kills the agent.
// SIGPIPE is caught too, so that a reader of lore's output going away
// does not end lore with the output unrecorded.
type interrupts struct {
	ch    chan os.Signal
	mu    sync.Mutex
	agent *os.Process
	got   os.Signal
	count int
	done  chan struct{}
}

func catchInterrupts() *interrupts {
	i := &interrupts{ch: make(chan os.Signal, 4), done: make(chan struct{})}
	signal.Notify(i.ch, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	go func() {
		defer close(i.done)
		for sig := range i.ch {
			if sig == syscall.SIGPIPE {
				continue
			}
			i.mu.Lock()
			if i.got == nil {
				i.got = sig
			}
			i.count++
			i.forward(sig)
			i.mu.Unlock()
		}
	}()
	return i
}

// forward passes sig on to the agent, if it runs; i.mu is held.
func (i *interrupts) forward(sig os.Signal) {
	switch {
	case i.agent == nil:
	case i.count >= 3:
		i.agent.Kill()
	default:
		i.agent.Signal(sig)
	}
}

// watch names the agent's process that signals go to (nil: none runs);
// one caught before it started goes to it now.
func (i *interrupts) watch(p *os.Process) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.agent = p
	if p != nil && i.got != nil {
		i.forward(i.got)
	}
}

// caught is the first signal caught, nil if none was.
func (i *interrupts) caught() os.Signal {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.got
}

func (i *interrupts) stop() {
	signal.Stop(i.ch)
	close(i.ch)
	<-i.done
}

// worktree reads what the files of the store's git worktree hold, to
// tell which the iteration changed.
//
// It runs C git: internal/gitx has no status or diff of the worktree —
// lore's own writes never scan it, by design — and git's stat cache,
// ignore rules and untracked-file listing are too much to redo for one
// command whose caller (an orchestrator running an agent that edits a
// checkout) has git at hand anyway. GIT_OPTIONAL_LOCKS=0 keeps git status
// from rewriting the index.
type worktree struct {
	top     string // the worktree's top
	exclude string // the store's .agent/, relative to top
}

// worktreeOf is the store's worktree, nil outside git.
func worktreeOf(s *mdstore.Store) *worktree {
	repo := s.Repo()
	if repo == nil {
		return nil
	}
	_, prefix := s.GitIndex()
	return &worktree{top: repo.WorkTree, exclude: path.Join(prefix, entry.Dir) + "/"}
}

// worktreeState is HEAD, and each path git status lists with a hash of
// what it holds.
type worktreeState struct {
	head  string // "" on an unborn branch
	dirty map[string]string
}

func (w *worktree) git(args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = w.top
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("git %s: %s", args[0], msg)
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

func (w *worktree) read() (worktreeState, error) {
	st := worktreeState{dirty: map[string]string{}}
	if w == nil {
		return st, nil
	}
	head, err := w.git("rev-parse", "-q", "--verify", "HEAD^{commit}")
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 { // quietly: an unborn branch
		err = nil
	}
	if err != nil {
		return st, err
	}
	st.head = strings.TrimSpace(string(head))
	// The store is left out here already: git does not walk it (a store
	// of 10,000 entries costs git status 5 ms more).
	out, err := w.git("status", "--porcelain", "-z", "--untracked-files=all", "--", ":(exclude,top)"+strings.TrimSuffix(w.exclude, "/"))
	if err != nil {
		return st, err
	}
	fields := strings.Split(string(out), "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		paths := []string{f[3:]}
		if strings.ContainsAny(f[:2], "RC") && i+1 < len(fields) { // a rename's or copy's other path follows
			i++
			paths = append(paths, fields[i])
		}
		for _, p := range paths {
			st.dirty[p] = contentHash(filepath.Join(w.top, filepath.FromSlash(p)))
		}
	}
	return st, nil
}

// contentHash tells whether a file changed: a hash of what a regular
// file holds, a link's target, or "" for a path that holds nothing.
func contentHash(name string) string {
	info, err := os.Lstat(name)
	switch {
	case err != nil:
		return ""
	case info.Mode()&os.ModeSymlink != 0:
		target, _ := os.Readlink(name)
		return "link " + target
	case !info.Mode().IsRegular():
		return info.Mode().Type().String()
	}
	f, err := os.Open(name)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable"
	}
	return fmt.Sprintf("%o %s", info.Mode().Perm()&0o100, hex.EncodeToString(h.Sum(nil)))
}

// emptyTree is git's empty tree, what an unborn branch is compared from.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// changed lists the files that differ between before and after, outside
// .agent/: the paths git status lists in one and not the other, or with
// other content, and those of the commits made in between.
func (w *worktree) changed(before, after worktreeState) ([]string, error) {
	set := map[string]bool{}
	for p, h := range after.dirty {
		if old, ok := before.dirty[p]; !ok || old != h {
			set[p] = true
		}
	}
	for p := range before.dirty {
		if _, ok := after.dirty[p]; !ok {
			set[p] = true
		}
	}
	if after.head != before.head && after.head != "" {
		from := before.head
		if from == "" {
			from = emptyTree
		}
		out, err := w.git("diff", "--name-only", "--no-renames", "-z", from, after.head, "--")
		if err != nil {
			return nil, err
		}
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" {
				set[p] = true
			}
		}
	}
	var files []string
	for p := range set {
		if !strings.HasPrefix(p, w.exclude) {
			files = append(files, p)
		}
	}
	slices.Sort(files)
	return files, nil
}
