//go:build !linux

package storewatch

import "errors"

// Notify is inotify's, which only Linux has: elsewhere NewNotify fails and
// lore stamps every file of a small store, as without it.
type Notify struct{}

// NewNotify fails: there is no inotify here.
func NewNotify() (*Notify, error) { return nil, errors.ErrUnsupported }

func (n *Notify) Watch(dirs []string) (bool, error) { return false, errors.ErrUnsupported }
func (n *Notify) Changed() bool                     { return true }
func (n *Notify) Close() error                      { return nil }

// LocalFS is Linux's: elsewhere there is no Notify to rely on.
func LocalFS(path string) bool { return false }
