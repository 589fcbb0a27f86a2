package loop

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// agentWaitDelay is how long lore waits, once the agent has exited, for
// what the agent's children still hold of its stdout and stderr (a
// server it started in the background): then the pipes are closed.
const agentWaitDelay = 2 * time.Second

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

// runProcess runs the agent (no shell) in dir, with lore's environment:
// its stdout and stderr are copied to stdout and stderr as they come and
// kept. An error is a process that did not start.
func runProcess(argv []string, dir string, stdin io.Reader, stdout, stderr io.Writer, sigs *interrupts) (agentRun, error) {
	var mu sync.Mutex // lore's stdout and stderr may be one writer
	r := agentRun{stdout: &agentStream{mu: &mu, to: stdout}, stderr: &agentStream{mu: &mu, to: stderr}}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
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

// interrupts hears the signals the caller catches (SIGINT and SIGTERM,
// for as long as lore run works, so that lore outlives its agent and
// records the iteration) and passes each on to the agent while it runs
// (at a terminal Ctrl-C reaches the agent too: it is in lore's process
// group). The third kills the agent. SIGPIPE, which the caller catches so
// that a reader of lore's output going away does not end lore with the
// output unrecorded, is not passed on.
type interrupts struct {
	mu    sync.Mutex
	agent *os.Process
	got   os.Signal
	count int
}

// hear listens to signals until it is closed (nil: none comes).
func hear(signals <-chan os.Signal) *interrupts {
	i := &interrupts{}
	if signals == nil {
		return i
	}
	go func() {
		for sig := range signals {
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
