//go:build !unix

package remote

import "os/exec"

// ownProcessGroup leaves cmd in lore's process group where there are no
// process groups to choose.
func ownProcessGroup(cmd *exec.Cmd) {}
