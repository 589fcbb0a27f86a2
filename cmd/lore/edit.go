package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/mdstore"
	"lore/mdstore/cites"
	"lore/mdstore/entry"
	"lore/mdstore/lifecycle"
	"lore/provenance"
)

// --- edit ---

type editOptions struct {
	id       string
	content  *string // nil: keep it (or, with nothing else asked on a terminal, $EDITOR)
	tags     *string
	typ      string
	title    string
	category string
	format   string
	cite     []string // files it cites now (with those its new text names)
}

func editCommand(e *env) *cli.Command {
	formats := []string{"table", "json", "quiet"}
	return &cli.Command{
		Name:      "edit",
		Usage:     "change a memory, knowledge entry or learning in place",
		UsageText: "lore edit <id> [content|-] [--tags a,b] [--type T] [--title T] [--category C] [--cite file[:lines]]… [--format table|json|quiet]",
		Description: `Changes one entry in place, as one commit "lore: edit <kind> <id>" with
Lore-Id and Lore-Kind trailers; the old version stays in git's history
(lore history <id>). The content comes from the arguments after the id, from
stdin with -, or, when nothing is given and stdin is a terminal, from
$EDITOR (then $VISUAL, then vi) on a temporary file holding the current
content. With no content, no flag and no terminal it is a usage error.

A memory keeps its id, its place in .agent/memories.md and its created
date; --type moves its block to the new type's section. A knowledge entry
keeps its slug and created_at and gets updated_at; --title changes its
title, not its file name. A learning keeps its id and its frontmatter but
the body, --tags and --category. Journal iterations are records of what
happened and are not edited; skills are files of their own, edited by hand.

New content, or --cite, makes the entry's citations anew in the same commit:
the files the new text names and --cite's, stamped as they are now
(.agent/citations.md; see lore stale).

Content that is empty, a bad tag or a secret is refused (exit status 2) as
lore add refuses it. An edit that changes nothing prints "unchanged" and
commits nothing.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tags", Usage: "comma-separated tags, replacing the entry's"},
			&cli.StringFlag{Name: "type", Aliases: []string{"t"}, Usage: "a memory's new type: pattern, decision, fix or context"},
			&cli.StringFlag{Name: "title", Usage: "a knowledge entry's new title"},
			&cli.StringFlag{Name: "category", Usage: "a learning's new category"},
			citeFlag(),
			formatFlag("table", formats...),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return usagef("edit needs the id of the entry to change")
			}
			opts := editOptions{id: c.Args().First(), typ: c.String("type"), title: c.String("title"), category: c.String("category"), format: c.String("format"),
				cite: c.StringSlice("cite")}
			if err := checkFormat(opts.format, formats...); err != nil {
				return err
			}
			if c.IsSet("tags") {
				t := c.String("tags")
				opts.tags = &t
			}
			if c.NArg() > 1 {
				content, err := bodyFrom(e, c.Args().Slice()[1:], "the new content")
				if err != nil {
					return err
				}
				opts.content = &content
			}
			return runWith(e, globalsFrom(c), opts, runEdit)
		},
	}
}

func runEdit(e *env, g globals, opts editOptions) error {
	ch := lifecycle.Change{Content: opts.content, Type: opts.typ, Title: opts.title, Category: opts.category}
	if opts.tags != nil {
		ch.Tags = entry.SplitTags(*opts.tags)
		if ch.Tags == nil {
			ch.Tags = []string{}
		}
	}
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	if ch.Content == nil && ch.Tags == nil && ch.Type == "" && ch.Title == "" && ch.Category == "" && len(opts.cite) == 0 {
		if !e.stdinTerminal {
			return usagef("edit needs the new content (as arguments, or - to read stdin), a flag, or a terminal to run $EDITOR on")
		}
		content, err := editInEditor(e, s, opts.id)
		if err != nil {
			return err
		}
		ch.Content = &content
	}
	if ch.Content != nil || len(opts.cite) > 0 {
		stamper := provenance.NewStamper(s)
		ch.Cite = func(text string) ([]cites.Cite, error) { return stamper.StampFound(opts.cite, text) }
	}
	ed, res, err := lifecycle.Edit(s, opts.id, ch)
	if errors.Is(err, lifecycle.ErrNotEditable) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	p := g.printer(e)
	if ed.Unchanged {
		fmt.Fprintf(p.err, "unchanged: %s holds that already; nothing committed\n", ed.ID)
	} else {
		printWrite(p, res, strings.ToUpper(string(ed.Kind[:1]))+string(ed.Kind[1:]), ed.ID)
	}
	switch opts.format {
	case "json":
		var v any = ed.Knowledge
		switch {
		case ed.Memory != nil:
			v = toJSON(*ed.Memory)
		case ed.Learning != nil:
			v = ed.Learning
		}
		commit := ""
		if res != nil {
			commit = res.Commit
		}
		return writeJSON(p.out, struct {
			Entry     any    `json:"entry"`
			Unchanged bool   `json:"unchanged,omitempty"`
			Commit    string `json:"commit,omitempty"`
		}{v, ed.Unchanged, commit})
	case "quiet":
		fmt.Fprintln(p.out, ed.ID)
	default:
		if !ed.Unchanged {
			fmt.Fprintf(p.out, "%sEdited: %s\n", p.emoji("📝"), p.paint(ansiYellow, ed.ID))
		}
	}
	return nil
}

// editInEditor runs $EDITOR on a temporary file holding the entry's
// current content and returns what the file holds when it quits.
func editInEditor(e *env, s *mdstore.Store, id string) (string, error) {
	var cur string
	switch kind, id := entry.KindOfID(id); kind {
	case entry.KindMemory:
		m, _, err := s.Memory(id)
		if err != nil {
			return "", err
		}
		cur = m.Content
	case entry.KindLearning:
		l, err := s.Learning(id)
		if err != nil {
			return "", err
		}
		cur = l.Body
	case entry.KindKnowledge:
		k, err := s.KnowledgeEntry(id)
		if err != nil {
			return "", err
		}
		cur = k.Body
	default:
		return "", usagef("an iteration (%s) is not editable: the journal records what happened", id)
	}
	dir, err := os.MkdirTemp("", "lore-edit-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	f := filepath.Join(dir, "entry.md")
	if err := os.WriteFile(f, []byte(cur+"\n"), 0o600); err != nil {
		return "", err
	}
	editor := e.getenv("EDITOR")
	if editor == "" {
		editor = e.getenv("VISUAL")
	}
	if editor == "" {
		editor = "vi"
	}
	// $EDITOR may hold arguments ("code --wait"): a shell runs it.
	cmd := exec.Command("/bin/sh", "-c", editor+` "$1"`, "sh", f)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("edit: %s: %w (nothing changed)", editor, err)
	}
	data, err := os.ReadFile(f)
	return string(data), err
}

// --- supersede and similar, for the add commands ---

func supersedesFlag() cli.Flag {
	return &cli.StringFlag{Name: "supersedes", Usage: "the id of an entry of the same kind that this one replaces: retired in the same commit"}
}

// superseding is what an add of kind also does to retire old ("": none).
func superseding(kind entry.Kind, old string) []mdstore.Also {
	if old == "" {
		return nil
	}
	return []mdstore.Also{lifecycle.Supersedes(kind, old)}
}

// similarTo is the entry of kind (a memory of type typ) that text nearly
// repeats, looked for before an add that supersedes nothing; "" when none
// does or it cannot be told (the notice is advice, never an error).
func similarTo(s *mdstore.Store, kind entry.Kind, typ, text, supersedes string) string {
	if supersedes != "" {
		return ""
	}
	id, err := lifecycle.Similar(s, kind, typ, text)
	if err != nil {
		return ""
	}
	return id
}

// noteSimilar says on stderr which entry the one just written (id)
// nearly repeats.
func noteSimilar(p *printer, similar, id string) {
	if similar != "" && similar != id {
		fmt.Fprintf(p.err, "similar: %s — use --supersedes %s to replace it\n", similar, similar)
	}
}
