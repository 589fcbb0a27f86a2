package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/loop"
	"lore/mdstore/config"
	"lore/mdstore/entry"
	"lore/prompt"
	"lore/strategy"
)

func statusCommand(e *env) *cli.Command {
	formats := []string{"text", "json"}
	return &cli.Command{
		Name:      "status",
		Usage:     "print how a task and the run are doing, and the model for the next attempt",
		UsageText: "lore status [--task ID] [--run R] [--iteration N] [--limit N] [--strategy S] [--format text|json]",
		Description: `The Loop Status block prime shows for a task (iteration of limit, attempt
number, consecutive failures, the run's success rate, the model and why, and
the stuck-loop warning after 3 consecutive failures), or with --format json
its figures: attempts, consecutive failures, stuck, the run's successes, the
model choice.`,
		Flags: append([]cli.Flag{formatFlag("text", formats...)}, taskFlags...),
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("status takes no arguments; name the task with --task")
			}
			if err := checkFormat(c.String("format"), formats...); err != nil {
				return err
			}
			loop, err := loopInput(c)
			if err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), statusOptions{loop: loop, format: c.String("format")}, runStatus)
		},
	}
}

type statusOptions struct {
	loop   strategy.Input
	format string
}

func runStatus(e *env, g globals, opts statusOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	st, in, err := loop.Status(s, opts.loop, p)
	if err != nil {
		return err
	}
	if opts.format == "json" {
		return writeJSON(p.out, st)
	}
	fmt.Fprint(p.out, prompt.LoopStatus(st, in.TaskID))
	return nil
}

func modelCommand(e *env) *cli.Command {
	formats := []string{"text", "json"}
	return &cli.Command{
		Name:      "model",
		Usage:     "print the model the next attempt at a task should use, and why",
		UsageText: "lore model --task ID [--strategy cost-optimized|escalate|fixed] [--hint MODEL] [--format text|json]",
		Description: "cost-optimized: sonnet; opus after 2 consecutive failures; haiku when the run's recent\n" +
			"success rate is over 80% with no failures. escalate: haiku, sonnet after 1 failure, opus after 2.\n" +
			"fixed: sonnet. A hint (or the agent's <next-model> in the last iteration) wins.\n\n" +
			"lore chooses only among the models in .agent/config.yaml (models:, cheapest first; default\n" +
			"haiku, sonnet, opus). With another list, haiku stands for the first, opus for the last and\n" +
			"sonnet for the one in the middle (at half the list's length): with [gpt-4o-mini, gpt-4o],\n" +
			"gpt-4o-mini, then gpt-4o. A hint counts as the model it names (claude-opus-4-1 is opus); a\n" +
			"<next-model> that is none of them is ignored, a --hint that is none of them an error.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "hint", Usage: "a model asked for, one of config.yaml's models: it wins"},
			formatFlag("text", formats...),
		}, taskFlags...),
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("model takes no arguments; name the task with --task")
			}
			if err := checkFormat(c.String("format"), formats...); err != nil {
				return err
			}
			loop, err := loopInput(c)
			if err != nil {
				return err
			}
			loop.Hint = c.String("hint")
			return runWith(e, globalsFrom(c), modelOptions{loop: loop, format: c.String("format")}, runModel)
		},
	}
}

type modelOptions struct {
	loop   strategy.Input // with the --hint
	format string
}

func runModel(e *env, g globals, opts modelOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	if h := opts.loop.Hint; h != "" {
		if _, ok := config.ModelFamily(h, s.Config().Models); !ok {
			return usagef("--hint %q is not one of the models in %s (%s)", h, entry.ConfigPath, strings.Join(s.Config().Models, ", "))
		}
	}
	p := g.printer(e)
	st, _, err := loop.Status(s, opts.loop, p)
	if err != nil {
		return err
	}
	if opts.format == "json" {
		return writeJSON(p.out, st.Model)
	}
	fmt.Fprintf(p.out, "%s\t%s\n", st.Model.Model, st.Model.Reason)
	return nil
}
