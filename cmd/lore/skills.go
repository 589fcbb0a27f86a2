package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"lore/internal/words"
	"lore/mdstore/entry"
	"lore/prompt"
)

func skillsCommand(e *env) *cli.Command {
	formats := []string{"table", "json", "markdown"}
	return &cli.Command{
		Name:    "skills",
		Aliases: []string{"skill"},
		Usage:   "skills found in .agent/skills and .claude/skills",
		Subcommands: []*cli.Command{{
			Name:      "list",
			Usage:     "list skills with their descriptions",
			UsageText: "lore skills list [--format table|json|markdown]",
			Description: `The skills in .agent/skills/<name>/SKILL.md and .claude/skills/<name>/SKILL.md
(seed 003): the name and description of their frontmatter, "No description"
when it is missing or malformed. A skill linked from one of these
directories to the other is listed once.`,
			Flags: []cli.Flag{formatFlag("table", formats...)},
			Action: func(c *cli.Context) error {
				if err := checkFormat(c.String("format"), formats...); err != nil {
					return err
				}
				return runWith(e, globalsFrom(c), skillsListOptions{format: c.String("format")}, runSkillsList)
			},
		}},
	}
}

type skillsListOptions struct {
	format string
}

func runSkillsList(e *env, g globals, opts skillsListOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	skills, warnings, err := s.Skills()
	p.Warnings(warnings)
	if err != nil {
		return err
	}
	switch opts.format {
	case "json":
		if skills == nil {
			skills = []entry.Skill{}
		}
		return writeJSON(p.out, skills)
	case "markdown":
		fmt.Fprint(p.out, prompt.SkillsSection(skills))
		return nil
	}
	if len(skills) == 0 {
		fmt.Fprintln(p.out, "No skills. A skill is <dir>/<name>/SKILL.md under .agent/skills or .claude/skills.")
		return nil
	}
	var rows [][]string
	for _, sk := range skills {
		rows = append(rows, []string{p.paint(ansiYellow, sk.Name), words.FirstLine(sk.Description, 70), p.paint(ansiDim, sk.Path)})
	}
	p.table([]string{"NAME", "DESCRIPTION", "FILE"}, rows)
	return nil
}
