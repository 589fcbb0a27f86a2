package main

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// helperAttr makes a program lore runs die with lore: the kernel kills it
// when lore's thread that started it ends, as it does when lore is
// killed.
func helperAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// isTTY says whether f is a terminal: a character device that answers a
// terminal's ioctl (/dev/null is a character device and no terminal).
func isTTY(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
