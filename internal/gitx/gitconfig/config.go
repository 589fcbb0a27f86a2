package gitconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Config is the merged view of the git configuration files that apply to
// a repository, in git's order of precedence: system, global, local,
// worktree, then GIT_CONFIG_COUNT pairs from the environment. The last value
// set for a key wins.
type Config struct {
	values []value
}

type value struct {
	key   string // "section.key" or "section.subsection.key", section and key lowercased
	value string
	bare  bool // "key" without "=", git's spelling of true
}

// Get returns the last value set for key ("user.name", "includeif.gitdir:x.path").
func (c *Config) Get(key string) (string, bool) {
	key = normalizeKey(key)
	for i := len(c.values) - 1; i >= 0; i-- {
		if c.values[i].key == key {
			if c.values[i].bare {
				return "true", true
			}
			return c.values[i].value, true
		}
	}
	return "", false
}

// Each calls fn with every value set for a key that starts with prefix
// ("extensions."), in the order they were set: the key without the prefix
// (lowercased) and the value ("true" for a bare key).
func (c *Config) Each(prefix string, fn func(key, value string)) {
	prefix = strings.ToLower(prefix)
	for _, v := range c.values {
		if name, ok := strings.CutPrefix(v.key, prefix); ok {
			value := v.value
			if v.bare {
				value = "true"
			}
			fn(name, value)
		}
	}
}

// Bool interprets key as a git boolean, returning def when it is unset or
// not a boolean.
func (c *Config) Bool(key string, def bool) bool {
	v, ok := c.Get(key)
	if !ok {
		return def
	}
	if b, ok := ParseBool(v); ok {
		return b
	}
	return def
}

// ParseBool reads v as git reads a boolean (true, yes, on, 1; false, no,
// off, 0, or empty); ok is false when v is none of them.
func ParseBool(v string) (value, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0", "":
		return false, true
	}
	return false, false
}

func normalizeKey(key string) string {
	first := strings.IndexByte(key, '.')
	last := strings.LastIndexByte(key, '.')
	if first < 0 {
		return strings.ToLower(key)
	}
	// The subsection keeps its case; section and variable names do not.
	return strings.ToLower(key[:first]) + key[first:last] + strings.ToLower(key[last:])
}

// Source describes where the configuration of one repository lives.
type Source struct {
	CommonDir    string
	GitDir       string
	Getenv       func(string) string
	Branch       string // short name of the checked-out branch, for includeIf "onbranch:"
	WorktreeFile bool   // extensions.worktreeConfig: read <gitdir>/config.worktree
}

// Load reads the files in precedence order. A file that does not
// exist is skipped; a local config that cannot be parsed is an error
// (everything else about the repository depends on it), a broken global or
// system file is skipped so that it cannot stop lore from writing.
func Load(src Source) (*Config, error) {
	c := &Config{}
	home := src.Getenv("HOME")
	if src.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		system := src.Getenv("GIT_CONFIG_SYSTEM")
		if system == "" {
			system = "/etc/gitconfig"
		}
		_ = c.readFile(system, src, 0)
	}
	if global := src.Getenv("GIT_CONFIG_GLOBAL"); global != "" {
		_ = c.readFile(global, src, 0)
	} else {
		xdg := src.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			_ = c.readFile(filepath.Join(xdg, "git", "config"), src, 0)
		}
		if home != "" {
			_ = c.readFile(filepath.Join(home, ".gitconfig"), src, 0)
		}
	}
	local := filepath.Join(src.CommonDir, "config")
	if err := c.readFile(local, src, 0); err != nil {
		return nil, err
	}
	if src.WorktreeFile || c.Bool("extensions.worktreeconfig", false) {
		if err := c.readFile(filepath.Join(src.GitDir, "config.worktree"), src, 0); err != nil {
			return nil, err
		}
	}
	if n, err := strconv.Atoi(src.Getenv("GIT_CONFIG_COUNT")); err == nil {
		for i := 0; i < n; i++ {
			key := src.Getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i))
			if key == "" {
				continue
			}
			c.values = append(c.values, value{key: normalizeKey(key), value: src.Getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i))})
		}
	}
	return c, nil
}

// readFile appends the values of one config file and, where an include
// stands, those of the file it includes. A missing file is not an error.
func (c *Config) readFile(path string, src Source, depth int) error {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) || os.IsPermission(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	entries, err := Parse(string(data))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, e := range entries {
		prefix := e.section
		if e.subsection != "" {
			prefix += "." + e.subsection
		}
		c.values = append(c.values, value{key: prefix + "." + e.key, value: e.value, bare: e.bare})
		include := e.key == "path" && !e.bare && depth < 10 &&
			((e.section == "include" && e.subsection == "") ||
				(e.section == "includeif" && includeConditionHolds(e.subsection, src)))
		if include {
			inc := ExpandHome(e.value, src.Getenv("HOME"))
			if !filepath.IsAbs(inc) {
				inc = filepath.Join(filepath.Dir(path), inc)
			}
			_ = c.readFile(inc, src, depth+1)
		}
	}
	return nil
}

// includeConditionHolds evaluates the condition of an [includeIf "..."]
// section: gitdir:, gitdir/i: and onbranch:.
func includeConditionHolds(cond string, src Source) bool {
	home := src.Getenv("HOME")
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		return gitdirMatches(strings.TrimPrefix(cond, "gitdir:"), src.GitDir, home, false)
	case strings.HasPrefix(cond, "gitdir/i:"):
		return gitdirMatches(strings.TrimPrefix(cond, "gitdir/i:"), src.GitDir, home, true)
	case strings.HasPrefix(cond, "onbranch:"):
		pattern := strings.TrimPrefix(cond, "onbranch:")
		if strings.HasSuffix(pattern, "/") {
			pattern += "**"
		}
		return src.Branch != "" && globMatch(pattern, src.Branch, false)
	}
	return false
}

func gitdirMatches(pattern, gitDir, home string, fold bool) bool {
	pattern = ExpandHome(pattern, home)
	if !strings.HasPrefix(pattern, "/") && !strings.HasPrefix(pattern, "**/") {
		pattern = "**/" + pattern
	}
	if strings.HasSuffix(pattern, "/") {
		pattern += "**"
	}
	candidates := []string{gitDir}
	if resolved, err := filepath.EvalSymlinks(gitDir); err == nil && resolved != gitDir {
		candidates = append(candidates, resolved)
	}
	for _, dir := range candidates {
		if globMatch(pattern, filepath.ToSlash(dir), fold) {
			return true
		}
	}
	return false
}

func ExpandHome(path, home string) string {
	if home != "" && strings.HasPrefix(path, "~/") {
		return filepath.Join(home, path[2:])
	}
	return path
}

// globMatch matches a git wildmatch pattern with "**" (any number of path
// components), "*" and "?" (within a component) and bracket classes.
func globMatch(pattern, name string, fold bool) bool {
	var re strings.Builder
	re.WriteString("^")
	if fold {
		re.WriteString("(?i)")
	}
	for i := 0; i < len(pattern); i++ {
		ch := pattern[i]
		switch {
		case strings.HasPrefix(pattern[i:], "**/"):
			re.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(pattern[i:], "/**") && i+3 == len(pattern):
			re.WriteString("(?:/.*)?")
			i += 2
		case strings.HasPrefix(pattern[i:], "**"):
			re.WriteString(".*")
			i++
		case ch == '*':
			re.WriteString("[^/]*")
		case ch == '?':
			re.WriteString("[^/]")
		case ch == '[':
			end := strings.IndexByte(pattern[i+1:], ']')
			if end < 0 {
				re.WriteString(`\[`)
				continue
			}
			class := pattern[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			re.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		default:
			re.WriteString(regexp.QuoteMeta(string(ch)))
		}
	}
	re.WriteString("$")
	ok, err := regexp.MatchString(re.String(), name)
	return err == nil && ok
}
