package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// becomeSubreaper makes this process the one that inherits the
// processes its children leave running when they exit (prctl
// PR_SET_CHILD_SUBREAPER): a lore-index that goes on indexing after lore
// has answered becomes a child of the bench, which can then wait for it
// and read its peak memory.
func becomeSubreaper() error {
	const prSetChildSubreaper = 36
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return e
	}
	return nil
}

// orphan is a process the bench inherited and waited for: when it ended
// (to 5 ms) and its peak resident memory, its own children's included.
type orphan struct {
	pid int
	end time.Time
	rss int64
}

// waitOrphans waits for every child of this process, which must run no
// command of its own meanwhile: all it has then are processes it
// inherited as a subreaper. It gives up after limit.
func waitOrphans(limit time.Duration) ([]orphan, error) {
	deadline := time.Now().Add(limit)
	var done []orphan
	for {
		pids, err := childPIDs()
		if err != nil || len(pids) == 0 {
			return done, err
		}
		for len(pids) > 0 {
			left := pids[:0]
			for _, pid := range pids {
				var ws syscall.WaitStatus
				var ru syscall.Rusage
				got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, &ru)
				switch {
				case err == syscall.ECHILD:
				case err != nil:
					return done, fmt.Errorf("wait4 %d: %w", pid, err)
				case got == pid:
					done = append(done, orphan{pid: pid, end: time.Now(), rss: ru.Maxrss << 10})
				default:
					left = append(left, pid)
				}
			}
			pids = left
			if len(pids) > 0 {
				if time.Now().After(deadline) {
					return done, fmt.Errorf("processes %v still running after %s", pids, limit)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		// Their own children, if they left any, are the bench's now.
	}
}

// childPIDs lists the processes whose parent is this one.
func childPIDs() ([]int, error) {
	names, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var pids []int
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		fields := bytes.Fields(data[i+1:])
		if len(fields) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(string(fields[1])); err == nil && ppid == self {
			pid, err := strconv.Atoi(filepath.Base(filepath.Dir(name)))
			if err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids, nil
}
