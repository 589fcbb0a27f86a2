package main

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"lore/hooks"
	"lore/internal/gitx"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// --- hooks ---

type hooksOptions struct {
	git, claude, mcp bool
	format           string
}

func hooksCommand(e *env) *cli.Command {
	which := func(c *cli.Context) hooksOptions {
		o := hooksOptions{git: c.Bool("git"), claude: c.Bool("claude"), mcp: c.Bool("mcp"), format: c.String("format")}
		if !o.git && !o.claude && !o.mcp {
			o.git = true
		}
		return o
	}
	flags := func(git string) []cli.Flag {
		return []cli.Flag{
			&cli.BoolFlag{Name: "git", Usage: git},
			&cli.BoolFlag{Name: "claude", Usage: "Claude Code's hooks in .claude/settings.json"},
			&cli.BoolFlag{Name: "mcp", Usage: "lore's MCP server (lore mcp) in the project's .mcp.json, as Claude Code reads it"},
		}
	}
	return &cli.Command{
		Name:  "hooks",
		Usage: "git hooks, the merge driver and Claude Code hooks: install, uninstall, status",
		Description: "git: pre-commit runs lore validate --staged (a commit that changes a memory file so\n" +
			"that it is broken or holds a secret is refused); post-merge, post-checkout and post-rewrite\n" +
			"refresh the search index in the background. In .git/hooks the hooks run the lore that installed\n" +
			"them, by its absolute path (GUI clients and IDEs often have no lore on PATH), else lore on PATH;\n" +
			"hooks the project shares (core.hooksPath in the worktree: husky's .husky/, where husky 9's\n" +
			".husky/_ runs .husky/<hook>) run lore on PATH and name no one's path. With no lore to run,\n" +
			"pre-commit lets through a commit that changes nothing in .agent/ and refuses one that does,\n" +
			"saying how to install lore (git commit --no-verify skips it); the others do nothing. A lore\n" +
			"built by go run is never recorded: the hooks and the merge driver run lore on PATH instead.\n" +
			"A hook of yours is kept: lore's lines go into it between marker comments (or, for a hook that\n" +
			"is not a shell script, yours is kept beside lore's and called after it). install also\n" +
			"registers lore's merge driver in .git/config and adds its lines to .gitattributes (one\n" +
			"commit). --claude: a SessionStart hook running lore\n" +
			"prime --hook claude and a Stop hook running lore ingest --hook claude in\n" +
			".claude/settings.json, merged into your settings. --mcp: lore's MCP server (lore mcp) under\n" +
			"\"mcpServers\" in the project's .mcp.json, merged likewise. Installing twice changes nothing (installing\n" +
			"with another lore records that one); uninstall removes only the hooks lore added: the merge\n" +
			"driver stays registered, as lore init set it up with the store and .gitattributes, committed,\n" +
			"sends the files to it. status says what is installed, and which lore the hooks run.",
		Subcommands: []*cli.Command{
			{
				Name:      "install",
				Usage:     "install lore's git hooks and merge driver (the default), Claude Code's hooks (--claude), lore's MCP server in .mcp.json (--mcp)",
				UsageText: "lore hooks install [--git] [--claude] [--mcp]",
				Flags:     flags("git's hooks and merge driver (the default)"),
				Action: func(c *cli.Context) error {
					return runWith(e, globalsFrom(c), which(c), runHooksInstall)
				},
			},
			{
				Name:      "uninstall",
				Usage:     "remove the hooks lore hooks install added (the merge driver and .gitattributes stay: they belong to the store)",
				UsageText: "lore hooks uninstall [--git] [--claude] [--mcp]",
				Flags:     flags("git's hooks (the default)"),
				Action: func(c *cli.Context) error {
					return runWith(e, globalsFrom(c), which(c), runHooksUninstall)
				},
			},
			{
				Name:      "status",
				Usage:     "what is installed where, and which lore the hooks run",
				UsageText: "lore hooks status [--format text|json]",
				Flags:     []cli.Flag{formatFlag("text", "text", "json")},
				Action: func(c *cli.Context) error {
					if err := checkFormat(c.String("format"), "text", "json"); err != nil {
						return err
					}
					return runWith(e, globalsFrom(c), hooksStatusOptions{format: c.String("format")}, runHooksStatus)
				},
			},
		},
	}
}

func runHooksInstall(e *env, g globals, opts hooksOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	if opts.git {
		if !s.InRepository() {
			return fmt.Errorf("lore hooks install needs a git repository (%s is not in one); use --claude for Claude Code's hooks alone", s.Root())
		}
		lore, loreErr := e.resolveLore()
		dir, shared := hooks.GitHooksDir(s.Repo())
		setup := hooks.HookSetup{Store: storeDir(s)}
		if !shared {
			setup.Lore = lore // a hook of this clone's own may run this lore by its path
		}
		changes, err := hooks.InstallGitHooks(dir, setup)
		printHookChanges(p, e, changes)
		noticeTrackedHooks(p, e, s.Repo(), changes, true)
		if err != nil {
			return err
		}
		noticeGoRun(p, loreErr)
		if hooks.PreCommitFramework(dir) {
			p.Notice(relPath(e, filepath.Join(dir, "pre-commit")) + " is the pre-commit framework's: pre-commit install writes it again without lore's lines; " +
				"to share lore's check with the team, add lore's hook lore-validate to .pre-commit-config.yaml (see lore's .pre-commit-hooks.yaml)")
		}
		if changed, err := hooks.RegisterMergeDriver(s.Repo(), lore); err != nil {
			return err
		} else if changed {
			fmt.Fprintln(p.out, "merge driver: registered in .git/config ([merge \"lore\"])")
		}
		changed, res, err := s.EditFiles(hooks.AttributesEdit)
		if err != nil {
			return err
		}
		printNotices(p, res)
		if changed {
			fmt.Fprintf(p.out, "%s: added lore's merge lines%s\n", entry.AttributesPath, commitNote(res))
		}
		if _, err := exec.LookPath("lore"); err != nil && setup.Lore == "" {
			what := "cannot tell where this lore is"
			if shared {
				what = "the hooks are the project's, so they run lore on PATH"
			}
			p.Notice(what + ", and lore is not on PATH: the pre-commit hook will refuse commits that change " + entry.Dir + "/ until it is (go install ./cmd/... puts it in $(go env GOPATH)/bin)")
		}
	}
	if opts.claude {
		path := hooks.ClaudeSettingsPath(s.Root())
		changed, err := hooks.InstallClaude(path)
		if err != nil {
			return err
		}
		if changed {
			fmt.Fprintf(p.out, "Claude Code: added the SessionStart and Stop hooks to %s\n", relPath(e, path))
		} else {
			fmt.Fprintf(p.out, "Claude Code: %s already has lore's hooks\n", relPath(e, path))
		}
	}
	if opts.mcp {
		path := hooks.MCPConfigPath(s.Root())
		changed, err := hooks.InstallMCP(path)
		if err != nil {
			return err
		}
		if changed {
			fmt.Fprintf(p.out, "MCP: added lore's server (lore mcp) to %s\n", relPath(e, path))
		} else {
			fmt.Fprintf(p.out, "MCP: %s already lists a server named lore\n", relPath(e, path))
		}
	}
	return nil
}

func runHooksUninstall(e *env, g globals, opts hooksOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	if opts.git && s.InRepository() {
		dir, _ := hooks.GitHooksDir(s.Repo())
		changes, err := hooks.UninstallGitHooks(dir)
		printHookChanges(p, e, changes)
		noticeTrackedHooks(p, e, s.Repo(), changes, false)
		if err != nil {
			return err
		}
	}
	if opts.claude {
		path := hooks.ClaudeSettingsPath(s.Root())
		changed, err := hooks.UninstallClaude(path)
		if err != nil {
			return err
		}
		if changed {
			fmt.Fprintf(p.out, "Claude Code: removed lore's hooks from %s\n", relPath(e, path))
		}
	}
	if opts.mcp {
		path := hooks.MCPConfigPath(s.Root())
		changed, err := hooks.UninstallMCP(path)
		if err != nil {
			return err
		}
		if changed {
			fmt.Fprintf(p.out, "MCP: removed lore's server from %s\n", relPath(e, path))
		}
	}
	return nil
}

// loreBinary is the path of the running lore, symlinks resolved, for the
// hooks and the merge driver to run it by (hooks.LoreBinary); "" when it
// cannot be told or is a build of go run: they then run lore on PATH.
func (e *env) loreBinary() string {
	lore, _ := e.resolveLore()
	return lore
}

// resolveLore is loreBinary, with the reason it is "".
func (e *env) resolveLore() (string, error) {
	if e.executable == nil {
		return "", errors.New("the running lore cannot be told")
	}
	exe, err := e.executable()
	if err != nil {
		return "", err
	}
	return hooks.LoreBinary(exe)
}

// noticeGoRun says that a lore go run built was not recorded (err is
// resolveLore's).
func noticeGoRun(p *printer, err error) {
	var goRun *hooks.GoRunError
	if errors.As(err, &goRun) {
		p.Notice("this lore is a build of go run (" + goRun.Path + "), which does not last: the hooks and the merge driver run lore on PATH instead (go install ./cmd/... puts it there)")
	}
}

// storeDir is the store's directory relative to the top of the worktree,
// "" at the top.
func storeDir(s *mdstore.Store) string {
	_, prefix := s.GitIndex()
	return prefix
}

// noticeTrackedHooks says which of the hook files lore changed git
// tracks: core.hooksPath inside the worktree (husky's .husky/, say) makes
// them files of the project, which the person reviews and commits.
func noticeTrackedHooks(p *printer, e *env, repo *gitx.Repo, changes []hooks.HookChange, installed bool) {
	var changed []string
	for _, c := range changes {
		if c.Action != "" {
			changed = append(changed, c.Path)
		}
	}
	if len(changed) == 0 {
		return
	}
	dir, err := repo.Rel(filepath.Dir(changed[0]))
	if err != nil {
		return // the hooks are outside the worktree (.git/hooks)
	}
	hooksPath, err := repo.Rel(repo.HooksDir())
	if err != nil {
		hooksPath = repo.HooksDir()
	}
	staged, err := repo.StagedFiles(dir)
	if err != nil {
		return
	}
	tracked := map[string]bool{}
	for _, f := range staged {
		tracked[f.Path] = true
	}
	for _, path := range changed {
		if rel, err := repo.Rel(path); err == nil && tracked[rel] {
			what := "lore added its lines to it in the worktree only; they run lore on PATH, and without it let through a commit that changes nothing in " + entry.Dir + "/; " +
				"review them with git diff and commit them to share lore's hook with the team, or run lore hooks uninstall to take them out"
			if !installed {
				what = "lore took its lines out of it in the worktree only; commit that to take lore's hook out for the team too"
			}
			p.Notice(fmt.Sprintf("%s is a file of the project (git tracks it; core.hooksPath is %s): %s", relPath(e, path), hooksPath, what))
		}
	}
}

func printHookChanges(p *printer, e *env, changes []hooks.HookChange) {
	for _, c := range changes {
		if c.Action != "" {
			fmt.Fprintf(p.out, "%s: %s %s\n", c.Name, c.Action, relPath(e, c.Path))
		}
	}
}

// commitNote is " (commit abc1234)" for a write that committed.
func commitNote(res *mdstore.WriteResult) string {
	if res == nil || res.Commit == "" {
		return ""
	}
	return " (commit " + res.Commit[:7] + ")"
}
