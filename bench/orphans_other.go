//go:build !linux

package main

import (
	"errors"
	"time"
)

// becomeSubreaper is Linux only: elsewhere the bench waits for a
// background index build through lore index status alone.
func becomeSubreaper() error { return errors.New("no child subreaper outside Linux") }

type orphan struct {
	pid int
	end time.Time
	rss int64
}

func waitOrphans(limit time.Duration) ([]orphan, error) { return nil, nil }
