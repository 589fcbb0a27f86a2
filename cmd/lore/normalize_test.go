package main

import (
	"slices"
	"testing"
)

// TestNormalizeArgs: what normalizeArgs hands urfave/cli, which parses
// flags with Go's flag package: a command's flags must come before its
// first argument, a string flag takes the next argument whatever it is,
// a boolean flag takes none, "--" ends the flags, and the global flags
// (--root, --color) belong before the command.
func TestNormalizeArgs(t *testing.T) {
	e, _, _ := testEnv(t.TempDir())
	app := newApp(e)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"nothing", nil, nil},

		// Before the command: global flags stay where they are.
		{"global flags alone", []string{"--root", "sub"}, []string{"--root", "sub"}},
		{"global flag missing its value", []string{"--color"}, []string{"--color"}},
		{"global flag before the command", []string{"--root", "sub", "add", "x"}, []string{"--root", "sub", "add", "--", "x"}},
		{"global flag=value before the command", []string{"--color=never", "list"}, []string{"--color=never", "list"}},
		{"help before the command", []string{"-h", "add"}, []string{"-h", "add"}},
		// An unknown flag takes no value: the next word is the command.
		{"unknown global flag", []string{"--bogus", "list"}, []string{"--bogus", "list"}},
		// "never" is taken for the command; urfave/cli reports -colour.
		{"misspelt global flag with a value", []string{"--colour", "never", "add", "x"}, []string{"--colour", "never", "add", "x"}},
		// A command's flag before the command: not known there, left for
		// urfave/cli to report.
		{"command flag before the command", []string{"-t", "fix", "add", "x"}, []string{"-t", "fix", "add", "x"}},

		// An unknown command is left as it is: lore reports it.
		{"unknown command", []string{"remember", "x", "--type", "fix"}, []string{"remember", "x", "--type", "fix"}},
		{"-- before the command", []string{"--", "add", "x"}, []string{"--", "add", "x"}},
		{"- for a command", []string{"-"}, []string{"-"}},

		// After the command: flags first, then "--" and the arguments.
		{"command alone", []string{"list"}, []string{"list"}},
		{"flag after the argument", []string{"add", "text", "--type", "fix"}, []string{"add", "--type", "fix", "--", "text"}},
		{"arguments around flags", []string{"add", "barrel", "-t", "pattern", "exports", "--tags", "a,b"},
			[]string{"add", "-t", "pattern", "--tags", "a,b", "--", "barrel", "exports"}},
		{"flags only", []string{"list", "--last", "3", "--format", "json"}, []string{"list", "--last", "3", "--format", "json"}},
		{"short alias", []string{"add", "x", "-t", "fix"}, []string{"add", "-t", "fix", "--", "x"}},
		{"long flag with one dash", []string{"add", "x", "-type", "fix"}, []string{"add", "-type", "fix", "--", "x"}},
		{"flag=value", []string{"add", "text", "--type=fix"}, []string{"add", "--type=fix", "--", "text"}},
		{"flag=empty value", []string{"add", "text", "--tags="}, []string{"add", "--tags=", "--", "text"}},
		{"boolean flag takes no value", []string{"search", "--all", "barrel"}, []string{"search", "--all", "--", "barrel"}},
		{"boolean flag=false", []string{"search", "barrel", "--all=false"}, []string{"search", "--all=false", "--", "barrel"}},
		{"- is stdin, an argument", []string{"add", "-", "--type", "fix"}, []string{"add", "--type", "fix", "--", "-"}},
		{"an empty argument", []string{"add", "", "-t", "fix"}, []string{"add", "-t", "fix", "--", ""}},
		// As with Go's flag package, a string flag takes the next word even
		// when it looks like a flag, or is a negative number.
		{"value that looks like a flag", []string{"add", "x", "--tags", "--format"}, []string{"add", "--tags", "--format", "--", "x"}},
		{"negative value", []string{"journal", "add", "--iteration", "-1", "--outcome", "done"},
			[]string{"journal", "add", "--iteration", "-1", "--outcome", "done"}},
		{"-- as a flag's value", []string{"add", "--type", "--", "x"}, []string{"add", "--type", "--", "--", "x"}},
		// An unknown flag takes no value; urfave/cli reports it.
		{"unknown flag after the argument", []string{"add", "x", "--bogus", "y"}, []string{"add", "--bogus", "--", "x", "y"}},
		{"help after the argument", []string{"add", "x", "--help"}, []string{"add", "--help", "--", "x"}},
		// -v is a global flag only before the command (urfave/cli adds it
		// at set-up, after normalizeArgs ran).
		{"version after the command", []string{"add", "x", "-v"}, []string{"add", "-v", "--", "x"}},
		// A flag missing its value ends the arguments, so that urfave/cli
		// reports it: followed by "--" it would take "--" for its value (lore
		// add x --tags stored a memory tagged "--"), a global one would take
		// the command (lore add x --color: invalid --color "add").
		{"flag missing its value after the argument", []string{"add", "x", "--type"}, []string{"add", "--type"}},
		{"flag missing its value after a flag", []string{"add", "x", "-t", "fix", "--tags"}, []string{"add", "-t", "fix", "--tags"}},
		{"flag missing its value, no argument", []string{"list", "--last"}, []string{"list", "--last"}},
		{"global flag missing its value after the command", []string{"add", "x", "--color"}, []string{"--color"}},
		{"global flag missing its value after a subcommand", []string{"journal", "list", "x", "--root"}, []string{"--root"}},
		{"subcommand flag missing its value", []string{"knowledge", "add", "body", "--title"}, []string{"knowledge", "add", "--title"}},

		// "--" ends the flags: what follows is arguments, even flags.
		{"-- ends the flags", []string{"add", "--type", "fix", "--", "--not-a-flag", "-t"},
			[]string{"add", "--type", "fix", "--", "--not-a-flag", "-t"}},
		{"-- then a global flag", []string{"add", "--", "--root", "x"}, []string{"add", "--", "--root", "x"}},
		{"-- alone", []string{"add", "--"}, []string{"add"}},
		// lore run's arguments are the agent's command, after "--", which
		// is kept for its Action to see; without one, the command is left
		// as it is.
		{"run's command", []string{"run", "--task-id", "T-1", "--", "claude", "-p", "--root"},
			[]string{"run", "--task-id", "T-1", "--", "--", "claude", "-p", "--root"}},
		{"run's flags after the command", []string{"run", "--root", "sub", "--", "agent"}, []string{"--root", "sub", "run", "--", "--", "agent"}},
		{"run's command without --", []string{"run", "claude", "-p", "x", "--title", "T"}, []string{"run", "--", "claude", "-p", "x", "--title", "T"}},

		// Global flags after the command move before it.
		{"global flag after the command", []string{"add", "x", "--root", "sub"}, []string{"--root", "sub", "add", "--", "x"}},
		{"global flag=value after the command", []string{"list", "--color=never"}, []string{"--color=never", "list"}},
		{"global flags before and after", []string{"--color", "never", "add", "x", "--root", "sub", "-t", "fix"},
			[]string{"--color", "never", "--root", "sub", "add", "-t", "fix", "--", "x"}},

		// Subcommands: the path stays together, the subcommand's flags
		// follow it.
		{"command with subcommands alone", []string{"journal"}, []string{"journal"}},
		{"subcommand", []string{"journal", "list", "--run", "x"}, []string{"journal", "list", "--run", "x"}},
		{"subcommand, flags after the argument", []string{"knowledge", "add", "body text", "--title", "T", "--tags", "a"},
			[]string{"knowledge", "add", "--title", "T", "--tags", "a", "--", "body text"}},
		{"command alias", []string{"learnings", "list", "--status", "active"}, []string{"learnings", "list", "--status", "active"}},
		{"subcommand's name as an argument", []string{"knowledge", "add", "add", "--title", "T"},
			[]string{"knowledge", "add", "--title", "T", "--", "add"}},
		{"global flag after a subcommand", []string{"journal", "list", "--root", "sub", "--last", "2"},
			[]string{"--root", "sub", "journal", "list", "--last", "2"}},
		// An unknown subcommand is an argument of the parent, whose flags
		// (none) do not include --run: urfave/cli reports -run.
		{"unknown subcommand", []string{"journal", "bogus", "--run", "x"}, []string{"journal", "--run", "--", "bogus", "x"}},
		// Only the subcommand may follow the command: a global flag between
		// them ends the path, so the subcommand is taken for an argument of
		// the parent and its flags are the parent's (urfave/cli then reports
		// -run as not defined). Without flags after it, urfave/cli still
		// finds the subcommand among the parent's arguments.
		{"global flag between command and subcommand", []string{"journal", "--root", "sub", "list", "--run", "x"},
			[]string{"--root", "sub", "journal", "--run", "--", "list", "x"}},
		{"global flag between command and subcommand, no flags after", []string{"journal", "--root", "sub", "list"},
			[]string{"--root", "sub", "journal", "--", "list"}},
	} {
		got := normalizeArgs(app, slices.Clone(tc.args))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: normalizeArgs(%q)\n got %q\nwant %q", tc.name, tc.args, got, tc.want)
		}
	}
}
