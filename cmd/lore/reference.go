package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"
)

// The command reference under docs/ is generated from the command tree,
// as git-bug generates its manual: docs/reference.md lists every command,
// and docs/commands/lore-<command>.md is one page per command of the app,
// its subcommands as sections. What a page says comes from the command's
// Usage (one line), UsageText (the synopsis), Description and flags — the
// same text --help prints — so the two cannot drift apart.
// TestCommandReference fails when docs/ is not what referencePages
// generates; go test ./cmd/lore -run TestCommandReference -update
// rewrites it.
//
// Descriptions are plain text for a terminal, written with Go doc
// comments' conventions, which the pages turn into Markdown: paragraphs
// are separated by a blank line, a paragraph whose lines are all indented
// is a code block (an example), and one whose lines start with "- " is a
// list. Everything else is prose, escaped so that <task-done> or a * in a
// path reads as written.

// commandNode is one command of the app and the names leading to it from
// the app ("journal", "add").
type commandNode struct {
	path []string
	cmd  *cli.Command
}

// commandTree lists every command and subcommand of cmds, depth first in
// the app's order, hidden ones too. It is the walk both the help goldens
// and the reference use, so that a new command gets both.
func commandTree(cmds []*cli.Command) []commandNode {
	var nodes []commandNode
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			path := append(prefix[:len(prefix):len(prefix)], c.Name)
			nodes = append(nodes, commandNode{path: path, cmd: c})
			walk(path, c.Subcommands)
		}
	}
	walk(nil, cmds)
	return nodes
}

// referenceDir is where the reference lives, relative to the repository.
const referenceDir = "docs"

// referenceHeader opens every generated page.
const referenceHeader = "<!-- Generated from lore's command tree (cmd/lore) by\n" +
	"     go test ./cmd/lore -run TestCommandReference -update\n" +
	"     Edit the commands' Usage, UsageText, Description and flags there, not this file. -->\n\n"

// commandTopics are the topic pages (relative to docs/) that tell the
// ideas behind each command, named at the end of its page.
var commandTopics = map[string][]string{
	"init":         {"file-formats.md", "commits.md"},
	"add":          {"file-formats.md", "commits.md"},
	"list":         {"file-formats.md"},
	"show":         {"file-formats.md"},
	"delete":       {"commits.md", "lifecycle.md"},
	"search":       {"search.md"},
	"index":        {"search.md"},
	"prime":        {"prime.md"},
	"knowledge":    {"file-formats.md"},
	"learning":     {"file-formats.md", "lifecycle.md"},
	"journal":      {"file-formats.md", "loop.md"},
	"skills":       {"file-formats.md"},
	"ingest":       {"loop.md", "sigils.md"},
	"run":          {"loop.md", "sigils.md"},
	"history":      {"lifecycle.md"},
	"restore":      {"lifecycle.md"},
	"stats":        {"lifecycle.md"},
	"export":       {"lifecycle.md"},
	"import":       {"lifecycle.md"},
	"prune":        {"lifecycle.md"},
	"extract":      {"lifecycle.md"},
	"status":       {"loop.md"},
	"model":        {"loop.md"},
	"usage":        {"lifecycle.md"},
	"validate":     {"file-formats.md", "hooks-and-mcp.md"},
	"hooks":        {"hooks-and-mcp.md"},
	"mcp":          {"hooks-and-mcp.md"},
	"merge-driver": {"commits.md", "hooks-and-mcp.md"},
}

// topicTitles name the topic pages in links.
var topicTitles = map[string]string{
	"file-formats.md":  "File formats",
	"commits.md":       "How lore commits",
	"search.md":        "Search",
	"prime.md":         "Prime",
	"sigils.md":        "Sigils",
	"hooks-and-mcp.md": "Hooks, the merge driver and MCP",
	"loop.md":          "The loop",
	"lifecycle.md":     "The lifecycle of entries",
}

// referencePages renders the reference of app: file names relative to
// the repository (docs/reference.md, docs/commands/lore-add.md, …) and
// their contents.
func referencePages(app *cli.App) map[string]string {
	pages := map[string]string{}
	var nodes []commandNode
	for _, n := range commandTree(app.Commands) {
		if !n.cmd.Hidden {
			nodes = append(nodes, n)
		}
	}

	var b strings.Builder
	b.WriteString(referenceHeader)
	fmt.Fprintf(&b, "# Command reference\n\n")
	fmt.Fprintf(&b, "%s\n\n", sentence(app.Usage))
	writeDescription(&b, app.Description)
	b.WriteString("Every command prints its own help with `--help`; this reference is the same text, " +
		"generated from the command tree. The ideas behind the commands are told in the topic pages " +
		"listed in the [README](../README.md#where-to-read-on).\n\n")
	b.WriteString("## Commands\n\n| Command | What it does |\n| --- | --- |\n")
	for _, n := range nodes {
		fmt.Fprintf(&b, "| [`%s`](%s) | %s |\n", "lore "+strings.Join(n.path, " "),
			commandLink("", n.path), cell(n.cmd.Usage))
	}
	b.WriteString("\n## Global flags\n\n" +
		"Global flags go before or after the command (`lore --root ../app list`, `lore list --root ../app`).\n\n")
	writeFlags(&b, app.Flags, [][3]string{
		{"`-h`, `--help`", "", "show help (every command has it)"},
		{"`-v`, `--version`", "", "print the version"},
	})
	b.WriteString("\n## Exit status\n\n")
	fmt.Fprintf(&b, "| Status | Meaning |\n| --- | --- |\n"+
		"| %d | success |\n"+
		"| %d | failure, or an entry not found |\n"+
		"| %d | usage: an unknown command or flag, a bad flag value, a missing argument, input lore refuses (nothing is written) |\n"+
		"| %d | `lore run`: blocked, the agent said neither `<task-done>` nor `<task-failed>` |\n"+
		"| %d | `lore run`: stuck, the task's third consecutive failure or more |\n"+
		"| %d | `lore run`: agent error, the agent did not run to the end (a crash, a rate limit, an empty output, a non-zero exit without a task sigil) |\n"+
		"| %d | `lore run`: interrupted (Ctrl-C or SIGTERM while the agent ran) |\n\n",
		exitOK, exitFailure, exitUsage, exitBlocked, exitStuck, exitAgentError, exitInterrupted)
	b.WriteString("Errors go to stderr as `Error: …`, naming the file and line when there is one " +
		"(`.agent/memories.md:14: tags contain '|'`) and never echoing a secret. " +
		"A problem lore can read past is a warning (`warning: .agent/memories.md:14: …`, " +
		"`warning: .agent/knowledge/x.md: skipped: a symbolic link`): every valid entry is still read, and the command goes on (exit 0).\n")
	pages[referenceDir+"/reference.md"] = b.String()

	for _, n := range nodes {
		if len(n.path) != 1 {
			continue
		}
		var p strings.Builder
		p.WriteString(referenceHeader)
		writeCommand(&p, n, nodes, 1)
		if topics := commandTopics[n.cmd.Name]; len(topics) > 0 {
			var links []string
			for _, t := range topics {
				links = append(links, fmt.Sprintf("[%s](../%s)", topicTitles[t], t))
			}
			fmt.Fprintf(&p, "---\n\nRead more: %s. All commands: [the reference](../reference.md); "+
				"every command also takes the [global flags](../reference.md#global-flags).\n", strings.Join(links, ", "))
		} else {
			p.WriteString("---\n\nAll commands: [the reference](../reference.md); " +
				"every command also takes the [global flags](../reference.md#global-flags).\n")
		}
		pages[referenceDir+"/commands/"+pageName(n.path[0])] = p.String()
	}
	return pages
}

// writeCommand writes the section of command n at heading level, then
// those of its subcommands one level below.
func writeCommand(b *strings.Builder, n commandNode, nodes []commandNode, level int) {
	c := n.cmd
	name := "lore " + strings.Join(n.path, " ")
	fmt.Fprintf(b, "%s %s\n\n", strings.Repeat("#", min(level, 6)), name)
	if c.Usage != "" {
		fmt.Fprintf(b, "%s\n\n", sentence(c.Usage))
	}
	if aliases := c.Aliases; len(aliases) > 0 {
		var as []string
		for _, a := range aliases {
			as = append(as, "`lore "+strings.Join(append(n.path[:len(n.path)-1:len(n.path)-1], a), " ")+"`")
		}
		fmt.Fprintf(b, "Also %s.\n\n", strings.Join(as, ", "))
	}
	if len(c.Subcommands) == 0 {
		synopsis := c.UsageText
		if synopsis == "" {
			synopsis = name + " [options]"
			if c.ArgsUsage != "" {
				synopsis += " " + c.ArgsUsage
			}
		}
		fmt.Fprintf(b, "```\n%s\n```\n\n", strings.TrimRight(synopsis, "\n"))
	}
	writeDescription(b, c.Description)
	if len(c.Subcommands) > 0 {
		b.WriteString("| Command | What it does |\n| --- | --- |\n")
		for _, s := range c.Subcommands {
			if s.Hidden {
				continue
			}
			path := append(n.path[:len(n.path):len(n.path)], s.Name)
			fmt.Fprintf(b, "| [`lore %s`](#%s) | %s |\n", strings.Join(path, " "), anchor("lore "+strings.Join(path, " ")), cell(s.Usage))
		}
		b.WriteString("\n")
	}
	if len(c.Flags) > 0 {
		writeFlags(b, c.Flags, nil)
		b.WriteString("\n")
	}
	for _, s := range nodes {
		if len(s.path) == len(n.path)+1 && slices.Equal(s.path[:len(n.path)], n.path) {
			writeCommand(b, s, nodes, level+1)
		}
	}
}

// writeFlags writes a table of flags and, after them, the extra rows
// (names, default, meaning), already Markdown.
func writeFlags(b *strings.Builder, flags []cli.Flag, extra [][3]string) {
	b.WriteString("| Flag | Default | Meaning |\n| --- | --- | --- |\n")
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		var names []string
		for _, n := range f.Names() {
			if len(n) == 1 {
				names = append(names, "`-"+n+"`")
			} else {
				names = append(names, "`--"+n+"`")
			}
		}
		usage, def := "", ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			usage = d.GetUsage()
			if d.TakesValue() && !strings.Contains(usage, "default:") {
				def = d.GetDefaultText()
				if u, err := strconv.Unquote(def); err == nil {
					def = u
				}
			}
			if env := d.GetEnvVars(); len(env) > 0 {
				usage += " (also $" + strings.Join(env, ", $") + ")"
			}
		}
		switch {
		case def == "":
		case strings.ContainsAny(def, " ;"):
			def = cell(def)
		default:
			def = "`" + def + "`"
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", strings.Join(names, ", "), def, cell(usage))
	}
	for _, row := range extra {
		fmt.Fprintf(b, "| %s | %s | %s |\n", row[0], row[1], row[2])
	}
}

// writeDescription turns a Description (see the conventions above) into
// Markdown blocks, each followed by a blank line.
func writeDescription(b *strings.Builder, text string) {
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(strings.Trim(para, "\n"), "\n")
		if len(lines) == 0 || strings.TrimSpace(para) == "" {
			continue
		}
		switch {
		case allIndented(lines):
			indent := len(lines[0]) - len(strings.TrimLeft(lines[0], " "))
			for _, l := range lines {
				indent = min(indent, len(l)-len(strings.TrimLeft(l, " ")))
			}
			b.WriteString("```\n")
			for _, l := range lines {
				b.WriteString(l[indent:] + "\n")
			}
			b.WriteString("```\n\n")
		case strings.HasPrefix(lines[0], "- "):
			for _, l := range lines {
				if item, ok := strings.CutPrefix(l, "- "); ok {
					b.WriteString("- " + escapeMarkdown(item) + "\n")
				} else {
					b.WriteString("  " + escapeMarkdown(strings.TrimSpace(l)) + "\n")
				}
			}
			b.WriteString("\n")
		default:
			for _, l := range lines {
				b.WriteString(escapeLineStart(escapeMarkdown(strings.TrimSpace(l))) + "\n")
			}
			b.WriteString("\n")
		}
	}
}

func allIndented(lines []string) bool {
	for _, l := range lines {
		if !strings.HasPrefix(l, "  ") {
			return false
		}
	}
	return true
}

// markdownSpecial are the characters prose escapes: those that would
// start emphasis, code, a link, an HTML tag (<task-done> would vanish),
// a strikethrough or math on GitHub.
var markdownSpecial = strings.NewReplacer(`\`, `\\`, "`", "\\`", `*`, `\*`, `<`, `\<`, `[`, `\[`, `~`, `\~`, `$`, `\$`)

func escapeMarkdown(s string) string { return markdownSpecial.Replace(s) }

// blockStart matches the start of a line that Markdown would read as a
// heading, a quote, a list item or a rule rather than as prose.
var blockStart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(#{1,6}(\s|$)|>|[-+](\s|$)|[-=_]{2,}\s*$|\d{1,9}[.)](\s|$))`)
})

func escapeLineStart(s string) string {
	m := blockStart().FindString(s)
	switch {
	case m == "":
		return s
	case m[0] >= '0' && m[0] <= '9':
		i := strings.IndexAny(s, ".)")
		return s[:i] + `\` + s[i:]
	}
	return `\` + s
}

// cell is text in a table cell: escaped, on one line, its pipes too.
func cell(s string) string {
	return strings.ReplaceAll(escapeMarkdown(strings.Join(strings.Fields(s), " ")), "|", `\|`)
}

// sentence makes a Usage line a sentence: capitalized, with a full stop.
func sentence(s string) string {
	s = escapeMarkdown(strings.TrimSpace(s))
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// pageName is the file of a top-level command's page.
func pageName(command string) string { return "lore-" + command + ".md" }

// commandLink is the link to a command's section from a page in dir
// ("" for docs/, "commands" for docs/commands/).
func commandLink(dir string, path []string) string {
	page := "commands/" + pageName(path[0])
	if dir == "commands" {
		page = pageName(path[0])
	}
	if len(path) == 1 {
		return page
	}
	return page + "#" + anchor("lore "+strings.Join(path, " "))
}

// anchor is the id GitHub gives a heading: lowercased, spaces made
// hyphens, punctuation other than - and _ dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
