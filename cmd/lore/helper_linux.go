package main

import "syscall"

// helperAttr makes a program lore runs die with lore: the kernel kills it
// when lore's thread that started it ends, as it does when lore is
// killed.
func helperAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
