package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"lore/internal/words"
	"lore/mdstore/resolve"
)

// --- resolve ---

type resolveOptions struct {
	paths  []string // relative to the working directory
	dryRun bool
	format string
}

func resolveCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "resolve",
		Usage:     "merge again, entry by entry, the .agent/ files git left in conflict, and stage them",
		UsageText: "lore resolve [PATH…] [--dry-run] [--format text|json]",
		Description: "A clone that merged before lore registered its merge driver there (a fresh clone in which no\n" +
			"lore command ran yet), or whose driver found no lore, merges memories.md line by line, and two\n" +
			"branches that both added memories conflict. While the merge (or rebase, cherry-pick, stash pop)\n" +
			"is not concluded, git's index still holds the three versions of each conflicted file (base, ours,\n" +
			"theirs): lore resolve merges them as the merge driver does, memory by memory and field by field,\n" +
			"writes the result over git's and stages it, so that git commit (or git rebase --continue)\n" +
			"concludes. A file in which the same entry was changed differently on both sides stays in\n" +
			"conflict, with markers around that entry alone (edit it, then git add it); a file whose markers\n" +
			"you already took out is left as it is. PATHs narrow it to those files or directories. The exit\n" +
			"status is 1 when a file stays in conflict. Once the merge is committed with markers in it, the\n" +
			"three versions are gone: resolve the markers by hand (lore validate finds them).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "say what would be merged, and write nothing"},
			formatFlag("text", "text", "json"),
		},
		Action: func(c *cli.Context) error {
			if err := checkFormat(c.String("format"), "text", "json"); err != nil {
				return err
			}
			opts := resolveOptions{dryRun: c.Bool("dry-run"), format: c.String("format")}
			if c.Args().Present() {
				opts.paths = c.Args().Slice()
			}
			return runWith(e, globalsFrom(c), opts, runResolve)
		},
	}
}

func runResolve(e *env, g globals, opts resolveOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	var paths []string
	for _, p := range opts.paths {
		if !s.InRepository() {
			break
		}
		rel, err := s.Repo().Rel(e.abs(p))
		if err != nil {
			return usagef("%s", err)
		}
		paths = append(paths, rel)
	}
	plan, err := resolve.PlanResolve(s, paths)
	if errors.Is(err, resolve.ErrNotRepository) {
		return fmt.Errorf("lore resolve merges what git left in conflict, and %s is not in a git repository", s.Root())
	}
	if err != nil {
		return err
	}
	if !opts.dryRun {
		if err := plan.Apply(); err != nil {
			return err
		}
	}
	p := g.printer(e)
	if opts.format == "json" {
		if plan.Files == nil {
			plan.Files = []resolve.File{}
		}
		if err := writeJSON(p.out, plan); err != nil {
			return err
		}
	} else {
		printResolved(p, plan, opts.dryRun)
	}
	if plan.Unsettled() > 0 {
		return &reportedError{code: exitFailure}
	}
	return nil
}

func printResolved(p *printer, plan *resolve.Plan, dryRun bool) {
	if len(plan.Files) == 0 {
		fmt.Fprintln(p.out, "No file of .agent/ is in conflict.")
		return
	}
	merged, staged := "merged entry by entry and staged", "Merged"
	if dryRun {
		merged, staged = "would be merged entry by entry and staged", "Would merge"
	}
	for _, f := range plan.Files {
		var what string
		switch f.Action {
		case resolve.Merged:
			what = merged
			if f.Deleted {
				what = "deleted, as the merge says (one side deleted it, the other left it alone)"
			}
		case resolve.Narrowed:
			what = fmt.Sprintf("%d %s changed differently on both sides %s in conflict, between markers around %s alone: edit the file, then git add it",
				f.Conflicts, words.Plural(f.Conflicts, "entry", "entries"), words.Plural(f.Conflicts, "stays", "stay"), words.Plural(f.Conflicts, "it", "them"))
			if f.Note != "" {
				what = "stays in conflict: " + f.Note
			}
		default:
			what = "left as it is: " + f.Reason
		}
		fmt.Fprintf(p.out, "%s: %s\n", f.Path, what)
		for _, r := range f.Renamed {
			fmt.Fprintf(p.out, "  %s\n", r)
		}
	}
	n := len(plan.Files) - plan.Unsettled()
	fmt.Fprintf(p.out, "%s %d of %d conflicted %s of .agent/.", staged, n, len(plan.Files), words.Plural(len(plan.Files), "file", "files"))
	if next := concludes(plan.Operation); next != "" && plan.Unsettled() == 0 && !dryRun {
		fmt.Fprintf(p.out, " %s.", next)
	}
	fmt.Fprintln(p.out)
}

// concludes is the git command that goes on with operation once its
// conflicts are settled.
func concludes(operation string) string {
	switch operation {
	case "a merge":
		return "git commit concludes the merge"
	case "a rebase":
		return "git rebase --continue goes on with the rebase"
	case "a rebase or am":
		return "git rebase --continue (or git am --continue) goes on"
	case "a cherry-pick", "a cherry-pick or revert sequence":
		return "git cherry-pick --continue goes on"
	case "a revert":
		return "git revert --continue goes on"
	}
	return ""
}
