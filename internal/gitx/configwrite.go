package gitx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Config returns the value git would use for key ("core.hookspath",
// "merge.lore.driver"), from every configuration file that applies.
func (r *Repo) Config(key string) (string, bool) { return r.config.get(key) }

// HooksDir is where git looks for this repository's hooks: core.hooksPath
// (relative to the top of the worktree when relative, as git runs hooks
// there) or the hooks directory of the common git directory.
func (r *Repo) HooksDir() string {
	if p, ok := r.config.get("core.hookspath"); ok && strings.TrimSpace(p) != "" {
		p = expandHome(strings.TrimSpace(p), r.getenv("HOME"))
		if !filepath.IsAbs(p) {
			p = filepath.Join(r.WorkTree, p)
		}
		return filepath.Clean(p)
	}
	return filepath.Join(r.CommonDir, "hooks")
}

// ConfigSetting is one variable of a config section: key (lowercase) and
// value.
type ConfigSetting struct{ Key, Value string }

// SetLocalSection makes section [name "sub"] of the repository's own config
// file (.git/config) hold settings, keeping every other line of the file
// as it is: keys it already holds with other values are rewritten in
// place, missing ones are added at the end of the section, a missing
// section is appended. It reports whether the file changed; it is written
// under config.lock, as git writes it.
func (r *Repo) SetLocalSection(name, sub string, settings []ConfigSetting) (bool, error) {
	return r.editLocalConfig(func(lines []string) []string {
		start, end := findSection(lines, name, sub)
		if start < 0 {
			if n := len(lines); n > 0 && strings.TrimSpace(lines[n-1]) != "" && !strings.HasSuffix(lines[n-1], "\n") {
				lines[n-1] += "\n"
			}
			lines = append(lines, sectionHeader(name, sub)+"\n")
			start, end = len(lines)-1, len(lines)
		}
		for _, s := range settings {
			line := "\t" + s.Key + " = " + quoteConfigValue(s.Value) + "\n"
			at := -1
			for i := start + 1; i < end; i++ {
				if k, v, ok := configLine(lines[i]); ok && k == s.Key {
					if v == s.Value {
						at = -2 // already so
						break
					}
					at = i
				}
			}
			switch at {
			case -2:
			case -1:
				lines = append(lines[:end], append([]string{line}, lines[end:]...)...)
				end++
			default:
				lines[at] = line
			}
		}
		return lines
	})
}

// RemoveLocalSection drops section [name "sub"] from the repository's own
// config file, with its variables and nothing else. It reports whether
// the file changed.
func (r *Repo) RemoveLocalSection(name, sub string) (bool, error) {
	return r.editLocalConfig(func(lines []string) []string {
		start, end := findSection(lines, name, sub)
		if start < 0 {
			return lines
		}
		return append(lines[:start], lines[end:]...)
	})
}

// editLocalConfig rewrites .git/config through edit, holding config.lock.
func (r *Repo) editLocalConfig(edit func(lines []string) []string) (bool, error) {
	path := filepath.Join(r.CommonDir, "config")
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false, fmt.Errorf("%s exists: another git process is changing the configuration (remove it if none is running)", lock)
	}
	if err != nil {
		return false, err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(lock)
		}
	}()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if _, err := parseConfigFile(string(data)); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	next := strings.Join(edit(lines), "")
	if next == string(data) {
		return false, nil
	}
	if _, err := f.WriteString(next); err != nil {
		return false, err
	}
	if err := f.Sync(); err != nil {
		return false, err
	}
	if err := f.Close(); err != nil {
		return false, err
	}
	if err := os.Rename(lock, path); err != nil {
		os.Remove(lock)
		return false, err
	}
	done = true
	return true, nil
}

// findSection returns the line of section [name "sub"]'s header and the
// line after its last variable (the next header, or the end); -1 when the
// file has no such section. Comment lines right before the next header
// stay with that header.
func findSection(lines []string, name, sub string) (start, end int) {
	start = -1
	for i, l := range lines {
		n, s, ok := headerOf(l)
		if !ok {
			continue
		}
		if start >= 0 {
			end = i
			for end > start+1 && isCommentOrBlank(lines[end-1]) {
				end--
			}
			return start, end
		}
		if strings.EqualFold(n, name) && s == sub {
			start = i
		}
	}
	if start < 0 {
		return -1, -1
	}
	end = len(lines)
	for end > start+1 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	return start, end
}

// headerOf reads a section header line: [name] or [name "sub"].
func headerOf(line string) (name, sub string, ok bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "[") {
		return "", "", false
	}
	close := strings.LastIndexByte(t, ']')
	if close < 0 {
		return "", "", false
	}
	inner := strings.TrimSpace(t[1:close])
	name, rest, found := strings.Cut(inner, " ")
	if !found {
		if n, s, dotted := strings.Cut(inner, "."); dotted { // the legacy [name.sub]
			return n, strings.ToLower(s), true
		}
		return inner, "", true
	}
	rest = strings.TrimSpace(rest)
	if len(rest) >= 2 && rest[0] == '"' && rest[len(rest)-1] == '"' {
		sub = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(rest[1 : len(rest)-1])
	}
	return name, sub, true
}

func isCommentOrBlank(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || t[0] == '#' || t[0] == ';'
}

// configLine reads a "key = value" line (lowercased key); false for
// anything else, a continued value included.
func configLine(line string) (key, value string, ok bool) {
	entries, err := parseConfigFile("[x]\n" + line)
	if err != nil || len(entries) != 1 {
		return "", "", false
	}
	return entries[0].key, entries[0].value, true
}

func sectionHeader(name, sub string) string {
	if sub == "" {
		return "[" + name + "]"
	}
	return "[" + name + " \"" + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(sub) + "\"]"
}

// quoteConfigValue quotes a value when git would otherwise read it
// differently: leading or trailing space, a comment character, a quote or
// a backslash.
func quoteConfigValue(v string) string {
	if v == strings.TrimSpace(v) && !strings.ContainsAny(v, "#;\"\\\n\t") {
		return v
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(v) + `"`
}
