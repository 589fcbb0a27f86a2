package entry

import (
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

// parseSkill reads the name and description; the directory name stands in
// for a missing name.
func ParseSkill(data []byte, path, dirName string) Skill {
	sk := Skill{Name: dirName, Description: NoDescription, Path: path}
	d, err := parseFrontmatter(data, path)
	if err != nil {
		return sk
	}
	if name := d.Str("name", false); name != "" && len(d.Problems) == 0 {
		sk.Name = name
	}
	d.Problems = nil
	if desc := strings.Join(strings.Fields(d.Str("description", false)), " "); desc != "" && len(d.Problems) == 0 {
		sk.Description = desc
	}
	return sk
}
