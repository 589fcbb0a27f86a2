package detach

import (
	"os"
	"syscall"
)

// Detach lets lore-index's caller go on while the process finishes its
// work: standard output and standard error are pointed at /dev/null, so
// lore, which reads the answer until its end, and whoever reads lore's
// standard error (a pipe in a script) stop waiting. The descriptors stay
// open, so no file opened later takes their numbers.
func Detach() {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer null.Close()
	for _, fd := range []int{1, 2} {
		syscall.Dup3(int(null.Fd()), fd, 0)
	}
}
