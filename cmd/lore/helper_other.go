//go:build !linux

package main

import "syscall"

// helperAttr is nothing where the kernel cannot kill a program with its
// parent: lore kills what it runs when it returns, or after a timeout.
func helperAttr() *syscall.SysProcAttr { return nil }
