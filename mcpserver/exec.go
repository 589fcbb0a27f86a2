package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
)

// Exec is the Runner that runs the lore binary at lore for the store at
// root ("" for the directory the server runs in), one process a call,
// with env as its environment (nil: the server's).
func Exec(lore, root string, env []string) Runner {
	return func(ctx context.Context, stdin string, args ...string) ([]byte, string, error) {
		if root != "" {
			args = append([]string{"--root", root}, args...)
		}
		cmd := exec.CommandContext(ctx, lore, append([]string{"--color", "never"}, args...)...)
		cmd.Stdin, cmd.Env = strings.NewReader(stdin), env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, "", &CommandError{Code: exit.ExitCode(), Message: cliMessage(stderr.String())}
		}
		if err != nil {
			return nil, "", err
		}
		return stdout.Bytes(), strings.TrimSpace(stderr.String()), nil
	}
}

// cliMessage is what lore printed on stderr for a failed command,
// without the "Error: " a terminal shows before the message.
func cliMessage(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "Error: ")
	}
	if msg := strings.Join(lines, "\n"); msg != "" {
		return msg
	}
	return "lore failed without a message"
}
