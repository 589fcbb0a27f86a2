package prompt

import (
	"fmt"
	"strconv"
	"strings"

	"lore/mdstore"
)

// KnowledgeSection renders knowledge entries as seed 000's
// "## Project Knowledge" section; "" when there are none.
func KnowledgeSection(ks []mdstore.Knowledge) string {
	if len(ks) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Project Knowledge\n")
	for _, k := range ks {
		b.WriteString("\n" + KnowledgeBlock(k))
	}
	return b.String()
}

// KnowledgeBlock renders one entry: its title, its tags, its body.
func KnowledgeBlock(k mdstore.Knowledge) string {
	return fmt.Sprintf("### %s\n_Tags: %s_\n\n%s\n", k.Title, strings.Join(k.Tags, ", "), k.Body)
}

// JournalSection renders journal entries as seed 000's "## Run Journal"
// section, in the order given; "" when there are none.
func JournalSection(es []mdstore.JournalEntry) string {
	if len(es) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Run Journal\n")
	for _, e := range es {
		b.WriteString("\n" + JournalBlock(e))
	}
	return b.String()
}

// JournalBlock renders one iteration. The cost is shown only when it is
// not zero (seed 000); empty fields are left out.
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
	if e.Notes != "" {
		fmt.Fprintf(&b, "- **Notes**: %s\n", strings.Join(strings.Fields(e.Notes), " "))
	}
	return b.String()
}

// LearningsSection renders learnings as seed 002's "### Learnings from
// Previous Iterations" list; "" when there are none.
func LearningsSection(ls []mdstore.Learning) string {
	if len(ls) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Learnings from Previous Iterations\n\n")
	for _, l := range ls {
		b.WriteString(LearningLine(l))
	}
	return b.String()
}

// LearningLine renders one learning as "- **[category]** text".
func LearningLine(l mdstore.Learning) string {
	return fmt.Sprintf("- **[%s]** %s\n", l.Category, strings.Join(strings.Fields(l.Body), " "))
}

// SkillsSection renders skills as seed 003's "## Available Skills": name
// and description only; "" when there are none.
func SkillsSection(skills []mdstore.Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Available Skills\n\nThe following skills are available. Read the full SKILL.md for details when relevant.\n\n")
	for _, s := range skills {
		fmt.Fprintf(&b, "- **%s**: %s (`%s`)\n", s.Name, s.Description, s.Path)
	}
	return b.String()
}
