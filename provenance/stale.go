package provenance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"lore/internal/fsx"
	"lore/internal/gitx"
	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/cites"
	"lore/mdstore/entry"
)

// State is what became of a cited file at HEAD.
type State string

const (
	Fresh   State = ""        // HEAD has the cited content at the cited path
	Changed State = "changed" // HEAD has other content there
	Gone    State = "gone"    // HEAD has no file there, nor the content elsewhere
	Moved   State = "moved"   // HEAD has the cited content at another path
)

// Check is a citation as HEAD sees it.
type Check struct {
	cites.Cite
	State   State
	MovedTo string // with Moved: where the content is now
}

// Stale reports whether the citation no longer holds.
func (c Check) Stale() bool { return c.State == Changed || c.State == Gone }

// Report is every cited entry of a store as HEAD sees it, by entry key
// (cites.KeyOf). What prime, search and lore stale ask of it — which
// entries are stale, the checks of one, whether one cites anything — it
// answers without holding every entry's checks: a report from the cache
// (cache.go) holds those of the entries that are not all fresh, and the
// keys of the others; their checks are read when one is asked (Of).
type Report struct {
	Head gitx.Hash
	repo *gitx.Repo
	// marked is each entry with a citation that is not fresh (changed,
	// gone or moved), with all its checks; from the cache, those looked
	// up so far in checks (a nil value: none), and stale is the keys of
	// the stale entries.
	marked map[string][]Check
	checks []byte // check lines, sorted by key (cache.go)
	stale  []string
	// all is every entry's checks, once read (at first from the cache it
	// is nil: keys tells the cited entries, load reads all).
	all    map[string][]Check
	keys   []byte // sorted, a line each
	load   func() (map[string][]Check, error)
	since  map[string]Since   // Changes' answers, by file and cited blob
	follow map[string]Renamed // Follow's answers, by file and cited blob
	// fromCache tells a report read from the cache (for the tests).
	fromCache bool
	// holds says whether the store holds an entry (holder): Stale lists
	// only those.
	holds func(key string) (bool, error)
}

// Of is the checks of the entry whose memory id or store path is given.
func (r *Report) Of(idOrPath string) []Check {
	if r == nil {
		return nil
	}
	key := cites.KeyOf(idOrPath)
	if checks := r.markedOf(key); checks != nil {
		return checks
	}
	if r.all == nil && hasLine(r.keys, key) && r.load != nil {
		if all, err := r.load(); err == nil {
			r.all = all
		}
		r.load = nil
	}
	return r.all[key]
}

// Cites reports whether the entry whose memory id or store path is given
// cites any file.
func (r *Report) Cites(idOrPath string) bool {
	if r == nil {
		return false
	}
	key := cites.KeyOf(idOrPath)
	if r.markedOf(key) != nil {
		return true
	}
	if r.all != nil {
		return len(r.all[key]) > 0
	}
	return hasLine(r.keys, key)
}

// StaleKeys is the keys of the stale entries, sorted.
func (r *Report) StaleKeys() []string {
	if r == nil {
		return nil
	}
	if r.stale == nil {
		r.stale = []string{}
		for key := range r.marked {
			if len(r.StaleOf(key)) > 0 {
				r.stale = append(r.stale, key)
			}
		}
		sort.Strings(r.stale)
	}
	return r.stale
}

// markedOf is the checks of entry key when one is not fresh, else nil.
func (r *Report) markedOf(key string) []Check {
	checks, ok := r.marked[key]
	if ok || r.checks == nil {
		return checks
	}
	checks = findChecks(r.checks, key)
	if r.marked == nil {
		r.marked = map[string][]Check{}
	}
	r.marked[key] = checks
	return checks
}

// MarkOf is Mark of a search hit: a memory by its id, any other entry
// by its file (path), "" for a fresh one or an empty report.
func (r *Report) MarkOf(kind entry.Kind, id, path string) string {
	if r == nil || len(r.marked) == 0 && len(r.stale) == 0 {
		return ""
	}
	if kind == entry.KindMemory {
		return r.Mark(id)
	}
	return r.Mark(path)
}

// StaleOf is the checks of idOrPath that no longer hold. An iteration's
// are none: it records the files it changed, and is history, which the
// code going on does not make wrong.
func (r *Report) StaleOf(idOrPath string) []Check {
	key := cites.KeyOf(idOrPath)
	if r == nil || strings.HasPrefix(key, "journal/") {
		return nil
	}
	var out []Check
	for _, c := range r.markedOf(key) {
		if c.Stale() {
			out = append(out, c)
		}
	}
	return out
}

// Read checks every citation of s against HEAD: one read of the
// citations file, one lookup per cited file in git's index, and, only
// when some file is gone from its path, one walk of HEAD's tree for where
// its content went. What it found is kept in the clone's state directory
// (cache.go), and read back while none of what it depends on changed. A
// store outside git, or without citations, has an empty report.
func Read(s *mdstore.Store) (*Report, error) {
	return read(s, true)
}

func read(s *mdstore.Store, cached bool) (*Report, error) {
	r, err := readReport(s, cached)
	if r != nil {
		r.holds = holder(s)
	}
	return r, err
}

func readReport(s *mdstore.Store, cached bool) (*Report, error) {
	r := &Report{all: map[string][]Check{}}
	if s.Repo() == nil {
		return r, nil
	}
	r.repo = s.Repo()
	path := filepath.Join(s.Root(), filepath.FromSlash(cites.Path))
	var c *cache
	if cached {
		c = openCache(s)
		if hit := c.report(r, path); hit != nil {
			return hit, nil
		}
	}
	citesStamp, _ := fsx.Lstat(path)
	data, err := fsx.ReadRegular(path, int64(entry.WriteLimit(cites.Path)))
	if errors.Is(err, fs.ErrNotExist) {
		c.remove()
		return r, nil // nothing cited
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", cites.Path, err)
	}
	lines, _ := cites.Parse(data)
	if len(lines) == 0 {
		c.remove()
		return r, nil
	}
	var files []string // each cited file once: many entries cite the same ones
	seen := map[string]bool{}
	for _, l := range lines {
		if !seen[l.File] {
			seen[l.File] = true
			files = append(files, l.File)
		}
	}
	indexStamp, _ := fsx.Lstat(r.repo.IndexFile())
	// git's index, not HEAD's tree: one sorted, mapped file to look every
	// path up in (HEAD's content, unless a change is staged: then what
	// the next commit holds).
	staged, err := s.Repo().StagedOf(files)
	if err != nil {
		return nil, err
	}
	if r.Head, err = s.Repo().HeadCommit(); err != nil {
		return nil, err
	}
	gone := map[gitx.Hash]bool{}
	for _, l := range lines {
		c := Check{Cite: l.Cite}
		switch now := staged[l.File].Blob; {
		case now.IsZero():
			c.State = Gone
			gone[gitx.ParseHash(l.Blob)] = true
		case now.String() != l.Blob:
			c.State = Changed
		}
		r.all[l.Key] = append(r.all[l.Key], c)
	}
	var moved map[gitx.Hash]string
	if len(gone) > 0 {
		if moved, err = s.Repo().HeadPathsOf(gone); err != nil {
			return nil, err
		}
		for _, checks := range r.all {
			for i := range checks {
				if to := moved[gitx.ParseHash(checks[i].Blob)]; checks[i].State == Gone && to != "" {
					checks[i].State, checks[i].MovedTo = Moved, to
				}
			}
		}
	}
	r.marked = map[string][]Check{}
	for key, checks := range r.all {
		for _, c := range checks {
			if c.State != Fresh {
				r.marked[key] = checks
				break
			}
		}
	}
	c.write(r, inputs{cites: citesStamp, citesSum: sum(data), index: indexStamp, head: r.Head, staged: staged, gone: gone, moved: moved})
	return r, nil
}

// Since is what happened to a cited file since it was cited: the commits
// along HEAD's first parents that changed it after the cited content,
// newest first (at most max), and how many there were.
type Since struct {
	Commits int
	Last    gitx.Version // the newest
	First   gitx.Version // the oldest, the change that made the entry stale
	whole   bool         // the walk reached the cited content (not max)
}

// Keep keeps the objects git reads until release is called: for the
// marks of one prime, each of which walks a file's history.
func (r *Report) Keep() (release func()) {
	if r == nil || r.repo == nil {
		return func() {}
	}
	return r.repo.KeepObjects()
}

// Changes walks the history of c's file back to the cited content (once
// for a file and cited content: the answer is kept).
func (r *Report) Changes(c Check, max int) (Since, error) {
	var out Since
	if r == nil || r.repo == nil {
		return out, nil
	}
	key := c.File + "\x00" + c.Blob
	if since, ok := r.since[key]; ok && (since.whole || since.Commits >= max) {
		since.Commits = min(since.Commits, max)
		return since, nil
	}
	defer r.repo.KeepObjects()()
	err := r.repo.History(c.File, func(v gitx.Version) bool {
		if v.Blob.String() == c.Blob {
			return false
		}
		if out.Commits == 0 {
			out.Last = v
		}
		out.First = v
		out.Commits++
		return v.Before.String() != c.Blob && out.Commits < max
	})
	if err == nil {
		if r.since == nil {
			r.since = map[string]Since{}
		}
		out.whole = out.Commits < max
		r.since[key] = out
	}
	return out, err
}

// Mark is what prime, search and the MCP tools say of a stale entry, from
// its first stale citation: "cites `a.go`, changed in 3 commits since —
// last a1b2c3d "Switch sessions to JWT": check before relying on it".
func (r *Report) Mark(idOrPath string) string {
	stale := r.StaleOf(idOrPath)
	if len(stale) == 0 {
		return ""
	}
	c := stale[0]
	what := fmt.Sprintf("cites `%s`", c.Ref())
	if c.State == Gone {
		what += r.goneSince(c)
	} else if since, err := r.Changes(c, 100); err == nil && since.Commits > 0 {
		n := fmt.Sprint(since.Commits)
		if since.Commits >= 100 {
			n = "100 or more"
		}
		what += fmt.Sprintf(", changed in %s %s since — last %s %q", n, words.Plural(since.Commits, "commit", "commits"),
			since.Last.Commit.String()[:7], since.Last.Subject)
	} else {
		what += ", changed since"
	}
	if len(stale) > 1 {
		what += fmt.Sprintf(" (and %d more %s)", len(stale)-1, words.Plural(len(stale)-1, "file", "files"))
	}
	return what + ": check before relying on it"
}

// goneSince says where c's gone file went: ", moved to `b.go` with
// changes by a1b2c3d "Split the parser"", or ", gone since a1b2c3d
// "Drop the old parser"".
func (r *Report) goneSince(c Check) string {
	if m, err := r.Follow(c); err == nil && m.To != "" {
		return fmt.Sprintf(", moved to `%s` with changes by %s %q", m.To, m.Via.Commit.String()[:7], m.Via.Subject)
	}
	if v, err := r.removal(c.File); err == nil && !v.Commit.IsZero() {
		return fmt.Sprintf(", gone since %s %q", v.Commit.String()[:7], v.Subject)
	}
	return ", gone since"
}

// StaleEntry is one stale entry for lore stale: its key, what it cites
// that no longer holds, and when the oldest of those changes was.
type StaleEntry struct {
	Key    string    `json:"entry"`
	Checks []Check   `json:"-"`
	Since  time.Time `json:"since"` // the oldest change since a citation, zero when unknown
	Mark   string    `json:"mark"`
}

// Stale lists the stale entries the store holds, the oldest change first
// (an entry whose file is gone, with no change found, last). A row of
// citations.md outlives an entry removed by hand (git rm, a merge) or by
// a lore older than the removal of a deleted entry's rows with it: lore
// stale must not list, nor lore verify re-stamp, an entry that is not
// there.
func (r *Report) Stale() ([]StaleEntry, error) {
	if r.repo != nil {
		defer r.repo.KeepObjects()()
	}
	var out []StaleEntry
	for _, key := range r.StaleKeys() {
		if r.holds != nil {
			if held, err := r.holds(key); err != nil {
				return nil, err
			} else if !held {
				continue
			}
		}
		stale := r.StaleOf(key)
		for _, c := range stale {
			if _, err := r.Changes(c, 1<<20); err != nil { // walked once, whole: Mark reads the answer
				return nil, err
			}
		}
		e := StaleEntry{Key: key, Checks: stale, Mark: r.Mark(key)}
		for _, c := range stale {
			t := r.since[c.File+"\x00"+c.Blob].First.When
			if !t.IsZero() && (e.Since.IsZero() || t.Before(e.Since)) {
				e.Since = t
			}
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Since, out[j].Since
		switch {
		case a.IsZero() != b.IsZero():
			return b.IsZero()
		case !a.Equal(b):
			return a.Before(b)
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}

// ID is the id a person names an entry by, from its key: a memory's id,
// a knowledge slug, a learning's id, run/NNNN-tag for an iteration.
func ID(key string) string {
	switch {
	case strings.HasPrefix(key, "knowledge/"):
		return strings.TrimSuffix(strings.TrimPrefix(key, "knowledge/"), ".md")
	case strings.HasPrefix(key, "learnings/"):
		return strings.TrimSuffix(strings.TrimPrefix(key, "learnings/"), ".md")
	case strings.HasPrefix(key, "journal/"):
		return strings.TrimSuffix(strings.TrimPrefix(key, "journal/"), ".md")
	}
	return key
}

// KeyOfID is the key of the entry a person names: a memory's id, a
// knowledge slug, a learning's id, or run/NNNN-tag; "" for none of these.
func KeyOfID(id string) string {
	switch kind, id := entry.KindOfID(id); kind {
	case entry.KindMemory:
		return id
	case entry.KindLearning:
		return cites.KeyOf(entry.LearningPath(id))
	case entry.KindJournal:
		return "journal/" + strings.TrimSuffix(id, ".md") + ".md"
	case entry.KindKnowledge:
		return cites.KeyOf(entry.KnowledgePath(strings.TrimSuffix(id, ".md")))
	}
	return ""
}

// Restamp is what entry key cites, stamped at HEAD: a moved file at its
// new path (moved with changes too: Follow), a changed one with HEAD's
// content; a file gone is left out (dropped names it).
func (r *Report) Restamp(key string) (cs []cites.Cite, dropped []string, err error) {
	checks := r.Of(key)
	files := make([]string, 0, len(checks))
	for _, c := range checks {
		f := c.File
		switch c.State {
		case Moved:
			f = c.MovedTo
		case Gone:
			if m, err := r.Follow(c); err != nil {
				return nil, nil, err
			} else if m.To != "" {
				f = m.To
			}
		}
		files = append(files, f)
	}
	head, blobs, err := r.repo.HeadBlobs(files)
	if err != nil {
		return nil, nil, err
	}
	for i, c := range checks {
		b := blobs[files[i]]
		if b.IsZero() {
			dropped = append(dropped, c.Ref())
			continue
		}
		cs = append(cs, cites.Cite{File: files[i], Lines: c.Lines, Blob: b.String(), Commit: head.String()})
	}
	return cs, dropped, nil
}

// Holds says whether the store holds the entry of key (KeyOfID).
func Holds(s *mdstore.Store, key string) (bool, error) { return holder(s)(key) }

// holder says of keys whether the store holds their entries: a file's by
// its file, a memory's by memories.md's ids (read once).
func holder(s *mdstore.Store) func(key string) (bool, error) {
	var ids map[string]bool
	return func(key string) (bool, error) {
		if strings.Contains(key, "/") { // knowledge/…, learnings/…, journal/…
			_, err := os.Lstat(filepath.Join(s.Root(), entry.Dir, filepath.FromSlash(key)))
			if errors.Is(err, fs.ErrNotExist) {
				return false, nil
			}
			return true, nil // there, or not to be told: listed as before
		}
		if ids == nil {
			ms, _, err := s.Memories()
			if err != nil {
				return false, err
			}
			ids = make(map[string]bool, len(ms))
			for _, m := range ms {
				ids[m.ID] = true
			}
		}
		return ids[key], nil
	}
}
