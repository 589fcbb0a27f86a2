package mdstore

import (
	"io/fs"
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
// warning, and so is a skill directory or SKILL.md that is a symbolic
// link — but for one skill directory linked to the other (SkillLink),
// whose skill is listed once, from where it is.
func (s *Store) Skills() ([]Skill, []Warning, error) {
	var skills []Skill
	var warnings []Warning
	for _, dir := range SkillDirs {
		entries, err := s.readDir(dir)
		if w, skipped := Skipped(dir, err); skipped {
			warnings = append(warnings, warningsOf(w)...)
			continue
		}
		if err != nil {
			warnings = append(warnings, Warning{Path: dir, Message: "cannot be read: " + err.Error()})
			continue
		}
		for _, e := range entries {
			p := dir + "/" + e.Name()
			if e.Type()&fs.ModeSymlink != 0 {
				warnings = append(warnings, warningsOf(LinkSkipped(p, s.abs(p)))...)
				continue
			}
			if !e.IsDir() {
				continue
			}
			rel := p + "/SKILL.md"
			data, ok, err := s.read(rel)
			if w, skipped := Skipped(rel, err); skipped {
				warnings = append(warnings, warningsOf(w)...)
				continue
			}
			if err != nil {
				warnings = append(warnings, Warning{Path: rel, Message: "skipped: cannot be read: " + err.Error()})
				continue
			}
			if ok {
				skills = append(skills, parseSkill(data, rel, e.Name()))
			}
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
