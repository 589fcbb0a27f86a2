package prompt

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"lore/mdstore"
)

// Section headings, as the seeds write them.
const (
	knowledgeHead = "## Project Knowledge\n"
	journalHead   = "## Run Journal\n"
	learningsHead = "### Learnings from Previous Iterations\n\n"
	skillsHead    = "## Available Skills\n\nThe following skills are available. Read the full SKILL.md for details when relevant.\n\n"
)

// KnowledgeSection renders knowledge entries as seed 000's
// "## Project Knowledge" section; "" when there are none.
func KnowledgeSection(ks []mdstore.Knowledge) string {
	md := fitSection(knowledgeHead, knowledgeBlocks(ks), math.MaxInt, func(int) string { return "" }).md
	return md
}

func knowledgeBlocks(ks []mdstore.Knowledge) []string {
	blocks := make([]string, len(ks))
	for i, k := range ks {
		blocks[i] = "\n" + KnowledgeBlock(k)
	}
	return blocks
}

// KnowledgeBlock renders one entry: its title, its tags, its body.
func KnowledgeBlock(k mdstore.Knowledge) string {
	return fmt.Sprintf("### %s\n_Tags: %s_\n\n%s\n", k.Title, strings.Join(k.Tags, ", "), k.Body)
}

// JournalSection renders journal entries as seed 000's "## Run Journal"
// section, in the order given; "" when there are none.
func JournalSection(es []mdstore.JournalEntry) string {
	blocks := make([]string, len(es))
	for i, e := range es {
		blocks[i] = "\n" + JournalBlock(e)
	}
	md := fitSection(journalHead, blocks, math.MaxInt, func(int) string { return "" }).md
	return md
}

// JournalBlock renders one iteration. The cost is shown only when it is
// not zero (seed 000); empty fields are left out. Notes of one line follow
// "**Notes**:"; longer ones are a block under it.
func JournalBlock(e mdstore.JournalEntry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Iteration %d [%s]\n", e.Iteration, e.Outcome)
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
	switch notes := strings.TrimSpace(e.Notes); {
	case strings.Contains(notes, "\n"):
		// A note of several lines is a block inside the list item: its
		// lines, lists and code fences stay as they were written.
		b.WriteString("- **Notes**:\n\n")
		for _, line := range strings.Split(notes, "\n") {
			if strings.TrimSpace(line) == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString("  " + line + "\n")
		}
	case notes != "":
		fmt.Fprintf(&b, "- **Notes**: %s\n", notes)
	}
	return b.String()
}

// LearningsSection renders learnings as seed 002's "### Learnings from
// Previous Iterations" list; "" when there are none.
func LearningsSection(ls []mdstore.Learning) string {
	md := fitSection(learningsHead, learningLines(ls), math.MaxInt, func(int) string { return "" }).md
	return md
}

func learningLines(ls []mdstore.Learning) []string {
	lines := make([]string, len(ls))
	for i, l := range ls {
		lines[i] = LearningLine(l)
	}
	return lines
}

// LearningLine renders one learning as "- **[category]** text".
func LearningLine(l mdstore.Learning) string {
	return fmt.Sprintf("- **[%s]** %s\n", l.Category, strings.Join(strings.Fields(l.Body), " "))
}

// SkillsSection renders skills as seed 003's "## Available Skills": name
// and description only; "" when there are none.
func SkillsSection(skills []mdstore.Skill) string {
	md := fitSection(skillsHead, skillLines(skills), math.MaxInt, func(int) string { return "" }).md
	return md
}

func skillLines(skills []mdstore.Skill) []string {
	lines := make([]string, len(skills))
	for i, s := range skills {
		lines[i] = fmt.Sprintf("- **%s**: %s (`%s`)\n", s.Name, s.Description, s.Path)
	}
	return lines
}
