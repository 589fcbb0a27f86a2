package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/internal/words"
	"lore/mdstore/entry"
)

// maxTypo is how many edits away a "did you mean" may be.
const maxTypo = 2

// didYouMean is " (did you mean X?)" for the known word nearest to a
// mistyped one, or "" when none is near: the one way every command
// suggests a command, flag, kind or id.
func didYouMean(typed string, known []string) string {
	if near, ok := words.NearestName(typed, known, maxTypo); ok {
		return fmt.Sprintf(" (did you mean %s?)", near)
	}
	return ""
}

// commandNames are the names and aliases of cmds, for didYouMean.
func commandNames(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	return names
}

// unknownFlag adds a "did you mean" to urfave/cli's "flag provided but
// not defined: -updat", from the flags of the command it was given to.
func unknownFlag(c *cli.Context, err error) string {
	msg := err.Error()
	typed, ok := strings.CutPrefix(msg, "flag provided but not defined: ")
	if !ok {
		return msg
	}
	flags := c.App.Flags
	if c.Command != nil && c.Command.Name != "" {
		flags = append(flags, c.Command.Flags...)
	}
	var names []string
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, "--"+n)
			} else {
				names = append(names, "-"+n)
			}
		}
	}
	if !strings.HasPrefix(typed, "--") && len(typed) > 2 {
		typed = "-" + typed // Go's flag package takes -update for --update
	}
	return msg + didYouMean(typed, names)
}

// kindNames are the kinds an entry may be, for didYouMean.
func kindNames(kinds ...entry.Kind) []string {
	var names []string
	for _, k := range kinds {
		names = append(names, string(k))
	}
	return names
}

// idLister lists the ids of the entries of a kind, for a "did you mean".
type idLister func(entry.Kind) []string

// withNearID gives a missing entry's error the id of its kind nearest to
// the one asked for, when there is one.
func withNearID(err error, ids idLister) error {
	var missing *entry.NotFoundError
	if err == nil || !errors.As(err, &missing) || missing.Near != "" {
		return err
	}
	if near, ok := words.Nearest(missing.ID, ids(missing.Kind), maxTypo); ok {
		missing.Near = near
	}
	return err
}
