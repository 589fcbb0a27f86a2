package mdstore

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// NoDescription is what a skill without a readable description shows.
const NoDescription = "No description"

// Skill is a reusable procedure document, <dir>/<name>/SKILL.md. Only its
// name and description are read; the agent reads the rest when it needs it.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Path        string `json:"path"` // relative to the store root
}

// Skills discovers every SKILL.md. A missing or malformed frontmatter
// gives "No description"; a file that cannot be read is skipped with a
// warning.
func (s *Store) Skills() ([]Skill, []Warning, error) {
	var skills []Skill
	var warnings []Warning
	for _, dir := range SkillDirs {
		entries, err := os.ReadDir(filepath.Join(s.root, filepath.FromSlash(dir)))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			warnings = append(warnings, Warning{Path: dir, Message: "cannot be read: " + err.Error()})
			continue
		}
		for _, e := range entries {
			if !e.IsDir() && e.Type()&os.ModeSymlink == 0 {
				continue
			}
			rel := dir + "/" + e.Name() + "/SKILL.md"
			data, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(rel)))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				warnings = append(warnings, Warning{Path: rel, Message: "skipped: cannot be read: " + err.Error()})
				continue
			}
			skills = append(skills, parseSkill(data, rel, e.Name()))
		}
	}
	sort.SliceStable(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills, warnings, nil
}

// parseSkill reads the name and description; the directory name stands in
// for a missing name.
func parseSkill(data []byte, path, dirName string) Skill {
	sk := Skill{Name: dirName, Description: NoDescription, Path: path}
	d, err := parseFrontmatter(data, path)
	if err != nil {
		return sk
	}
	if name := d.str("name", false); name != "" && len(d.problems) == 0 {
		sk.Name = name
	}
	d.problems = nil
	if desc := strings.Join(strings.Fields(d.str("description", false)), " "); desc != "" && len(d.problems) == 0 {
		sk.Description = desc
	}
	return sk
}
