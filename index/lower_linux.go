package index

import "syscall"

// lowNice is the nice value a helper that builds in the background
// starts with: the least favoured.
const lowNice = 19

// lowerThread gives the calling thread, locked to its goroutine, the
// lowest priority: a process it starts inherits it from its first
// instruction (on Linux a nice value is a thread's).
func lowerThread() {
	syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), lowNice)
}
