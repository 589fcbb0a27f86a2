package loop

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"syscall"

	"lore/agentout"
	"lore/index"
	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/prompt"
	"lore/strategy"
)

// Outcome is how lore run ended; the CLI says it as its exit status.
type Outcome int

const (
	Done        Outcome = iota // the task is done
	Failed                     // the agent reported a failure, or exited non-zero without a word
	Blocked                    // the agent did not say how the task went
	Stuck                      // the task failed strategy.StuckThreshold times in a row, or more
	Interrupted                // a signal stopped it
	AgentError                 // the agent did not run to the end (entry.JournalEntry.AgentError)
	Unreported                 // the agent speaks no sigil and said nothing of how its task went
)

// HumanEscalation is the consecutive failure at which seed 002 stops
// acting on its own and asks a person (its fourth stage, one past the
// stuck warning): a run of several iterations stops there.
const HumanEscalation = strategy.StuckThreshold + 1

// RunRequest is lore run's: a task, the agent's command, and how many
// iterations it may take.
type RunRequest struct {
	Prime PrimeRequest
	// Command is the agent's, without a shell: {prompt} is replaced by
	// the task and the context, {prompt_file} by the path of a temporary
	// file holding them, {model} by the model lore chooses; without
	// {prompt} or {prompt_file} they go to the agent's stdin.
	Command []string
	// Repeat is the most iterations (1 or more): the run stops at the
	// first done, or at the task's HumanEscalation-th consecutive failure.
	Repeat int
	// Dir is where the agent runs, and Stdin, Stdout and Stderr its
	// streams (what it writes is shown as it comes, and ingested).
	Dir            string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Signals are the signals the caller catches: each is passed on to
	// the agent while it runs, the third kills it, and the iteration is
	// recorded as interrupted. SIGPIPE is not passed on.
	Signals <-chan os.Signal
	// Getenv finds lore-index for the primes (LORE_INDEX and the rest).
	Getenv func(string) string
	// Recorded, when set, hears each iteration once it is recorded.
	Recorded func(*Ingested)
	// Format is the format of the agent's stdout (agentout): "" or
	// agentout.Auto tells it from the output. The duration lore measured,
	// the files it saw change and the model it knows win over the
	// format's.
	Format agentout.Format
	// Progress is the progress log of an agent that speaks no task sigil
	// (IngestRequest.Progress).
	Progress string
}

// RunResult is how a run of iterations ended.
type RunResult struct {
	Outcome Outcome
	// Summary is one line on how it ended: "task T-1 (run-…/0002-…)
	// failed: …; 2 consecutive failures".
	Summary string
	// Run is the run the iterations went to.
	Run string
}

// Run runs the agent for up to req.Repeat iterations of one task: each
// one primes, runs the agent, and records the iteration with the files
// it changed, its duration and how the agent exited (Ingest). Every
// iteration goes to one run, started now if there is none. Notices (each
// iteration's, and why the next one runs) go to r; an iteration that
// cannot be recorded is an error that says where its output is kept.
func Run(s *mdstore.Store, req RunRequest, r Reporter) (RunResult, error) {
	loop := &req.Prime.Loop
	if loop.Run == "" {
		var err error
		if loop.Run, err = s.CurrentRun(); err != nil {
			return RunResult{}, err
		}
	}
	if loop.Run == "" {
		var err error
		if loop.Run, err = s.StartRun(""); err != nil {
			return RunResult{}, err
		}
		r.Notice("started run " + loop.Run + " (lore journal start names one)")
	}
	req.Prime.Task.Run = loop.Run
	res := RunResult{Run: loop.Run}

	sigs := hear(req.Signals)
	failures := 0    // consecutive, of this run of iterations: a task-less iteration's count
	agentErrors := 0 // in a row, likewise
	for n := 1; ; n++ {
		it, err := runIteration(s, req, sigs, r)
		if errors.Is(err, errInterruptedBeforeStart) {
			return RunResult{Outcome: Interrupted, Summary: err.Error(), Run: loop.Run}, nil
		}
		if err != nil {
			return res, err
		}
		switch {
		case it.agentError:
			agentErrors++
		case it.outcome == "done":
			failures, agentErrors = 0, 0
		case strategy.FailedOutcome(it.outcome):
			failures++
			agentErrors = 0
		default:
			agentErrors = 0
		}
		if it.task == "" {
			it.failures, it.agentErrors = failures, agentErrors
		}
		res.Outcome, res.Summary = it.result(), it.summary()
		switch {
		case sigs.caught() != nil:
			if !it.interrupted { // during the recording: the agent had ended
				res.Summary += "; interrupted, stopping"
			}
			res.Outcome = Interrupted
		case it.complete && req.Repeat > 1:
			res.Summary += fmt.Sprintf("; the agent says the work is complete, at iteration %d of %d", n, req.Repeat)
		case res.Outcome == Done && it.ownTask && n < req.Repeat:
			// A story of its own progress log: the loop goes on to the next.
			r.Notice(fmt.Sprintf("%s; running iteration %d of %d", res.Summary, n+1, req.Repeat))
			loop.Iteration = 0
			continue
		case res.Outcome == Done && req.Repeat > 1:
			res.Summary += fmt.Sprintf(", at iteration %d of %d", n, req.Repeat)
		case res.Outcome == Done:
		case it.agentError && it.agentErrors >= strategy.StuckThreshold && req.Repeat > 1:
			res.Summary += fmt.Sprintf("; stopping after iteration %d: the agent has not run to the end %d times in a row: check the agent", n, it.agentErrors)
		case it.failures >= HumanEscalation && req.Repeat > 1:
			res.Summary += fmt.Sprintf("; stopping after iteration %d: seed 002 hands a task that failed %d times in a row to a person "+
				"(decompose it, fix the code by hand, or end the run)", n, it.failures)
		case n < req.Repeat:
			r.Notice(fmt.Sprintf("%s; running iteration %d of %d", res.Summary, n+1, req.Repeat))
			// The next iteration: the run's next number, on the task this
			// one recorded.
			loop.Iteration = 0
			if loop.TaskID == "" && it.task != "" {
				loop.TaskID, req.Prime.Task.ID = it.task, it.task
			}
			continue
		case req.Repeat > 1:
			res.Summary += fmt.Sprintf("; not done after %d iterations", n)
		}
		return res, nil
	}
}

// Objective is the run's objective for its end (EndRun): objective when
// given, else the task's title and description.
func (req RunRequest) Objective(objective string) string {
	if objective != "" {
		return objective
	}
	return strings.TrimSpace(req.Prime.Task.Title + " " + req.Prime.Task.Description)
}

// errInterruptedBeforeStart is a signal that came before the agent
// started: nothing is recorded.
var errInterruptedBeforeStart = errors.New("interrupted before the agent started: nothing was recorded")

// iteration is how one iteration ended, as recorded.
type iteration struct {
	key, task, outcome string
	why                string // the agent's end, or why there is no outcome, or the failure
	failures           int    // the task's consecutive failures, this iteration included
	interrupted        bool
	agentError         bool // the agent did not run to the end: no attempt at the task
	agentErrors        int  // the agent errors in a row, this iteration included
	// complete: the agent said the loop's work is complete
	// (<promise>COMPLETE</promise>); ownTask: it chose the task it did
	// (a story of its progress log), so its done is not the run's.
	complete, ownTask bool
}

// result is the iteration's outcome, as lore run ends with it.
func (it iteration) result() Outcome {
	switch {
	case it.interrupted:
		return Interrupted
	case it.agentError:
		return AgentError
	case it.outcome == "done":
		return Done
	case it.failures >= strategy.StuckThreshold:
		return Stuck
	case it.outcome == "blocked":
		return Blocked
	case it.outcome == "unreported":
		return Unreported
	}
	return Failed
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
	switch it.result() {
	case Stuck:
		line += fmt.Sprintf("; stuck, %d consecutive failures", it.failures)
	case Failed, Blocked:
		line += fmt.Sprintf("; %d consecutive %s", it.failures, words.Plural(it.failures, "failure", "failures"))
	case AgentError:
		line += fmt.Sprintf("; not counted as an attempt: the agent has not run to the end %d %s in a row", it.agentErrors, words.Plural(it.agentErrors, "time", "times"))
		if it.agentErrors >= strategy.StuckThreshold {
			line += ": check the agent"
		}
	}
	return line
}

// runIteration primes, runs the agent and records the iteration.
func runIteration(s *mdstore.Store, req RunRequest, sigs *interrupts, r Reporter) (iteration, error) {
	opts := req.Prime
	search := SearcherFor(opts.Task, req.Getenv)
	pr, err := Prime(s, search, opts, r)
	search.Close()
	if err != nil {
		return iteration{}, err
	}
	// The agent learns its task from lore run, as from an orchestrator.
	context := prompt.AssignedTask(pr.Input.Task, pr.Options.HeadingLevel) + pr.Context().Markdown()
	number := opts.Loop.Iteration
	if number == 0 {
		number = pr.Input.Loop.Iteration // the run's next
	}
	model := pr.Input.Loop.Model.Model // what lore model says, or --model
	argv, usage, err := agentArgs(req.Command, context, model)
	if err != nil {
		return iteration{}, err
	}
	defer usage.removeFile()
	// The model the agent used: the one given, or lore's when the command
	// takes it; otherwise lore cannot tell.
	recorded := opts.Loop.Model
	if recorded == "" && usage.model {
		recorded = model
	}
	stdin := req.Stdin
	if !usage.prompt {
		stdin = strings.NewReader(context)
	}

	repo := worktreeOf(s)
	before, err := repo.read()
	if err != nil {
		r.Notice("cannot list the files the iteration changes: " + err.Error())
		repo = nil
	}
	if sigs.caught() != nil {
		return iteration{}, errInterruptedBeforeStart
	}
	mark, err := s.MarkBranch()
	if err != nil {
		r.Notice("cannot mark the branch to see what the agent's git commands take off it: " + err.Error())
	}
	start := s.Now()
	ran, err := runProcess(argv, req.Dir, stdin, req.Stdout, req.Stderr, sigs)
	if err != nil {
		hint := ""
		if errors.Is(err, syscall.E2BIG) {
			hint = fmt.Sprintf(" (the context is %d bytes: give it with {prompt_file} or on stdin, or lower --budget)", len(context))
		}
		return iteration{}, fmt.Errorf("could not start the agent: %w%s; nothing was recorded", err, hint)
	}
	duration := s.Now().Sub(start).Seconds()
	var files []string
	listed := false // lore knows the files the iteration changed
	if repo != nil {
		after, err := repo.read()
		if err == nil {
			files, err = repo.changed(before, after)
		}
		if err != nil {
			r.Notice("cannot list the files the iteration changed: " + err.Error())
		}
		listed = err == nil
	}

	// One invocation, one iteration: a new one in the run (the number
	// prime announced, unless another writer took it meanwhile), found
	// again by its key when its output is recorded later (keepOutput).
	key, err := s.NewIngestKey("lore-run-")
	if err != nil {
		return iteration{}, err
	}
	in := mdstore.IngestInput{Output: ran.output(), RunID: opts.Loop.Run, Iteration: opts.Loop.Iteration, Key: key, TaskID: opts.Loop.TaskID,
		FeatureID: opts.Task.Feature, Model: recorded, DurationSecs: math.Round(duration*1000) / 1000, Files: files,
		ProcessEnd: ran.end(), Interrupted: ran.interrupted != nil, Rewound: restoreDropped(s, mark, r)}
	given := Given{Model: recorded != "", Duration: true, Files: listed}
	res, err := Ingest(s, IngestRequest{IngestInput: in, Format: req.Format, Given: given, Progress: req.Progress}, r)
	if res == nil || res.Journal == nil {
		if err == nil {
			err = errors.New("no iteration was recorded")
		}
		return iteration{}, keepOutput(s, in, number, req.Format, err)
	}
	if req.Recorded != nil {
		req.Recorded(res)
	}
	if err != nil { // recorded, and what follows ingest failed (summarizing learnings)
		r.Notice(err.Error())
	}
	j := res.Journal
	it := iteration{key: j.Key(), task: j.TaskID, outcome: j.Outcome, interrupted: ran.interrupted != nil, agentError: j.AgentError(),
		complete: res.Complete, ownTask: opts.Loop.TaskID == "" && res.Story}
	switch {
	case it.agentError:
		it.why = words.FirstLine(j.Failure.WhyFailed, 120)
	case in.ProcessEnd != "":
		it.why = "the agent " + in.ProcessEnd
	case res.NoOutcome != "":
		it.why = res.NoOutcome
	case j.Failure != nil:
		it.why = words.FirstLine(j.Failure.WhyFailed, 80)
	}
	if it.task != "" {
		// As lore status counts them: from the attempts prime counted and
		// this one, when prime counted this task's; else read again
		// (reading a store's whole journal costs a large store 40 ms).
		if it.task == opts.Loop.TaskID && !res.JournalReplaced {
			before := pr.Input.Loop.Task
			it.failures = failuresAfter(before.ConsecutiveFailures, *j)
			if it.agentError {
				it.agentErrors = before.AgentErrors + 1
			}
		} else {
			st, _, err := Status(s, strategy.Input{TaskID: it.task, Run: j.RunID}, r)
			if err != nil {
				return it, err
			}
			it.failures, it.agentErrors = st.Task.ConsecutiveFailures, st.Task.AgentErrors
		}
	}
	return it, nil
}

// SearcherFor is the search index prime asks about task: none (nil)
// when the task says nothing to search for. It is made before the store
// is opened, so that lore-index starts up meanwhile; getenv finds it.
func SearcherFor(task prompt.Task, getenv func(string) string) *index.Searcher {
	if TaskText(task) == "" || getenv == nil {
		return nil
	}
	return index.NewSearcher(getenv, io.Discard)
}

// failuresAfter is a task's consecutive failures once iteration e is
// recorded, given those before it: strategy.TaskFigures' rule.
func failuresAfter(before int, e entry.JournalEntry) int {
	switch {
	case e.Outcome == "done":
		return 0
	case strategy.Failed(e):
		return before + 1
	}
	return before
}

// keepOutput saves the agent's output when it could not be recorded,
// under the clone's state directory (<git-dir>/lore), and says where and
// how to record it later.
func keepOutput(s *mdstore.Store, in mdstore.IngestInput, number int, format agentout.Format, cause error) error {
	msg := "could not record the iteration: " + cause.Error()
	dir := s.StateDir()
	f, err := os.CreateTemp(dir, fmt.Sprintf("run-output-%s-%04d-*.txt", in.RunID, number))
	if errors.Is(err, os.ErrNotExist) {
		if err = os.MkdirAll(dir, 0o755); err == nil {
			f, err = os.CreateTemp(dir, fmt.Sprintf("run-output-%s-%04d-*.txt", in.RunID, number))
		}
	}
	if err == nil {
		_, err = f.WriteString(in.Output)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return errors.New(msg + "; nor could its output be kept (" + err.Error() + "); it was shown above")
	}
	cmd := []string{"lore ingest", f.Name(), "--run", in.RunID, "--key", in.Key}
	if in.Iteration != 0 {
		cmd = append(cmd, "--iteration", fmt.Sprint(in.Iteration))
	}
	if code, ok := strings.CutPrefix(in.ProcessEnd, "exited with status "); ok {
		cmd = append(cmd, "--exit-code", code)
	}
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
	if format != "" && format != agentout.Auto {
		cmd = append(cmd, "--agent-format", string(format))
	}
	return fmt.Errorf("%s; the agent's output is kept in %s (%s records it)", msg, f.Name(), strings.Join(cmd, " "))
}

// restoreDropped queues again what the agent's rewind of the branch (git
// reset, a rebase, an amend) took off it of lore's commits, for the
// iteration's write to commit first (mdstore.Store.RestoreDropped), says
// so, and returns what the iteration's journal entry notes of it.
func restoreDropped(s *mdstore.Store, mark mdstore.BranchMark, r Reporter) string {
	dropped, err := s.RestoreDropped(mark)
	if err != nil {
		r.Notice("cannot tell what the agent's git commands took off the branch: " + err.Error())
	}
	if len(dropped) == 0 {
		return ""
	}
	var names, queued []string
	for i, d := range dropped {
		switch {
		case i < 5:
			names = append(names, d.Commit[:7]+" ("+d.Subject+")")
		case i == 5:
			names = append(names, fmt.Sprintf("and %d more", len(dropped)-5))
		}
		if d.Queued {
			queued = append(queued, d.Commit[:7])
		}
	}
	n := len(dropped)
	note := fmt.Sprintf("The agent's git commands took %d of lore's %s off the branch: %s.", n, words.Plural(n, "commit", "commits"), strings.Join(names, ", "))
	switch {
	case len(queued) == n:
		note += " lore committed " + words.Plural(n, "its change", "their changes") + " again."
	case len(queued) > 0:
		note += " lore committed again the changes of " + strings.Join(queued, ", ") + "; the branch holds the others'."
	default:
		note += " The branch holds their changes anyway, or lore does not commit here (config.yaml's commit)."
	}
	r.Notice(note)
	return note
}
