package lifecycle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"lore/internal/fsx"
	"lore/mdstore/entry"
)

// The stores of the systems lore's seeds describe, relative to a
// project's top.
const (
	ralphMemoriesPath = ".ralph/agent/memories.md"
	ralphKnowledgeDir = ".ralph/knowledge"
	ralphProgressDB   = ".ralph/progress.db"
	aiwgLearningsPath = ".aiwg/knowledge/ralph-learnings.json"
)

// MaxSeedFileSize caps what an import reads of a seed system's file
// (aiwg's learnings hold every learning in one file).
const MaxSeedFileSize = 64 << 20

// ReadSeedStores reads the stores of the systems lore's seeds describe
// that lie in dir (a project, or its .ralph or .aiwg directory):
// ralph-orchestrator's .ralph/agent/memories.md (lore's own format),
// RefoundAI ralph's .ralph/knowledge/*.md (lore's knowledge format, the
// slug its file name) and the journal of its .ralph/progress.db (a SQLite
// database, read by readDB), and aiwg's .aiwg/knowledge/ralph-learnings.json
// (seed 004's learnings, its checksum verified), as an Export for Import.
// found names what was read. Nothing is read through a symbolic link, and
// a store that is a link, a FIFO, a device or too large is an error, as is
// a progress.db that readDB cannot read or aiwg's file when it is damaged;
// a knowledge file or memory that does not parse is a warning, and left out.
// ralph-orchestrator's decisions.md, beads' memories, a CLAUDE.md and
// Claude Code's memory folder are read too (readRalphDecisions,
// readOtherStores).
func ReadSeedStores(dir string, readDB func(path string) ([]entry.JournalEntry, error)) (x Export, found []string, warnings []entry.Warning, err error) {
	x, found, warnings, err = readSeedStores(dir, readDB)
	if err != nil || filepath.Base(filepath.Clean(dir)) == ".aiwg" {
		return x, found, warnings, err
	}
	top := filepath.Clean(dir)
	if filepath.Base(top) == ".ralph" {
		top = filepath.Dir(top)
	}
	found, warnings, err = readOtherStores(top, &x, found, warnings)
	return x, found, warnings, err
}

func readSeedStores(dir string, readDB func(path string) ([]entry.JournalEntry, error)) (x Export, found []string, warnings []entry.Warning, err error) {
	x = Export{Version: ExportVersion}
	// top is the project: the stores are read as paths below it, so that
	// no directory on the way is a link (fsx.CheckDirs).
	top, ralph, aiwg := filepath.Clean(dir), ralphMemoriesPath, aiwgLearningsPath
	switch filepath.Base(top) {
	case ".ralph":
		top = filepath.Dir(top)
	case ".aiwg":
		top, ralph = filepath.Dir(top), "" // the .ralph of .aiwg is none
	}
	if ralph != "" {
		if data, p, err := readSeedFile(top, ralphMemoriesPath, entry.MemoriesReadLimit); err == nil {
			ms, ws := entry.ParseMemories(data, p)
			x.Memories, warnings = append(x.Memories, ms...), append(warnings, ws...)
			found = append(found, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return x, found, warnings, err
		}
	}
	if data, p, err := readSeedFile(top, aiwg, MaxSeedFileSize); err == nil {
		ls, reid, ws, err := readAiwg(p, data)
		if err != nil {
			return x, found, warnings, err
		}
		x.Learnings, x.reid, warnings = append(x.Learnings, ls...), reid, append(warnings, ws...)
		found = append(found, p)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return x, found, warnings, err
	}
	if ralph == "" {
		return x, found, warnings, nil
	}
	db := filepath.Join(top, ralphProgressDB)
	if err := checkSeedPath(top, ralphProgressDB); err == nil {
		journal, err := readDB(db)
		if err != nil {
			return x, found, warnings, err
		}
		x.Journal = append(x.Journal, journal...)
		found = append(found, db)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return x, found, warnings, err
	}
	if data, p, err := readSeedFile(top, ralphDecisionsPath, MaxSeedFileSize); err == nil {
		ms, err := readRalphDecisions(p, data)
		if err != nil {
			return x, found, warnings, err
		}
		x.Memories = append(x.Memories, ms...)
		found = append(found, p)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return x, found, warnings, err
	}
	kdir := filepath.Join(top, ralphKnowledgeDir)
	var entries []os.DirEntry
	if err = fsx.CheckDirs(top, ralphKnowledgeDir); err == nil {
		entries, err = fsx.ReadDir(kdir)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return x, found, warnings, seedError(err)
	}
	for _, e := range entries {
		name := e.Name()
		slug := strings.TrimSuffix(name, ".md")
		if slug == name || strings.HasPrefix(name, ".") || e.IsDir() {
			continue
		}
		data, p, err := readSeedFile(top, ralphKnowledgeDir+"/"+name, entry.FileReadLimit)
		if err != nil {
			return x, found, warnings, err
		}
		if !entry.IsSlug(slug) {
			warnings = append(warnings, entry.Warning{Path: p, Message: "left out: its name is not a slug lore can keep"})
			continue
		}
		k, err := entry.ParseKnowledge(data, entry.KnowledgePath(slug))
		if err != nil {
			warnings = append(warnings, entry.Warning{Path: p, Message: "left out: " + err.Error()})
			continue
		}
		x.Knowledge = append(x.Knowledge, k)
		found = append(found, p)
	}
	return x, found, warnings, nil
}

// readOtherStores reads, in the project top, the stores of the systems
// people keep their agents' memory in today: beads' memories (its
// config table's backup, .beads/backup/config.jsonl), a CLAUDE.md's
// sections, and when top is Claude Code's memory folder, its MEMORY.md's
// sections and its topic files. Each becomes knowledge (or, for
// ralph-orchestrator's decisions, memories: ReadSeedStores), named by a
// slug the source gives it, so that an entry the store has from the same
// source is that entry whatever its time (Export.sourceTag).
func readOtherStores(top string, x *Export, found []string, warnings []entry.Warning) ([]string, []entry.Warning, error) {
	from := len(x.Knowledge)
	if data, p, err := readSeedFile(top, beadsConfigPath, MaxSeedFileSize); err == nil {
		ks, ws, err := readBeadsMemories(p, data)
		if err != nil {
			return found, warnings, err
		}
		x.Knowledge, warnings = append(x.Knowledge, ks...), append(warnings, ws...)
		found = append(found, p)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return found, warnings, err
	}
	if data, p, err := readSeedFile(top, claudeProjectFile, entry.FileReadLimit); err == nil {
		x.Knowledge = append(x.Knowledge, readMarkdownSections(p, data, claudeProjectTag)...)
		found = append(found, p)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return found, warnings, err
	}
	if data, p, err := readSeedFile(top, claudeMemoryIndex, entry.FileReadLimit); err == nil {
		x.Knowledge = append(x.Knowledge, readMarkdownSections(p, data, claudeMemoryTag)...)
		found = append(found, p)
		entries, err := fsx.ReadDir(top)
		if err != nil {
			return found, warnings, seedError(err)
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".md") || name == claudeMemoryIndex || name == claudeProjectFile || strings.HasPrefix(name, ".") || e.IsDir() {
				continue
			}
			data, p, err := readSeedFile(top, name, entry.FileReadLimit)
			if err != nil {
				return found, warnings, err
			}
			k, err := readClaudeTopic(p, data)
			if err != nil || k.Slug == "" || k.Body == "" {
				msg := "left out: nothing lore can keep in it"
				if err != nil {
					msg = "left out: " + err.Error()
				}
				warnings = append(warnings, entry.Warning{Path: p, Message: msg})
				continue
			}
			x.Knowledge = append(x.Knowledge, k)
			found = append(found, p)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return found, warnings, err
	}
	uniqueSlugs(x.Knowledge, from)
	x.markSource(from)
	return found, warnings, nil
}

// readSeedFile reads the regular file rel (slash-separated) below top,
// through no link, of at most limit bytes; p is its path.
func readSeedFile(top, rel string, limit int64) (data []byte, p string, err error) {
	p = filepath.Join(top, filepath.FromSlash(rel))
	if err := fsx.CheckDirs(top, rel); err != nil {
		return nil, p, seedError(err)
	}
	data, err = fsx.ReadRegular(p, limit)
	return data, p, seedError(err)
}

// checkSeedPath checks that rel below top is a regular file reached
// through no link.
func checkSeedPath(top, rel string) error {
	p := filepath.Join(top, filepath.FromSlash(rel))
	if err := fsx.CheckDirs(top, rel); err != nil {
		return seedError(err)
	}
	info, err := os.Lstat(p)
	if err != nil {
		return err
	}
	return seedError(fsx.CheckRegular(p, info.Mode()))
}

// seedError words a file an import does not read: a link could point
// anywhere (a FIFO that never ends, /dev/zero, a file outside the
// project), so lore reads none.
func seedError(err error) error {
	if skip, ok := fsx.Skipped(err); ok {
		return &entry.InputError{Field: "dir", Msg: fmt.Sprintf("%s: %s: lore imports only regular files, reached through no symbolic link", skip.Path, skip.Reason())}
	}
	return err
}

// aiwgStore is aiwg's .aiwg/knowledge/ralph-learnings.json (seed 004's
// L3 semantic memory), as much of it as an import reads.
type aiwgStore struct {
	Checksum  string          `json:"checksum"`
	Learnings json.RawMessage `json:"learnings"`
}

type aiwgLearning struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	TaskType    string          `json:"taskType"`
	Content     json.RawMessage `json:"content"`
	Confidence  *float64        `json:"confidence"`
	SourceLoops []string        `json:"sourceLoops"`
	CreatedAt   string          `json:"createdAt"`
	SuccessRate *float64        `json:"successRate"`
}

// readAiwg reads aiwg's learnings, the file p holding data, as seed-004
// learnings: its SHA-256 checksum of the compact learnings array must hold
// (aiwg's own check; a mismatch means the file is damaged), each
// learning's type is its kind and category, its task type a tag, and its
// id a lore id made from aiwg's (aiwgID), the same on every import of the
// file: two whose ids would be one take the next id made from the second's
// (reid says each learning's seed, for Apply to go on when the store has
// the id for another).
func readAiwg(p string, data []byte) ([]entry.Learning, map[string]string, []entry.Warning, error) {
	var st aiwgStore
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: not aiwg's learnings: %w", p, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, st.Learnings); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", p, err)
	}
	sum := sha256.Sum256(compact.Bytes())
	if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, st.Checksum) {
		return nil, nil, nil, fmt.Errorf("%s: checksum mismatch (the file says %s, its learnings hash to %s): it is damaged; aiwg keeps a backup beside it (.bak)", p, st.Checksum, got)
	}
	var raw []aiwgLearning
	if err := json.Unmarshal(st.Learnings, &raw); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", p, err)
	}
	var out []entry.Learning
	var warnings []entry.Warning
	reid := map[string]string{}
	first := map[string]int{} // each aiwg id's first learning
	for i, a := range raw {
		kind := strings.ToLower(a.Type)
		body := aiwgText(a.Content)
		if !slices.Contains(entry.LearningKinds, kind) || body == "" {
			warnings = append(warnings, entry.Warning{Path: p, Message: fmt.Sprintf("learning %d: left out: a type of %s and content are needed", i+1, strings.Join(entry.LearningKinds, ", "))})
			continue
		}
		if j, ok := first[a.ID]; ok {
			warnings = append(warnings, entry.Warning{Path: p, Message: fmt.Sprintf("learning %d: its id is learning %d's too; both are imported, each under an id of its own", i+1, j+1)})
		} else {
			first[a.ID] = i
		}
		id := aiwgID(a.ID, 0)
		for n := 1; reid[id] != ""; n++ {
			id = aiwgID(a.ID, n)
		}
		reid[id] = a.ID
		l := entry.Learning{ID: id, Category: kind, Kind: kind, Status: "active",
			TaskType: a.TaskType, Confidence: a.Confidence, SuccessRate: a.SuccessRate, SourceRuns: a.SourceLoops,
			CreatedAt: a.CreatedAt, Body: body}
		l.Tags = []string{kind}
		if tt := strings.ToLower(strings.TrimSpace(a.TaskType)); tt != "" {
			l.Tags = []string{tt}
		}
		out = append(out, l)
	}
	return out, reid, warnings, nil
}

// aiwgID is the lore id made from aiwg's learning id: l- and the first
// six hex digits of SHA-256("aiwg:<id>"), or for the n-th next choice of
// SHA-256("aiwg:<id>#<n>"). Six hex digits are 24 bits, which 10,000
// learnings share by chance a few times: the next choice separates them.
func aiwgID(id string, n int) string {
	seed := "aiwg:" + id
	if n > 0 {
		seed += fmt.Sprintf("#%d", n)
	}
	sum := sha256.Sum256([]byte(seed))
	return "l-" + hex.EncodeToString(sum[:3])
}

func aiwgText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return strings.TrimSpace(s)
	}
	var fields map[string]any
	if json.Unmarshal(content, &fields) != nil {
		return ""
	}
	desc, _ := fields["description"].(string)
	var rest []string
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == "description" {
			continue
		}
		switch v := fields[k].(type) {
		case string, float64, bool:
			rest = append(rest, fmt.Sprintf("%s: %v", k, v))
		}
	}
	text := strings.TrimSpace(desc)
	if len(rest) > 0 {
		if text != "" {
			text += " "
		}
		text += "(" + strings.Join(rest, ", ") + ")"
	}
	return text
}
