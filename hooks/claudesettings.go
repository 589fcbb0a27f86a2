package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"lore/internal/fsx"
)

// ClaudeHooks are the Claude Code hooks lore installs into a project's
// .claude/settings.json: its context at the start of a session, and the
// session's work recorded when the agent stops.
var ClaudeHooks = []ClaudeHook{
	{Event: "SessionStart", Command: "lore prime --hook claude"},
	{Event: "Stop", Command: "lore ingest --hook claude"},
}

// ClaudeHook is one command hook for one Claude Code event.
type ClaudeHook struct{ Event, Command string }

// ClaudeSettingsPath is where a project's Claude Code settings live.
func ClaudeSettingsPath(root string) string {
	return filepath.Join(root, ".claude", "settings.json")
}

// InstallClaude adds the ClaudeHooks missing from the settings file at
// path (creating it), and changes nothing else: each goes into the user's
// text where Claude Code reads it — a group of its own at the end of its
// event's list, the event at the end of "hooks", "hooks" at the end of the
// settings — written like the text around it. It reports whether the
// file changed; installing twice changes nothing.
func InstallClaude(path string) (bool, error) {
	settings, err := readSettings(path)
	if err != nil {
		return false, err
	}
	edits, err := installEdits(settings)
	if err != nil {
		return false, fmt.Errorf("%s: %w; fix it or move it away, lore changes nothing", path, err)
	}
	if len(edits) == 0 {
		return false, nil
	}
	if err := fsx.WriteFile(path, applyEdits(settings.text, edits), fsx.SyncAll); err != nil {
		return false, err
	}
	return true, nil
}

// UninstallClaude removes exactly the ClaudeHooks from the settings file
// at path — their entries, and the groups, event lists and hooks object
// that held nothing else — each with the separator install wrote with it,
// so that the file is again what it was before install. A file that
// holds nothing else (as install writes it where there is none) is
// removed.
func UninstallClaude(path string) (bool, error) {
	settings, err := readSettings(path)
	if err != nil {
		return false, err
	}
	edits := uninstallEdits(settings)
	if len(edits) == 0 {
		return false, nil
	}
	text := applyEdits(settings.text, edits)
	if len(text) == 0 {
		if err := os.Remove(path); err != nil {
			return false, err
		}
		os.Remove(filepath.Dir(path)) // .claude/, if nothing else is in it
		return true, nil
	}
	if err := fsx.WriteFile(path, text, fsx.SyncAll); err != nil {
		return false, err
	}
	return true, nil
}

// ClaudeStatus says which of the ClaudeHooks the settings file at path
// holds, by event.
func ClaudeStatus(path string) (map[string]bool, error) {
	out := map[string]bool{}
	settings, err := readSettings(path)
	if err != nil || settings.root == nil {
		return out, err
	}
	if hooks := settings.root.get("hooks"); hooks != nil && hooks.kind == '{' {
		for _, h := range ClaudeHooks {
			out[h.Event] = hasCommand(hooks.get(h.Event), h.Command)
		}
	}
	return out, nil
}

// installEdits are the insertions that add the ClaudeHooks missing from
// settings.
func installEdits(settings *jsonText) ([]edit, error) {
	root := settings.root
	if root == nil { // no file, or only whitespace: lore's settings after it
		nl, end := settings.newline(), len(settings.text)
		return []edit{{end, end, loreSettings(nl) + nl}}, nil
	}
	hooks := root.get("hooks")
	if hooks == nil {
		return []edit{settings.insert(root, []any{jsonField{"hooks", loreHooks(ClaudeHooks)}})}, nil
	}
	if hooks.kind != '{' {
		return nil, errors.New(`"hooks" is not an object`)
	}
	var edits []edit
	var missing []ClaudeHook
	for _, h := range ClaudeHooks {
		groups := hooks.get(h.Event)
		switch {
		case groups == nil:
			missing = append(missing, h)
		case groups.kind != '[':
			return nil, fmt.Errorf(`"hooks".%q is not a list`, h.Event)
		case !hasCommand(groups, h.Command):
			edits = append(edits, settings.insert(groups, []any{loreGroup(h)}))
		}
	}
	if len(missing) > 0 {
		var events []any
		for _, f := range loreHooks(missing) {
			events = append(events, f)
		}
		edits = append(edits, settings.insert(hooks, events))
	}
	return edits, nil
}

// uninstallEdits are the cuts that remove the ClaudeHooks from settings.
// A list or an object is removed only when it held nothing but lore's:
// one that was empty before stays.
func uninstallEdits(settings *jsonText) []edit {
	root := settings.root
	if root == nil {
		return nil
	}
	at := root.lookup("hooks")
	if at < 0 || root.elems[at].kind != '{' {
		return nil
	}
	hooks := root.elems[at]
	var edits []edit
	eventGone := make([]bool, len(hooks.elems))
	for _, h := range ClaudeHooks {
		i := hooks.lookup(h.Event)
		if i < 0 || hooks.elems[i].kind != '[' {
			continue
		}
		groups := hooks.elems[i]
		groupGone := make([]bool, len(groups.elems))
		var inGroups []edit
		for j, g := range groups.elems {
			entries := g.get("hooks")
			if entries == nil || entries.kind != '[' {
				continue
			}
			lores := make([]bool, len(entries.elems))
			for k, e := range entries.elems {
				lores[k] = isCommand(e, h.Command)
			}
			switch {
			case all(lores):
				groupGone[j] = true
			case slices.Contains(lores, true):
				inGroups = append(inGroups, entries.remove(lores)...)
			}
		}
		if all(groupGone) {
			eventGone[i] = true
			continue
		}
		edits = append(edits, inGroups...)
		edits = append(edits, groups.remove(groupGone)...)
	}
	if !all(eventGone) {
		return append(edits, hooks.remove(eventGone)...)
	}
	if len(root.elems) > 1 {
		rootGone := make([]bool, len(root.elems))
		rootGone[at] = true
		return root.remove(rootGone)
	}
	// The settings held only lore's hooks. Where they end the text as
	// install writes them whole (the file was missing or held only
	// whitespace), they go whole.
	if nl := settings.newline(); string(settings.text[root.start:]) == loreSettings(nl)+nl {
		return []edit{{root.start, len(settings.text), ""}}
	}
	return []edit{{root.start + 1, hooks.end, ""}}
}

// all says whether there is something and all of it is true.
func all(marks []bool) bool {
	return len(marks) > 0 && !slices.Contains(marks, false)
}

// loreSettings is what install writes where there are no settings: two
// spaces of indentation, lines ending in nl.
func loreSettings(nl string) string {
	var b strings.Builder
	layout{nl: nl, unit: "  ", colon: ": "}.item(&b, jsonObject{{"hooks", loreHooks(ClaudeHooks)}}, "")
	return b.String()
}

// loreHooks is the "hooks" object of hs, each event a list of one group.
func loreHooks(hs []ClaudeHook) jsonObject {
	var events jsonObject
	for _, h := range hs {
		events = append(events, jsonField{h.Event, []any{loreGroup(h)}})
	}
	return events
}

// loreGroup is the group that holds h: Claude Code runs its command hook
// on h's event, with no matcher.
func loreGroup(h ClaudeHook) jsonObject {
	return jsonObject{{"hooks", []any{jsonObject{{"type", "command"}, {"command", h.Command}}}}}
}

// hasCommand says whether a list of groups runs command.
func hasCommand(groups *jsonNode, command string) bool {
	if groups == nil || groups.kind != '[' {
		return false
	}
	for _, g := range groups.elems {
		if entries := g.get("hooks"); entries != nil && entries.kind == '[' {
			if slices.ContainsFunc(entries.elems, func(e *jsonNode) bool { return isCommand(e, command) }) {
				return true
			}
		}
	}
	return false
}

func isCommand(entry *jsonNode, command string) bool {
	c, _ := entry.get("command").str()
	return strings.TrimSpace(c) == command
}

// readSettings reads a settings file: no text when there is none.
func readSettings(path string) (*jsonText, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &jsonText{}, nil
	}
	if err != nil {
		return nil, err
	}
	settings, err := parseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v); fix it or move it away, lore changes nothing", path, err)
	}
	if settings.root != nil && settings.root.kind != '{' {
		return nil, fmt.Errorf("%s holds no JSON object; lore changes nothing", path)
	}
	return settings, nil
}
