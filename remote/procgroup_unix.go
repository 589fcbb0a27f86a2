//go:build unix

package remote

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own: Ctrl-C at a
// terminal reaches lore, which stops between two git commands, and not git
// in the middle of a merge.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
