package prompt

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"lore/mdstore/catalog"
	"lore/mdstore/entry"
)

// Heading levels of a prime: every section's heading at one level (2
// unless Options.HeadingLevel says otherwise), its entries one level
// below; memories sit under their type's heading, one level further.
// Seed 002's examples nest the sections under an orchestrator's
// "## Assigned Task", at level 3.
const (
	DefaultHeadingLevel = 2
	MaxHeadingLevel     = 4 // a memory sits two levels below its section, and Markdown has six
)

// outline is the heading level of a prime's sections.
type outline int

// outlineAt is the outline of a heading level, DefaultHeadingLevel for 0
// or a level Markdown cannot nest (ValidHeadingLevel says which).
func outlineAt(level int) outline {
	if !ValidHeadingLevel(level) {
		return DefaultHeadingLevel
	}
	return outline(level)
}

// ValidHeadingLevel says whether level can be a prime's section level.
func ValidHeadingLevel(level int) bool { return level >= 1 && level <= MaxHeadingLevel }

// heading is a Markdown heading depth levels below the sections'.
func (o outline) heading(depth int, text string) string {
	return strings.Repeat("#", int(o)+depth) + " " + text + "\n"
}

func (o outline) section(text string) string { return o.heading(0, text) }
func (o outline) entry(text string) string   { return o.heading(1, text) }

// Section headings, as the seeds word them.
func (o outline) knowledgeHead() string { return o.section("Project Knowledge") }
func (o outline) journalHead() string   { return o.section("Run Journal") }
func (o outline) learningsHead() string {
	return o.section("Learnings from Previous Iterations") + "\n"
}
func (o outline) skillsHead() string {
	return o.section("Available Skills") + "\nThe following skills are available. Read the full SKILL.md for details when relevant.\n\n"
}

// KnowledgeSection renders knowledge entries as seed 000's
// "## Project Knowledge" section; "" when there are none.
func KnowledgeSection(ks []entry.Knowledge) string {
	o := outline(DefaultHeadingLevel)
	return fitSection(o.knowledgeHead(), o.knowledgeBlocks(ks), math.MaxInt, func(int) string { return "" }).md
}

func (o outline) knowledgeBlocks(ks []entry.Knowledge) []string {
	blocks := make([]string, len(ks))
	for i, k := range ks {
		blocks[i] = "\n" + o.knowledgeBlock(k)
	}
	return blocks
}

// KnowledgeBlock renders one entry: its title, its tags, its body.
func KnowledgeBlock(k entry.Knowledge) string {
	return outline(DefaultHeadingLevel).knowledgeBlock(k)
}

func (o outline) knowledgeBlock(k entry.Knowledge) string {
	return fmt.Sprintf("%s_Tags: %s_\n\n%s\n", o.entry(k.Title), strings.Join(k.Tags, ", "), k.Body)
}

// knowledgeChars is runeLen("\n" + o.knowledgeBlock(k)) less the heading
// level o, the length of the block of the entry of head h in the section,
// without writing it: the heading, the tags line and the body, each
// between ASCII characters (so that their runes add up).
func knowledgeChars(h *catalog.Head) int {
	n := 1 + 1 + 1 + runeLen(h.Title) + 1 + runeLen("_Tags: _\n\n") + h.BodyChars + 1
	for i, t := range h.Tags {
		if i > 0 {
			n += 2
		}
		n += runeLen(t)
	}
	return n
}

// JournalSection renders journal entries as seed 000's "## Run Journal"
// section, in the order given; "" when there are none.
func JournalSection(es []entry.JournalEntry) string {
	o := outline(DefaultHeadingLevel)
	blocks := make([]string, len(es))
	for i, e := range es {
		blocks[i] = "\n" + o.journalBlock(e)
	}
	return fitSection(o.journalHead(), blocks, math.MaxInt, func(int) string { return "" }).md
}

// JournalBlock renders one iteration. The cost is shown only when it is
// not zero (seed 000); empty fields are left out. Notes of one line follow
// "**Notes**:"; longer ones are a block under it. A failed iteration
// without notes says why it failed, from its failure report.
func JournalBlock(e entry.JournalEntry) string {
	return outline(DefaultHeadingLevel).journalBlock(e)
}

// iterationHeading is an iteration's number and outcome, marked when lore
// revert undid what it wrote to the store.
func iterationHeading(e entry.JournalEntry) string {
	h := fmt.Sprintf("Iteration %d [%s]", e.Iteration, e.Outcome)
	if e.RevertedAt != "" {
		h += " (reverted)"
	}
	return h
}

func (o outline) journalBlock(e entry.JournalEntry) string {
	var b strings.Builder
	b.WriteString(o.entry(iterationHeading(e)))
	if e.TaskID != "" {
		fmt.Fprintf(&b, "- **Task**: %s\n", e.TaskID)
	}
	if e.Model != "" {
		fmt.Fprintf(&b, "- **Model**: %s\n", e.Model)
	}
	duration := "- **Duration**: " + strconv.FormatFloat(e.DurationSecs, 'f', 1, 64) + "s"
	if e.CostUSD != 0 {
		duration += fmt.Sprintf(" | **Cost**: $%.4f", e.CostUSD)
	}
	b.WriteString(duration + "\n")
	if len(e.FilesModified) > 0 {
		fmt.Fprintf(&b, "- **Files**: %s\n", strings.Join(e.FilesModified, ", "))
	}
	notes := strings.TrimSpace(e.Notes)
	if notes == "" && e.Failure != nil {
		if why := strings.Join(strings.Fields(e.Failure.WhyFailed), " "); why != "" {
			fmt.Fprintf(&b, "- **Why it failed**: %s\n", why)
		}
	}
	writeNotes(&b, notes)
	return b.String()
}

// writeNotes writes notes as a list item: one line after "**Notes**:",
// several as a block inside the item, their lines, lists and code fences
// as they were written.
func writeNotes(b *strings.Builder, notes string) {
	switch {
	case strings.Contains(notes, "\n"):
		b.WriteString("- **Notes**:\n\n")
		for _, line := range strings.Split(notes, "\n") {
			if strings.TrimSpace(line) == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString("  " + line + "\n")
		}
	case notes != "":
		fmt.Fprintf(b, "- **Notes**: %s\n", notes)
	}
}

// LearningsSection renders learnings as seed 002's "Learnings from
// Previous Iterations" list; "" when there are none.
func LearningsSection(ls []entry.Learning) string {
	o := outline(DefaultHeadingLevel)
	return fitSection(o.learningsHead(), learningLines(ls), math.MaxInt, func(int) string { return "" }).md
}

func learningLines(ls []entry.Learning) []string {
	lines := make([]string, len(ls))
	for i, l := range ls {
		lines[i] = LearningLine(l)
	}
	return lines
}

// LearningLine renders one learning as "- **[category]** text".
func LearningLine(l entry.Learning) string {
	return fmt.Sprintf("- **[%s]** %s\n", l.Category, strings.Join(strings.Fields(l.Body), " "))
}

// SkillsSection renders skills as seed 003's "## Available Skills": name
// and description only; "" when there are none.
func SkillsSection(skills []entry.Skill) string {
	o := outline(DefaultHeadingLevel)
	return fitSection(o.skillsHead(), skillLines(skills), math.MaxInt, func(int) string { return "" }).md
}

func skillLines(skills []entry.Skill) []string {
	lines := make([]string, len(skills))
	for i, s := range skills {
		lines[i] = fmt.Sprintf("- **%s**: %s (`%s`)\n", s.Name, s.Description, s.Path)
	}
	return lines
}
