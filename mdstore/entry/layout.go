package entry

import (
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// The layout of a store: where each kind of entry lives. Every path is
// relative to the store root (the directory that holds .agent/) with '/'
// separators. This file is the one place that says it; the search index,
// the merge driver and validation ask it.
const (
	Dir          = ".agent"
	MemoriesPath = ".agent/memories.md"
	ConfigPath   = ".agent/config.yaml"
	CitesPath    = ".agent/citations.md" // what entries cite (package mdstore/cites)
	// KnowledgeDir holds one file per knowledge entry, <slug>.md (seed 000).
	KnowledgeDir = ".agent/knowledge"
	// LearningsDir holds one file per learning, <id>.md (seeds 002, 004).
	LearningsDir = ".agent/learnings"
	// JournalDir holds one directory per run and one file per iteration,
	// <run-id>/<NNNN>-<tag>.md (seeds 000 and 002 name it <NNNN>.md, as
	// lore did before; see JournalPath).
	JournalDir = ".agent/journal"
	// AgentSkillsDir and ClaudeSkillsDir hold skills, <name>/SKILL.md
	// (seed 003): lore's own and Claude Code's.
	AgentSkillsDir  = ".agent/skills"
	ClaudeSkillsDir = ".claude/skills"
	// AttributesPath is the .gitattributes lore init writes the merge
	// driver's lines to.
	AttributesPath = ".gitattributes"
	// IgnorePath is the .gitignore lore init writes the pattern of its
	// temporary files to.
	IgnorePath = ".agent/.gitignore"
)

// What lore reads of a store: regular files only, each at most its
// ReadLimit — far above what any entry needs (validation warns past
// MaxEntryFileBytes and MaxMemoriesFileBytes), so that only a mistake (a
// pasted disk image, a link to /dev/zero) is skipped, with a warning.
const (
	MemoriesReadLimit = 16 << 20 // memories.md, all memories in one file
	FileReadLimit     = 1 << 20  // one entry, a SKILL.md, config.yaml
)

// ReadLimit is how much of store file p lore reads: a larger file is
// skipped with a warning.
func ReadLimit(p string) int64 {
	if p == MemoriesPath || p == CitesPath {
		return MemoriesReadLimit
	}
	return FileReadLimit
}

// Symbolic links are never followed: the store is what is in the
// worktree, and a committed link can point anywhere (/dev/zero, a FIFO,
// /home/…). A link where lore would read a file or a directory is
// skipped, with a warning that says so — but for SkillLink.

// SkillLink says whether the symbolic link at store path p, whose target
// is target (as os.Readlink has it), links one skill directory to the
// other: .claude/skills/x → ../../.agent/skills/x, or .claude/skills →
// ../.agent/skills, which lets Claude Code see lore's skills. What it
// points to is read where it is, so the link is skipped without a word
// and the skill listed once.
func SkillLink(p, target string) bool {
	if target == "" || strings.HasPrefix(target, "/") || filepath.IsAbs(target) {
		return false
	}
	if !IsSkillDir(p) && !IsSkillDir(path.Dir(p)) {
		return false
	}
	t := path.Join(path.Dir(p), filepath.ToSlash(target))
	return t != p && (IsSkillDir(t) || IsSkillDir(path.Dir(t)))
}

// isSkillDir says whether p is one of SkillDirs.
func IsSkillDir(p string) bool {
	for _, d := range SkillDirs {
		if p == d {
			return true
		}
	}
	return false
}

// SkillDirs are where skills are discovered.
var SkillDirs = []string{AgentSkillsDir, ClaudeSkillsDir}

// Roots are the directories entries live under.
var Roots = []string{Dir, ClaudeSkillsDir}

// KnowledgePath is where the knowledge entry with this slug lives.
func KnowledgePath(slug string) string { return KnowledgeDir + "/" + slug + ".md" }

// LearningPath is where the learning with this id lives.
func LearningPath(id string) string { return LearningsDir + "/" + id + ".md" }

// JournalPath is where an iteration's entry lives: <NNNN>-<tag>.md in
// its run's directory, tag a few random hex digits (JournalTagBytes).
// Two branches that continue one run record the same iteration numbers;
// with the number alone in the name (<NNNN>.md, as seeds 000 and 002 have
// it and lore wrote before) both wrote one path, and git merge and git
// rebase stopped on add/add conflicts. With the tag, each iteration's file
// is its own and the branches merge without touching each other's; two
// files may then carry one iteration number, which every reader orders
// (CompareIterations) and tells apart by the name. tag "" is the old name.
func JournalPath(run string, iteration int, tag string) string {
	if tag == "" {
		return fmt.Sprintf("%s/%s/%04d.md", JournalDir, run, iteration)
	}
	return fmt.Sprintf("%s/%s/%04d-%s.md", JournalDir, run, iteration, tag)
}

// JournalTagBytes is how many random bytes a new iteration's tag holds:
// six hex digits, so that two branches recording one iteration number pick
// the same name once in 16 million (and then the merge driver keeps both
// between markers: nothing is lost).
const JournalTagBytes = 3

// JournalFileName reads the name of an iteration's file: <NNNN>.md or
// <NNNN>-<tag>.md, the tag lowercase letters and digits. ok is false for
// any other name (a file lore did not name, still read as an entry).
func JournalFileName(name string) (iteration int, tag string, ok bool) {
	stem, found := strings.CutSuffix(name, ".md")
	if !found {
		return 0, "", false
	}
	num, tag, tagged := strings.Cut(stem, "-")
	if num == "" || len(num) > 9 || strings.Trim(num, "0123456789") != "" ||
		(tagged && (tag == "" || strings.Trim(tag, "0123456789abcdefghijklmnopqrstuvwxyz") != "")) {
		return 0, "", false
	}
	n, err := strconv.Atoi(num)
	return n, tag, err == nil
}

// KindOfID says which kind of entry an id names, by its shape — "mem-…"
// a memory, "l-" and six hex digits a learning, "<run>/<iteration>" an
// iteration, anything else a knowledge slug — and returns it trimmed.
func KindOfID(id string) (Kind, string) {
	id = strings.TrimSpace(id)
	switch {
	case strings.HasPrefix(id, "mem-"):
		return KindMemory, id
	case isLearningID(id):
		return KindLearning, id
	case strings.Contains(id, "/"):
		return KindJournal, id
	}
	return KindKnowledge, id
}

// KindOf says which kind of entry the store file p holds, "" when p is not
// an entry file. p is relative to the store root with '/' separators:
// .agent/memories.md, .agent/knowledge/<slug>.md, .agent/learnings/<id>.md,
// .agent/journal/<run>/<name>.md (JournalFileName's or any other), or
// <skill dir>/<name>/SKILL.md.
func KindOf(p string) Kind {
	if p == MemoriesPath {
		return KindMemory
	}
	dir, name := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	if strings.HasPrefix(name, ".") {
		return ""
	}
	if name == "SKILL.md" {
		parent := path.Dir(dir)
		for _, d := range SkillDirs {
			if parent == d {
				return KindSkill
			}
		}
		return ""
	}
	if !strings.HasSuffix(name, ".md") {
		return ""
	}
	switch {
	case dir == KnowledgeDir:
		return KindKnowledge
	case dir == LearningsDir:
		return KindLearning
	case path.Dir(dir) == JournalDir && !strings.HasPrefix(path.Base(dir), "."):
		return KindJournal
	}
	return ""
}

// Descend says whether a walk of the store goes into directory name
// inside dir: .agent's entry folders, journal runs and skills.
func Descend(dir, name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	switch dir {
	case Dir:
		return name == path.Base(KnowledgeDir) || name == path.Base(LearningsDir) ||
			name == path.Base(JournalDir) || name == path.Base(AgentSkillsDir)
	case JournalDir, AgentSkillsDir, ClaudeSkillsDir:
		return true
	}
	return false
}

// InStore says whether p is a file of the store: under .agent/, or a
// skill.
func InStore(p string) bool {
	return strings.HasPrefix(p, Dir+"/") || KindOf(p) == KindSkill
}

// StorePath turns a path relative to the worktree's top into one relative
// to the store root, which is what tells the kind of a file: the store may
// live in a subdirectory (sub/.agent/memories.md).
func StorePath(p string) string {
	p = path.Clean(filepath.ToSlash(p))
	for _, root := range Roots {
		root += "/"
		if strings.HasPrefix(p, root) {
			return p
		}
		if i := strings.Index(p, "/"+root); i >= 0 {
			return p[i+1:]
		}
	}
	return p
}
