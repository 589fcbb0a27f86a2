package index

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"lore/mdstore"
	"lore/mdstore/entry"
)

// Doc is one entry as search sees it.
type Doc struct {
	// ID names the document in the index: the store path of the entry's
	// file, and for a memory "<path>#<memory id>".
	ID string `json:"-"`
	// Kind is memory, knowledge, learning, journal or skill.
	Kind entry.Kind `json:"kind"`
	// EntryID is the id lore shows and `show` takes: mem-…, a knowledge
	// slug, l-…, <run>/<NNNN>-<tag> (mdstore.JournalEntry.Key), a skill name.
	EntryID string `json:"id"`
	// Type is a memory's type or a learning's category.
	Type    string    `json:"type,omitempty"`
	Tags    []string  `json:"tags"`
	Title   string    `json:"title,omitempty"`
	Content string    `json:"content"`
	Created time.Time `json:"created,omitzero"`
	Run     string    `json:"run,omitempty"`
	Task    string    `json:"task,omitempty"`
	Outcome string    `json:"outcome,omitempty"`
	// Status is a learning's when it is not shown by default: staged,
	// rejected, pruned, or superseded (superseded_by set, whatever its
	// status). "" is shown.
	Status string   `json:"status,omitempty"`
	Files  []string `json:"files,omitempty"`
	// Path is the store file the entry lives in.
	Path string `json:"path"`
}

// Query is what a search asks: free text ranked by relevance, and filters
// that every hit must pass. Empty fields do not filter.
type Query struct {
	Text       string
	Kinds      []entry.Kind
	Types      []string // memory types (any of them)
	Tags       []string // any of them
	Categories []string // learning categories (any of them)
	Task       string
	Run        string
	Since      time.Time // created at or after
	// Statuses are the learning statuses to find (Doc.Status, "active"
	// for one that is shown); none finds the shown ones only. Entries of
	// other kinds are shown.
	Statuses []string
	// Limit caps the hits returned; 0 returns every hit.
	Limit int
	// LimitPerKind makes Limit cap the hits of each kind rather than all
	// of them: prime ranks each section by the task, and a section's
	// best entries must not be crowded out by another kind's.
	LimitPerKind bool
	// Bare asks for hits that carry only their document's ID, path, kind
	// and score — and for a memory its id (EntryID): no stored entry to
	// read back, no snippet. Prime's ranking needs no more, and reading
	// back 100 entries costs more than the search.
	Bare bool
	// Strict makes only the rare words of the text count (QueryWords): an
	// entry matching none of them is no hit, and when every word of the
	// text is common (or a stop word) nothing is. Relevance asks so: an
	// entry that shares only common words with a task is not relevant to
	// it.
	Strict bool
}

// Capped is hits, ranked best first, cut to q's Limit: at most Limit
// of them, or with LimitPerKind at most Limit of each kind.
func (q Query) Capped(hits []Hit) []Hit {
	switch {
	case q.Limit <= 0 || len(hits) <= q.Limit:
		return hits
	case !q.LimitPerKind:
		return hits[:q.Limit]
	}
	out := hits[:0:0]
	n := map[entry.Kind]int{}
	for _, h := range hits {
		if n[h.Kind] < q.Limit {
			n[h.Kind]++
			out = append(out, h)
		}
	}
	return out
}

// HasFilters reports whether q restricts hits beyond its text.
func (q Query) HasFilters() bool {
	return len(q.Kinds) > 0 || len(q.Types) > 0 || len(q.Tags) > 0 || len(q.Categories) > 0 ||
		q.Task != "" || q.Run != "" || !q.Since.IsZero()
}

// Hit is one document that matched, with its score and a snippet of the
// content around the first match.
type Hit struct {
	Doc
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"`
}

// Result is a search's answer. Total counts every hit, also those beyond
// the query's Limit. Suggestion, set when nothing matched, is a query that
// would (the "did you mean").
type Result struct {
	Hits       []Hit  `json:"hits"`
	Total      int    `json:"total"`
	Suggestion string `json:"suggestion,omitempty"`
}

// Index is a searchable set of documents.
type Index interface {
	// Index adds the documents, replacing any with the same ID.
	Index(docs ...Doc) error
	// Remove drops the documents with these IDs; unknown IDs are ignored.
	Remove(ids ...string) error
	// Search answers q.
	Search(q Query) (Result, error)
	// Clear drops every document.
	Clear() error
}

// DocsFromFile turns the entries of store file p into documents.
func DocsFromFile(p string, fe entry.FileEntries) []Doc {
	switch {
	case fe.Kind == entry.KindMemory:
		docs := make([]Doc, 0, len(fe.Memories))
		seen := make(map[string]bool, len(fe.Memories))
		for _, m := range fe.Memories {
			if seen[m.ID] { // a duplicate id is reported by the parser; the first one counts
				continue
			}
			seen[m.ID] = true
			docs = append(docs, MemoryDoc(p, m))
		}
		return docs
	case fe.Knowledge != nil:
		k := fe.Knowledge
		return []Doc{{ID: p, Kind: entry.KindKnowledge, EntryID: k.Slug, Tags: k.Tags, Title: k.Title,
			Content: k.Body, Created: entry.ParseTimestamp(k.CreatedAt), Files: sourcePaths(k.Sources), Path: p}}
	case fe.Learning != nil:
		l := fe.Learning
		return []Doc{{ID: p, Kind: entry.KindLearning, EntryID: l.ID, Type: l.Category, Tags: l.Tags,
			Content: l.Body, Created: entry.ParseTimestamp(l.CreatedAt), Task: l.Task, Status: l.State(), Path: p}}
	case fe.Journal != nil:
		j := fe.Journal
		return []Doc{{ID: p, Kind: entry.KindJournal, EntryID: j.Key(), Content: journalText(j),
			Created: entry.ParseTimestamp(j.CreatedAt), Run: j.RunID, Task: j.TaskID, Outcome: j.Outcome,
			Files: j.FilesModified, Path: p}}
	case fe.Skill != nil:
		sk := fe.Skill
		return []Doc{{ID: p, Kind: entry.KindSkill, EntryID: sk.Name, Title: sk.Name, Content: sk.Description, Path: p}}
	}
	return nil
}

// MemoryDoc is the document of one memory of memories.md at p.
func MemoryDoc(p string, m entry.Memory) Doc {
	return Doc{ID: p + "#" + m.ID, Kind: entry.KindMemory, EntryID: m.ID, Type: string(m.Type),
		Tags: m.Tags, Content: m.Content, Created: m.CreatedTime(), Path: p}
}

// journalText is what search reads of a journal entry: the notes and the
// failure report, stack trace included (a pasted error message finds the
// iteration that hit it), which is where an iteration's words are.
func journalText(j *entry.JournalEntry) string {
	var b strings.Builder
	b.WriteString(j.Notes)
	if f := j.Failure; f != nil {
		for _, s := range []string{f.WhatTried, f.WhyFailed, f.ErrorCategory, f.RetrySuggestion, f.StackTrace} {
			if s != "" {
				fmt.Fprintf(&b, "\n%s", s)
			}
		}
	}
	return strings.TrimSpace(b.String())
}

func sourcePaths(sources []entry.Source) []string {
	var out []string
	for _, s := range sources {
		out = append(out, s.Path)
	}
	return out
}

// Dir is where a store's search index lives: <git-dir>/lore/index (per
// worktree, never committed), or .agent/.lore/index outside git.
func Dir(s *mdstore.Store) string { return filepath.Join(s.StateDir(), "index") }

// Files of the index directory that lore reads without lore-index (the
// layout is package fresh's): CurrentFile names the live generation,
// LockFile is held by the one process writing the index.
const (
	CurrentFile = "current"
	LockFile    = "write.lock"
)

// StatusActive is the status of a shown entry (Query.Statuses).
const StatusActive = "active"

// StatusSuperseded is the status of a learning another replaced.
const StatusSuperseded = entry.StateSuperseded

// Statuses are every value Query.Statuses takes.
var Statuses = append([]string{StatusActive, StatusSuperseded}, entry.LearningStatuses[1:]...)

// wantsStatus says whether q finds a document of status st.
func (q Query) wantsStatus(st string) bool { return entry.Wanted(q.Statuses, st) }

// HiddenStatuses are the statuses q does not find, of those a document
// carries (Doc.Status: all but active), and whether q finds shown
// documents: what an index filters with.
func (q Query) HiddenStatuses() (hidden []string, shown bool) {
	for _, st := range Statuses[1:] {
		if !q.wantsStatus(st) {
			hidden = append(hidden, st)
		}
	}
	return hidden, q.wantsStatus(StatusActive)
}
