package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/internal/gitx"
	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/cites"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

func validateCommand(e *env) *cli.Command {
	formats := []string{"text", "json"}
	return &cli.Command{
		Name:      "validate",
		Usage:     "check the store's files: formats, ids, size caps, conflict markers and secrets",
		UsageText: "lore validate [--staged] [PATH...] [--format text|json]",
		Description: "Prints every problem as path:line: error|warning: message and exits 1 when there is an error.\n" +
			"--staged checks the files as the git index holds them: what the next commit will contain\n" +
			"(the staged blobs, not the working files, and the temporary index git uses for git commit -a\n" +
			"or git commit <paths>; the pre-commit hook runs this), and reports problems only in the files\n" +
			"that commit changes from HEAD. PATHs limit the report to those files or directories.\n\n" +
			"It checks memories.md (sections, ids, content lines, metadata comments, duplicates, tags lore\n" +
			"would have written lowercase, memories under a heading that is not a memory section), each\n" +
			"kind's frontmatter (required fields, enum values, dates, tags, fields lore does not know, with a\n" +
			"\"did you mean\"), ids that must match their file, superseded_by naming a learning that exists,\n" +
			"size caps (64 KiB an entry; a warning past 1 MiB of memories.md or 2,000 characters of one\n" +
			"memory), files lore does not read (a symbolic link, a FIFO, a file over the read cap),\n" +
			"leftover conflict markers, unmerged paths, and secrets. Without --staged or PATHs it also reports\n" +
			"the changes lore set aside in .git/lore/pending/failed/: a queued change it cannot commit (a name\n" +
			"too long, a file over its limit), with why.\n\n" +
			"With --staged an error HEAD already holds (a secret of a kind lore learnt to see later, a commit\n" +
			"made with --no-verify) does not block every unrelated commit: it is counted in one line, and\n" +
			"lore validate without --staged lists it. It says nothing when all is well.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "staged", Usage: "check the staged files (the git index), not the working files"},
			formatFlag("text", formats...),
		},
		Action: func(c *cli.Context) error {
			if err := checkFormat(c.String("format"), formats...); err != nil {
				return err
			}
			opts := validateOptions{staged: c.Bool("staged"), paths: c.Args().Slice(), format: c.String("format")}
			return runWith(e, globalsFrom(c), opts, runValidate)
		},
	}
}

type validateOptions struct {
	staged bool
	paths  []string // relative to the working directory; none: the whole store
	format string
}

func runValidate(e *env, g globals, opts validateOptions) error {
	s, err := g.open(e, true)
	if err != nil {
		return err
	}
	only, err := storePaths(e, s, opts.paths)
	if err != nil {
		return err
	}
	if opts.staged {
		// The pre-commit hook: what a git command racing lore's commits
		// left staged is put right before the commit reads the index.
		stale, merged, err := s.RepairBeforeCommit()
		if err != nil {
			g.printer(e).Notice("could not repair git's index: " + err.Error())
		}
		for _, line := range mdstore.Repaired(stale, merged) {
			g.printer(e).Notice(line)
		}
	}
	files, err := s.ValidationFiles(opts.staged)
	if err != nil {
		return err
	}
	var problems []entry.Problem
	for _, p := range entry.Validate(files, validateOther) {
		if only(p.Path) {
			problems = append(problems, p)
		}
	}
	if !opts.staged && len(opts.paths) == 0 {
		aside, err := setAsideProblems(s)
		if err != nil {
			return err
		}
		problems = append(problems, aside...)
	}
	elsewhere := 0
	if opts.staged {
		problems, elsewhere = entry.InChanges(files, problems)
		dropping, err := s.DroppingProblems()
		if err != nil {
			return err
		}
		for _, pr := range dropping {
			if only(pr.Path) {
				problems = append(problems, pr)
			}
		}
	}
	p := g.printer(e)
	if elsewhere > 0 {
		p.Notice(fmt.Sprintf("%d %s in files this commit does not change %s not checked here (lore validate lists them)",
			elsewhere, words.Plural(elsewhere, "error", "errors"), words.Plural(elsewhere, "is", "are")))
	}
	if opts.format == "json" {
		if problems == nil {
			problems = []entry.Problem{}
		}
		if err := writeJSON(p.out, problems); err != nil {
			return err
		}
	} else {
		errs := 0
		for _, pr := range problems {
			fmt.Fprintln(p.out, pr)
			if pr.Severity == entry.SeverityError {
				errs++
			}
		}
		what := words.Plural(len(files), "file", "files")
		if opts.staged {
			what = words.Plural(len(files), "staged file", "staged files")
		}
		switch {
		case len(problems) == 0 && opts.staged:
			// A pre-commit hook says nothing when all is well.
		case len(problems) == 0:
			p.Notice(fmt.Sprintf("%d %s checked: no problems", len(files), what))
		default:
			p.Notice(fmt.Sprintf("%d %s checked: %d %s, %d %s", len(files), what,
				errs, words.Plural(errs, "error", "errors"), len(problems)-errs, words.Plural(len(problems)-errs, "warning", "warnings")))
		}
	}
	if entry.HasErrors(problems) {
		return &reportedError{code: exitFailure}
	}
	return nil
}

// storePaths turns the PATH arguments (relative to the working directory)
// into a test on store paths; no arguments take every path.
func storePaths(e *env, s *mdstore.Store, args []string) (func(string) bool, error) {
	if len(args) == 0 {
		return func(string) bool { return true }, nil
	}
	var prefixes []string
	for _, a := range args {
		abs := a
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(e.workDir, a)
		}
		rel, err := filepath.Rel(s.Root(), abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, usagef("%s is outside the store at %s", a, s.Root())
		}
		prefixes = append(prefixes, filepath.ToSlash(rel))
	}
	return func(p string) bool {
		for _, pre := range prefixes {
			if pre == "." || p == pre || strings.HasPrefix(p, pre+"/") {
				return true
			}
		}
		return false
	}, nil
}

// setAsideProblems are the changes lore set aside (Store.SetAside) as
// lore validate reports them: an error each, naming its file (relative to
// the store's root when it is below it), why, and what to do.
func setAsideProblems(s *mdstore.Store) ([]entry.Problem, error) {
	recs, err := s.SetAside()
	if err != nil {
		return nil, fmt.Errorf("read the changes lore set aside: %w", err)
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(s.Root(), p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(r)
		}
		return p
	}
	var out []entry.Problem
	for _, r := range recs {
		pending := filepath.Dir(filepath.Dir(r.Path))
		msg := fmt.Sprintf("a change lore acknowledged and cannot commit, set aside: %s; mend it (its edits are JSON) and move it back to %s for lore's next command to commit it, or delete it",
			r.Why, rel(pending))
		if gitx.IsIntentFile(r.Name) {
			msg = fmt.Sprintf("the record of a write a kill left unfinished, which lore could not finish or undo, set aside: %s; check the files it names with git status, then delete it", r.Why)
		}
		out = append(out, entry.Problem{Path: rel(r.Path), Severity: entry.SeverityError, Message: msg})
	}
	return out, nil
}

// validateOther judges the store files whose formats are not entries'.
func validateOther(f entry.File) []entry.Problem {
	if f.Path == cites.Path {
		return cites.Validate(f)
	}
	return config.Validate(f)
}
