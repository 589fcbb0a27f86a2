package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"lore/hooks"
)

// lore hooks status: what is installed where, and which lore the hooks
// and the merge driver run.

// hooksStatus is `lore hooks status --format json`.
type hooksStatus struct {
	HooksDir string `json:"hooks_dir,omitempty"`
	// ProjectHooks: the hooks are files of the project's (husky's
	// .husky/), which run lore on PATH.
	ProjectHooks bool              `json:"project_hooks,omitempty"`
	Hooks        []hooks.HookState `json:"hooks"`
	// Lore is the lore the pre-commit hook runs, LoreFound whether it is
	// there, LoreOnPath the one on this process's PATH it falls back to.
	Lore            string          `json:"lore,omitempty"`
	LoreFound       bool            `json:"lore_found"`
	LoreOnPath      string          `json:"lore_on_path,omitempty"`
	MergeDriver     string          `json:"merge_driver"`
	MergeAttributes bool            `json:"merge_attributes"`
	Claude          map[string]bool `json:"claude"`
	ClaudeSettings  string          `json:"claude_settings"`
	MCP             bool            `json:"mcp"`
	MCPConfig       string          `json:"mcp_config"`
}

type hooksStatusOptions struct {
	format string
}

func runHooksStatus(e *env, g globals, opts hooksStatusOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	st := hooksStatus{ClaudeSettings: hooks.ClaudeSettingsPath(s.Root()), MCPConfig: hooks.MCPConfigPath(s.Root())}
	if s.InRepository() {
		st.HooksDir, st.ProjectHooks = hooks.GitHooksDir(s.Repo())
		st.MergeDriver = hooks.RegisteredMergeDriver(s.Repo())
		if st.Hooks, err = hooks.GitHooksStatus(st.HooksDir, storeDir(s)); err != nil {
			return err
		}
		for _, h := range st.Hooks {
			if h.Name == "pre-commit" {
				st.Lore, st.LoreFound = h.Lore, h.Lore != "" && hooks.LoreFound(h.Lore)
			}
		}
		st.LoreOnPath, _ = exec.LookPath("lore")
	}
	if st.MergeAttributes, err = hooks.HasMergeAttributes(s); err != nil {
		return err
	}
	if st.Claude, err = hooks.ClaudeStatus(st.ClaudeSettings); err != nil {
		return err
	}
	if st.MCP, err = hooks.MCPStatus(st.MCPConfig); err != nil {
		return err
	}
	if opts.format == "json" {
		if st.Hooks == nil {
			st.Hooks = []hooks.HookState{}
		}
		return writeJSON(p.out, st)
	}
	if st.HooksDir == "" {
		fmt.Fprintln(p.out, "Git hooks:    none (not a git repository)")
	} else {
		fmt.Fprintf(p.out, "Git hooks:    %s\n", relPath(e, st.HooksDir))
		for _, h := range st.Hooks {
			state := "not installed"
			switch {
			case h.Installed && h.Chained:
				state = "installed (calls your hook after lore's part: " + h.Name + ".lore-user)"
			case h.Installed && h.Shared:
				state = "installed (lore's lines in your hook)"
			case h.Installed:
				state = "installed"
			case h.Outdated:
				state = "an older version of lore's lines (lore hooks install updates them)"
			}
			fmt.Fprintf(p.out, "  %-14s %s\n", h.Name+":", state)
		}
		fmt.Fprintf(p.out, "  %-14s %s\n", "runs:", loreState(e, st))
	}
	driver := "not registered in this clone (lore init registers it)"
	if st.MergeDriver != "" {
		driver = st.MergeDriver
	}
	if lore, ours := hooks.DriverLore(st.MergeDriver); ours {
		driver = driverState(e, lore)
	}
	attrs := "missing (lore hooks install adds them)"
	if st.MergeAttributes {
		attrs = "present"
	}
	fmt.Fprintf(p.out, "Merge driver: %s\n.gitattributes lines: %s\n", driver, attrs)
	var claude []string
	for _, h := range hooks.ClaudeHooks {
		mark := "no"
		if st.Claude[h.Event] {
			mark = "yes"
		}
		claude = append(claude, h.Event+" "+mark)
	}
	fmt.Fprintf(p.out, "Claude Code:  %s (%s)\n", strings.Join(claude, ", "), relPath(e, st.ClaudeSettings))
	mcp := "no"
	if st.MCP {
		mcp = "yes"
	}
	fmt.Fprintf(p.out, "MCP server:   %s (%s)\n", mcp, relPath(e, st.MCPConfig))
	return nil
}

// loreState says which lore the hooks run and whether it is there.
func loreState(e *env, st hooksStatus) string {
	const refuses = "the pre-commit hook refuses commits that change .agent/ until lore is installed"
	fallback := "and lore is not on PATH either: " + refuses
	if st.LoreOnPath != "" {
		fallback = "so the hooks run lore on PATH, " + relPath(e, st.LoreOnPath)
	}
	why := "no path recorded"
	if st.ProjectHooks {
		why = "the project's hooks name no one's path"
	}
	switch {
	case st.Lore == "" && st.LoreOnPath != "":
		return "lore on PATH, " + relPath(e, st.LoreOnPath) + " (" + why + ")"
	case st.Lore == "":
		return "lore on PATH (" + why + "), which has none: " + refuses
	case st.LoreFound:
		return st.Lore
	}
	return st.Lore + ", which is missing, " + fallback
}

// driverState says which lore the merge driver runs, and what it falls
// back to.
func driverState(e *env, lore string) string {
	const fallback = "git merge-file, which leaves conflict markers around both sides"
	onPath, _ := exec.LookPath("lore")
	switch {
	case lore == "" && onPath != "":
		return "lore on PATH, " + relPath(e, onPath) + " (no path recorded), else " + fallback
	case lore == "":
		return "lore on PATH (no path recorded), which has none: " + fallback
	case hooks.LoreFound(lore):
		return lore + " merge-driver (else lore on PATH, else " + fallback + ")"
	case onPath != "":
		return lore + ", which is missing, so lore on PATH, " + relPath(e, onPath)
	}
	return lore + ", which is missing, and lore is not on PATH either: " + fallback
}

// relPath shows path relative to the working directory when it is below it.
func relPath(e *env, path string) string {
	if rel, err := filepath.Rel(e.workDir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
