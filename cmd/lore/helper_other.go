//go:build !linux

package main

import (
	"os"
	"syscall"
)

// helperAttr is nothing where the kernel cannot kill a program with its
// parent: lore kills what it runs when it returns, or after a timeout.
func helperAttr() *syscall.SysProcAttr { return nil }

// isTTY is isTerminal where lore does not ask the terminal itself.
func isTTY(f *os.File) bool { return isTerminal(f) }
