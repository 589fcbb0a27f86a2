package detach

import (
	"os"
	"slices"
	"strconv"
	"syscall"
)

// Detach lets lore-index's caller go on while the process finishes its
// work: standard output and standard error are pointed at /dev/null, so
// lore, which reads the answer until its end, and whoever reads lore's
// standard error (a pipe in a script) stop waiting. The descriptors stay
// open, so no file opened later takes their numbers. It also closes what
// the process inherited beyond them (closeInherited) but keep (a lock
// handed over).
func Detach(keep ...int) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err == nil {
		for _, fd := range []int{1, 2} {
			syscall.Dup3(int(null.Fd()), fd, 0)
		}
		null.Close()
	}
	closeInherited(keep)
}

// lowNice is the nice value of a process that Lower lowered: the least
// favoured, so that a build in the background takes the cores only when
// nothing else wants them.
const lowNice = 19

// Lower gives the process the lowest priority: each of its threads, since
// on Linux a nice value is a thread's; the threads the Go runtime starts
// later inherit it from the thread that starts them.
func Lower() {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		syscall.Setpriority(syscall.PRIO_PROCESS, 0, lowNice)
		return
	}
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil {
			syscall.Setpriority(syscall.PRIO_PROCESS, tid, lowNice)
		}
	}
}

// closeInherited closes the descriptors above the standard three that
// the process inherited without close-on-exec, but keep: a process that
// goes on after its caller (an update, a build, a resident lore-index)
// must not hold open a pipe its starter's caller waits on the end of — a
// hook runner's, a script's `4>` — for as long as it lives. The
// descriptors Go opens itself are close-on-exec, and are kept.
func closeInherited(keep []int) {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range fds {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 || slices.Contains(keep, fd) {
			continue
		}
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if errno == 0 && flags&syscall.FD_CLOEXEC == 0 {
			syscall.Close(fd)
		}
	}
}
