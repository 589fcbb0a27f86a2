package remote

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"lore/internal/gitx"
)

// git runs C git in the worktree: lore sync leaves the network, the
// credentials and the merge itself to it.
type git struct {
	path, dir string
	env       []string
}

func newGit(dir string, env []string) (*git, error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return nil, errors.New("lore sync runs git, which is not on PATH")
	}
	if env == nil {
		env = os.Environ()
	}
	return &git{path: path, dir: dir, env: gitx.CGitEnv(env, "GIT_MERGE_AUTOEDIT=no")}, nil
}

// output runs git with args and returns its output, trimmed: stdout, or,
// when git fails, stdout and stderr together, and an error that quotes
// stderr's last lines.
func (g *git) output(args ...string) (string, error) {
	out, _, err := g.run(args...)
	return out, err
}

// run is output that also returns what git wrote on stderr when it
// succeeded (a merge driver's notices).
func (g *git) run(args ...string) (string, string, error) {
	cmd := exec.Command(g.path, args...)
	cmd.Dir, cmd.Env = g.dir, g.env
	ownProcessGroup(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := strings.TrimSpace(stdout.String())
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if lines := strings.Split(msg, "\n"); len(lines) > 4 {
			msg = strings.Join(lines[len(lines)-4:], "\n")
		}
		if msg == "" {
			msg = out
		}
		return strings.TrimSpace(out + "\n" + stderr.String()), "", fmt.Errorf("git %s: %v: %s", args[0], err, msg)
	}
	return out, stderr.String(), nil
}
