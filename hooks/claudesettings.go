package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
// path (creating it), keeping everything else in it — other keys, other
// hooks, their order. It reports whether the file changed; installing
// twice changes nothing.
func InstallClaude(path string) (bool, error) {
	return editSettings(path, func(settings *jsonObject) {
		hooks := settings.object("hooks")
		for _, h := range ClaudeHooks {
			groups := hooks.array(h.Event)
			if hasCommand(groups, h.Command) {
				continue
			}
			entry := &jsonObject{}
			entry.set("type", "command")
			entry.set("command", h.Command)
			group := &jsonObject{}
			group.set("hooks", []any{entry})
			hooks.set(h.Event, append(groups, group))
		}
	})
}

// UninstallClaude removes exactly the ClaudeHooks from the settings file
// at path: their entries, and the groups, event lists and hooks object
// that only held them. A file left holding nothing is removed.
func UninstallClaude(path string) (bool, error) {
	return editSettings(path, func(settings *jsonObject) {
		hooks, ok := settings.get("hooks").(*jsonObject)
		if !ok {
			return
		}
		for _, h := range ClaudeHooks {
			groups, ok := hooks.get(h.Event).([]any)
			if !ok {
				continue
			}
			var kept []any
			for _, g := range groups {
				group, ok := g.(*jsonObject)
				if !ok {
					kept = append(kept, g)
					continue
				}
				entries, ok := group.get("hooks").([]any)
				if !ok {
					kept = append(kept, g)
					continue
				}
				var rest []any
				for _, e := range entries {
					if !isCommand(e, h.Command) {
						rest = append(rest, e)
					}
				}
				switch {
				case len(rest) == len(entries):
					kept = append(kept, g)
				case len(rest) > 0:
					group.set("hooks", rest)
					kept = append(kept, g)
				}
			}
			if len(kept) == 0 {
				hooks.remove(h.Event)
			} else {
				hooks.set(h.Event, kept)
			}
		}
		if len(hooks.keys) == 0 {
			settings.remove("hooks")
		}
	})
}

// ClaudeStatus says which of the ClaudeHooks the settings file at path
// holds, by event.
func ClaudeStatus(path string) (map[string]bool, error) {
	out := map[string]bool{}
	settings, err := readSettings(path)
	if err != nil || settings == nil {
		return out, err
	}
	hooks, _ := settings.get("hooks").(*jsonObject)
	for _, h := range ClaudeHooks {
		if hooks != nil {
			groups, _ := hooks.get(h.Event).([]any)
			out[h.Event] = hasCommand(groups, h.Command)
		}
	}
	return out, nil
}

func hasCommand(groups []any, command string) bool {
	for _, g := range groups {
		if group, ok := g.(*jsonObject); ok {
			entries, _ := group.get("hooks").([]any)
			for _, e := range entries {
				if isCommand(e, command) {
					return true
				}
			}
		}
	}
	return false
}

func isCommand(e any, command string) bool {
	entry, ok := e.(*jsonObject)
	if !ok {
		return false
	}
	c, _ := entry.get("command").(string)
	return strings.TrimSpace(c) == command
}

// editSettings reads the settings at path (an empty object when there is
// none), applies edit, and writes the result back if it changed: two
// spaces of indentation, keys in their order.
func editSettings(path string, edit func(*jsonObject)) (bool, error) {
	settings, err := readSettings(path)
	if err != nil {
		return false, err
	}
	existed := settings != nil
	if settings == nil {
		settings = &jsonObject{}
	}
	before := encodeJSON(settings)
	edit(settings)
	after := encodeJSON(settings)
	if bytes.Equal(before, after) {
		return false, nil
	}
	if len(settings.keys) == 0 {
		if !existed {
			return false, nil
		}
		if err := os.Remove(path); err != nil {
			return false, err
		}
		os.Remove(filepath.Dir(path)) // .claude/, if nothing else is in it
		return true, nil
	}
	if err := fsx.WriteFile(path, after, fsx.SyncAll); err != nil {
		return false, err
	}
	return true, nil
}

// readSettings reads a settings file; nil when there is none.
func readSettings(path string) (*jsonObject, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return &jsonObject{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeJSON(dec)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("more than one JSON value")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v); fix it or move it away, lore changes nothing", path, err)
	}
	obj, ok := v.(*jsonObject)
	if !ok {
		return nil, fmt.Errorf("%s holds no JSON object; lore changes nothing", path)
	}
	return obj, nil
}

// jsonObject is a JSON object that keeps its keys in order, so that a
// settings file lore edits keeps the user's order.
type jsonObject struct {
	keys   []string
	values map[string]any
}

func (o *jsonObject) get(k string) any { return o.values[k] }

func (o *jsonObject) set(k string, v any) {
	if o.values == nil {
		o.values = map[string]any{}
	}
	if _, ok := o.values[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.values[k] = v
}

func (o *jsonObject) remove(k string) {
	if _, ok := o.values[k]; !ok {
		return
	}
	delete(o.values, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// object returns the object under k, making one if there is none (or
// something else is there: a settings file whose "hooks" is not an
// object would not work in Claude Code either).
func (o *jsonObject) object(k string) *jsonObject {
	if v, ok := o.get(k).(*jsonObject); ok {
		return v
	}
	v := &jsonObject{}
	o.set(k, v)
	return v
}

func (o *jsonObject) array(k string) []any {
	v, _ := o.get(k).([]any)
	return v
}

// decodeJSON reads one value, objects as *jsonObject, numbers as
// json.Number (written back as they were).
func decodeJSON(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := &jsonObject{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeJSON(dec)
				if err != nil {
					return nil, err
				}
				obj.set(k, v)
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeJSON(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// encodeJSON writes v with two spaces of indentation and a final newline.
func encodeJSON(v any) []byte {
	var b bytes.Buffer
	writeJSON(&b, v, "")
	b.WriteByte('\n')
	return b.Bytes()
}

func writeJSON(b *bytes.Buffer, v any, indent string) {
	switch t := v.(type) {
	case *jsonObject:
		if len(t.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range t.keys {
			b.WriteString(indent + "  ")
			writeScalar(b, k)
			b.WriteString(": ")
			writeJSON(b, t.values[k], indent+"  ")
			if i < len(t.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range t {
			b.WriteString(indent + "  ")
			writeJSON(b, e, indent+"  ")
			if i < len(t)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	default:
		writeScalar(b, v)
	}
}

func writeScalar(b *bytes.Buffer, v any) {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // strings, json.Number, bools, nil: cannot fail
	b.Write(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
}
