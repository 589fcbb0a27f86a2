package hooks

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Settings of random content, written in random ways: install adds only
// lore's hooks, once, installing again changes nothing, and uninstall
// gives back every byte. (The text as InstallClaude and UninstallClaude
// edit it, without their files: TestClaudeSettingsKeepTheUsersText
// checks those.)
func TestClaudeSettingsRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 1))
	n := 500
	if testing.Short() {
		n = 100
	}
	for i := range n {
		g := settingsWriter{r: r}
		text := g.document()
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("settings:\n%q", text)
				}
			}()
			installed := editText(t, text, installEdits)
			checkInstalled(t, text, installed)
			if again := editText(t, installed, installEdits); again != installed {
				t.Fatalf("second install changed the settings:\n%s", again)
			}
			if got := editText(t, installed, uninstallEditsOrNot); got != text {
				t.Fatalf("uninstall left\n%q\nwant\n%q", got, text)
			}
		})
	}
}

// editText is text with the edits that edits finds in it made.
func editText(t *testing.T, text string, edits func(*jsonText) ([]edit, error)) string {
	t.Helper()
	settings, err := parseJSON([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	e, err := edits(settings)
	if err != nil {
		t.Fatal(err)
	}
	return string(applyEdits(settings.text, e))
}

func uninstallEditsOrNot(settings *jsonText) ([]edit, error) { return uninstallEdits(settings), nil }

// settingsWriter writes random Claude Code settings in a random format:
// indented by tabs or spaces, or on one line, or on one line here and
// there; LF or CRLF; spaces around colons and commas and inside brackets
// or not.
type settingsWriter struct {
	r                 *rand.Rand
	b                 strings.Builder
	unit, nl          string // unit "": all on one line
	colon, comma, pad string
	oneLine, trailing float64 // how often a container is on one line, a line ends in a space
}

// testObject is an object of random settings. Its values are
// testObjects, arrays ([]any) and the text of scalars (strings).
type testObject []testField

type testField struct {
	key   string // its text, quoted
	value any
}

func (g *settingsWriter) pick(s ...string) string { return s[g.r.IntN(len(s))] }

func (g *settingsWriter) document() string {
	g.unit = g.pick("", "\t", "  ", "    ", " ")
	g.nl = g.pick("\n", "\r\n")
	g.colon = g.pick(":", ": ", " : ", ":\t")
	g.comma = g.pick(",", ", ")
	g.pad = g.pick("", "", " ")
	g.oneLine = g.pick1(0, 0, 0.2, 0.5)
	g.trailing = g.pick1(0, 0, 0.1)
	g.b.WriteString(g.pick("", "", "", " ", g.nl))
	g.write(g.settings(), "", g.unit == "")
	g.b.WriteString(g.pick("", g.nl, g.nl, g.nl+g.nl, " "))
	return g.b.String()
}

func (g *settingsWriter) pick1(f ...float64) float64 { return f[g.r.IntN(len(f))] }

func (g *settingsWriter) settings() testObject {
	all := []testField{
		{`"$schema"`, `"https://json.schemastore.org/claude-code-settings.json"`},
		{`"model"`, g.str()},
		{`"permissions"`, testObject{
			{`"allow"`, g.strs(3)},
			{`"deny"`, g.strs(2)},
			{`"defaultMode"`, `"acceptEdits"`},
		}},
		{`"env"`, g.env()},
		{`"cleanupPeriodDays"`, g.number()},
		{`"includeCoAuthoredBy"`, g.pick("true", "false")},
		{`"apiKeyHelper"`, "null"},
		{`"statusLine"`, testObject{{`"type"`, `"command"`}, {`"command"`, g.str()}, {`"padding"`, g.number()}}},
		{`"hooks"`, g.hooks()},
		{`"x\u00e9"`, g.any(2)},
	}
	g.r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all[:1+g.r.IntN(len(all))]
}

func (g *settingsWriter) hooks() testObject {
	events := []string{"PreToolUse", "PostToolUse", "SessionStart", "Stop", "Notification", "UserPromptSubmit"}
	g.r.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })
	var hooks testObject
	for _, e := range events[:1+g.r.IntN(len(events))] {
		var groups []any
		for range 1 + g.r.IntN(3) {
			var group testObject
			if g.r.IntN(2) == 0 {
				group = append(group, testField{`"matcher"`, g.pick(`"Bash"`, `"Edit|Write"`, `""`, `"startup"`)})
			}
			var entries []any
			for range 1 + g.r.IntN(2) {
				entry := testObject{{`"type"`, `"command"`}, {`"command"`, g.str()}}
				if g.r.IntN(3) == 0 {
					entry = append(entry, testField{`"timeout"`, g.number()})
				}
				entries = append(entries, entry)
			}
			groups = append(groups, append(group, testField{`"hooks"`, entries}))
		}
		hooks = append(hooks, testField{strconv.Quote(e), groups})
	}
	return hooks
}

func (g *settingsWriter) env() testObject {
	var env testObject
	for i := range g.r.IntN(4) {
		env = append(env, testField{`"VAR_` + strconv.Itoa(i) + `"`, g.str()})
	}
	return env
}

func (g *settingsWriter) strs(n int) []any {
	out := []any{}
	for range g.r.IntN(n + 1) {
		out = append(out, g.str())
	}
	return out
}

// str is the text of a string with escapes, non-ASCII letters and
// characters encoding/json would escape.
func (g *settingsWriter) str() string {
	pieces := []string{"echo", "./notify.sh", " ", "héllo", "日本語", "🎉", `\u00e9`, `\"`, `\\`, `\/`, `\n`, `\t`, `\ud83c\udf89`, "<b>&", `\u003c`, "Bash(go test:*)"}
	var b strings.Builder
	for range 1 + g.r.IntN(4) {
		b.WriteString(g.pick(pieces...))
	}
	return `"` + b.String() + `"`
}

func (g *settingsWriter) number() string {
	return g.pick("30", "1.5", "-2", "1e3", "0", "12345678901234567890", "2.50", "-0.0E-2")
}

func (g *settingsWriter) any(depth int) any {
	switch g.r.IntN(4) {
	case 0:
		return g.str()
	case 1:
		return g.number()
	}
	if depth == 0 {
		return "null"
	}
	if g.r.IntN(2) == 0 {
		var arr []any
		for range g.r.IntN(3) {
			arr = append(arr, g.any(depth-1))
		}
		return arr
	}
	var obj testObject
	for i := range g.r.IntN(3) {
		obj = append(obj, testField{`"k` + strconv.Itoa(i) + `"`, g.any(depth - 1)})
	}
	return obj
}

// write writes v, on lines indented from indent unless oneLine.
func (g *settingsWriter) write(v any, indent string, oneLine bool) {
	var items []any
	open, close := "[", "]"
	switch v := v.(type) {
	case string:
		g.b.WriteString(v)
		return
	case testObject:
		open, close = "{", "}"
		for _, f := range v {
			items = append(items, f)
		}
	case []any:
		items = v
	}
	oneLine = oneLine || g.r.Float64() < g.oneLine
	if len(items) == 0 {
		g.b.WriteString(open + g.pick("", g.pad) + close)
		return
	}
	g.b.WriteString(open)
	if oneLine {
		g.b.WriteString(g.pad)
	}
	inner := indent + g.unit
	for i, it := range items {
		if i > 0 {
			g.b.WriteString(",")
			if oneLine {
				g.b.WriteString(g.comma[1:])
			}
		}
		if !oneLine {
			g.newline(inner)
		}
		if f, ok := it.(testField); ok {
			g.b.WriteString(f.key + g.colon)
			it = f.value
		}
		g.write(it, inner, oneLine)
	}
	if oneLine {
		g.b.WriteString(g.pad)
	} else {
		g.newline(indent)
	}
	g.b.WriteString(close)
}

func (g *settingsWriter) newline(indent string) {
	if g.r.Float64() < g.trailing {
		g.b.WriteString(" ")
	}
	g.b.WriteString(g.nl + indent)
}

// FuzzClaudeSettings: whatever JSON object a settings file holds, install
// only inserts, its result holds lore's hooks and is left alone by a
// second install, and uninstall gives back the text — but where lore
// cannot tell the user's from its own (an event list or "hooks" that was
// empty, a file that becomes lore's own) or one of its hooks was there.
func FuzzClaudeSettings(f *testing.F) {
	for _, tc := range userSettings {
		f.Add(tc.text)
	}
	f.Add(`{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "lore prime --hook claude"}]}]}}`)
	f.Fuzz(func(t *testing.T, text string) {
		settings, err := parseJSON([]byte(text))
		if err != nil || (settings.root != nil && settings.root.kind != '{') {
			return
		}
		edits, err := installEdits(settings)
		if err != nil {
			return
		}
		for _, e := range edits {
			if e.start != e.end {
				t.Fatalf("install replaces %q", text[e.start:e.end])
			}
		}
		installed := string(applyEdits(settings.text, edits))
		after, err := parseJSON([]byte(installed))
		if err != nil {
			t.Fatalf("install wrote invalid JSON (%v):\n%s", err, installed)
		}
		hooks := after.root.get("hooks")
		for _, h := range ClaudeHooks {
			if !hasCommand(hooks.get(h.Event), h.Command) {
				t.Fatalf("no %s hook:\n%s", h.Event, installed)
			}
		}
		if again := editText(t, installed, installEdits); again != installed {
			t.Fatalf("second install changed\n%s\nto\n%s", installed, again)
		}
		uninstalled := editText(t, installed, uninstallEditsOrNot)
		if uninstalled == text || len(edits) == 0 {
			return
		}
		before := settings.root.get("hooks")
		for _, h := range ClaudeHooks {
			if l := before.get(h.Event); l != nil && len(l.elems) == 0 || hasCommand(l, h.Command) {
				return // an empty list lore filled goes when lore's group does; lore's hook was there
			}
		}
		if before != nil && len(before.elems) == 0 {
			return // so does an empty "hooks"
		}
		if nl := after.newline(); strings.Trim(uninstalled, jsonSpace) == "" && strings.HasSuffix(installed, loreSettings(nl)+nl) {
			return // the settings end as lore writes them where there are none
		}
		t.Fatalf("uninstall left\n%q\nwant\n%q", uninstalled, text)
	})
}
