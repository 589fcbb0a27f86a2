package index

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"lore/internal/fsx"
	"lore/internal/gitx/gitconfig"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// Timeout bounds how long a search waits for another process that holds
// the search index before it scans the files instead.
const Timeout = 500 * time.Millisecond

// Searcher answers the searches of one command: through lore-index when
// it is installed and answers, else by scanning the files — the one
// fallback policy, for the CLI and any other front end. It answers one
// question: Search, or Relevance. lore-index is started for the question,
// once lore knows the index was built: a fresh clone's first search is
// answered by the scan, and starting lore-index then would only compete
// with it (starting it while the store was opened saved nothing
// measurable: 1k entries, 50 searches each way).
type Searcher struct {
	name     string    // lore-index's path
	progress io.Writer // hears lore-index's progress
	err      error     // why there is no helper
	// quiet: the environment asked for scanning (LORE_INDEX=off), so
	// scanning is not worth a notice.
	quiet bool
	// build, when set, is what Close asks lore-index: to build the index
	// of a store whose search was answered by scanning (OpBuild), with
	// buildLock, the index's write lock, held meanwhile.
	build     *Request
	buildLock *os.File
	mu        sync.Mutex // build and buildLock: Relevance sets them from its goroutine
	// waitBuild: LORE_INDEX_BUILD=wait asked Close to wait for that
	// build (tests, and scripts that remove a clone right after a search).
	waitBuild bool
	// residentEnv is LORE_INDEX_SERVER ("" when unset: git config
	// lore.indexServer decides whether lore starts a resident
	// lore-index), and resident, when set, the store Close starts one for.
	residentEnv string
	resident    *Request
}

// NewSearcher finds lore-index (see FindHelper); progress hears what it
// says while it works (a rebuild's progress bar).
func NewSearcher(getenv func(string) string, progress io.Writer) *Searcher {
	name, err := FindHelper(getenv)
	if err != nil {
		return &Searcher{err: err, quiet: getenv("LORE_INDEX") != ""}
	}
	if progress == nil {
		progress = io.Discard
	}
	return &Searcher{name: name, progress: progress, waitBuild: getenv("LORE_INDEX_BUILD") == "wait", residentEnv: getenv(ResidentEnv)}
}

// Close, when a search found that the index was never built (see
// Search), runs a lore-index that builds it at a low priority and does
// not wait for it (Tell): the build goes on after lore has gone — unless
// LORE_INDEX_BUILD=wait, for a test or a script that removes the clone
// right after the search. A nil Searcher is closed too.
func (sr *Searcher) Close() {
	if sr == nil {
		return
	}
	sr.mu.Lock()
	build, lock, resident := sr.build, sr.buildLock, sr.resident
	sr.mu.Unlock()
	// Started now, after the answer. What fails here, the next search
	// tries again.
	if build != nil {
		Tell(sr.name, *build, lock, sr.waitBuild)
	}
	if resident != nil {
		StartResident(sr.name, *resident)
	}
}

// ask is lore-index's answer to req about store s: the resident
// lore-index's when one serves s, else that of lore-index run for req —
// and then, when the person asked for a resident one (wantResident),
// Close starts it.
func (sr *Searcher) ask(s *mdstore.Store, req Request) (Response, error) {
	resp, err := AskResident(req.Dir, sr.name, req)
	if err == nil {
		return resp, nil
	}
	if errors.Is(err, ErrNoResident) && sr.wantResident(s) && ResidentError(req.Dir) == "" {
		serve := StoreRequest(s, OpServe)
		sr.mu.Lock()
		sr.resident = &serve
		sr.mu.Unlock()
	}
	return Call(sr.name, req, sr.progress)
}

// wantResident says whether lore should start a resident lore-index for
// s: LORE_INDEX_SERVER=1 or 0 decides, else git config lore.indexServer
// (off by default, as git's core.fsmonitor is). Only Linux has one, and
// only a store in git: outside it the index directory is in .agent/,
// where lore keeps regular files only.
func (sr *Searcher) wantResident(s *mdstore.Store) bool {
	if !ResidentsWork || s.Repo() == nil {
		return false
	}
	if sr.residentEnv != "" {
		if on, ok := gitconfig.ParseBool(sr.residentEnv); ok {
			return on
		}
	}
	return s.Repo().ConfigBool("lore.indexServer", false)
}

// Answer is a search's result with what the person should hear about how
// it was found: the problems of the files read (Warnings) and one line
// each on a rebuilt index, a fallback to scanning, or an earlier update
// that failed (Notices).
type Answer struct {
	Result   Result
	Warnings []entry.Warning
	Notices  []string
}

// Search answers q about store s with the index, or by scanning the files
// when lore-index is not installed, busy or broken, saying so.
func (sr *Searcher) Search(s *mdstore.Store, q Query) (Answer, error) {
	var a Answer
	scan := func(why string) (Answer, error) {
		if why != "" {
			a.Notices = append(a.Notices, why+"; searched by scanning the files")
		}
		files, err := ListFiles(s.Root())
		if err != nil {
			return a, err
		}
		res, warnings, err := files.Scan(q)
		if err != nil {
			return a, err
		}
		a.Warnings = append(a.Warnings, unsaid(s, warnings)...)
		a.Result = res
		return a, nil
	}
	switch {
	case !s.Exists():
		// Nothing to search, and nothing to build an index of: asking
		// lore-index would make .agent/ (outside git, the index lives in
		// it), and a later lore init below would take it for the store.
		return scan("")
	case errors.Is(sr.err, ErrNoHelper) && sr.quiet:
		return scan("")
	case errors.Is(sr.err, ErrNoHelper):
		return scan(sr.err.Error())
	case sr.err != nil:
		return scan(fmt.Sprintf("the search index failed (%v)", sr.err))
	}
	if lock := unbuilt(Dir(s)); lock != nil {
		// The first search of a fresh clone: the answer comes first, by
		// the scan lore would do without lore-index, and the index is
		// built after it (Close), so that it competes with nothing.
		// Holding the write lock from now on, every other process waits
		// for the build, as for any writer.
		a, err := scan("")
		if err != nil {
			lock.Close()
			return a, err
		}
		a.Notices = append(a.Notices, "searched by scanning the files: the search index is being built in the background (there was no index)")
		sr.buildAfter(s, lock)
		return a, nil
	}
	req := StoreRequest(s, OpSearch)
	req.Query, req.TimeoutMS = q, int(Timeout/time.Millisecond)
	resp, err := sr.ask(s, req)
	switch {
	case err != nil:
		return scan(fmt.Sprintf("the search index failed (%v)", err))
	case resp.Busy:
		return scan("the search index is busy (another lore process is writing it)")
	case resp.Error != "":
		return scan(fmt.Sprintf("the search index failed (%s)", resp.Error))
	}
	if resp.Report.Building != "" {
		a.Notices = append(a.Notices, fmt.Sprintf("searched by scanning the files: the search index is being built in the background (%s)", resp.Report.Building))
	}
	if resp.Report.Rebuilt {
		a.Notices = append(a.Notices, fmt.Sprintf("built the search index (%s): %d entries", resp.Report.Reason, resp.Report.Indexed))
	}
	a.Warnings = unsaid(s, resp.Report.Warnings)
	if resp.Report.LastError != "" {
		a.Notices = append(a.Notices, "the search index could not be brought fully up to date after an earlier search ("+
			resp.Report.LastError+"); this search found every change again; lore index rebuild starts it afresh")
	}
	a.Result = *resp.Result
	return a, nil
}

// unbuilt says whether the index in dir was never built and nobody is
// building it: it has no current generation and its write lock is free.
// It then returns the write lock, taken (exclusive), else nil. An index
// of another format, or a damaged one, is not unbuilt: lore-index decides
// what becomes of it. One that is being built is not either: lore-index
// waits for the build as for any writer.
func unbuilt(dir string) *os.File {
	if _, err := os.Lstat(filepath.Join(dir, CurrentFile)); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil
	}
	if ok, err := fsx.TryLock(f, true); err != nil || !ok {
		f.Close()
		return nil
	}
	// A build that finished between the look and the lock.
	if _, err := os.Lstat(filepath.Join(dir, CurrentFile)); !errors.Is(err, fs.ErrNotExist) {
		f.Close()
		return nil
	}
	return f
}

// buildAfter asks Close to build s's index, whose write lock is held.
func (sr *Searcher) buildAfter(s *mdstore.Store, lock *os.File) {
	req := StoreRequest(s, OpBuild)
	req.TimeoutMS = int(Timeout / time.Millisecond)
	sr.mu.Lock()
	sr.build, sr.buildLock = &req, lock
	sr.mu.Unlock()
}

// unsaid is the warnings of ws that were not said when the store was
// opened (a .agent that is a link is said then).
func unsaid(s *mdstore.Store, ws []entry.Warning) []entry.Warning {
	var out []entry.Warning
	for _, w := range ws {
		if !slices.Contains(s.Config().Warnings, w) {
			out = append(out, w)
		}
	}
	return out
}

// RelevantHits is how many of the best hits of each kind Relevance hears
// of.
const RelevantHits = 100

// Relevance asks, in the background, how relevant the entries of kinds
// are to text (learnings of statuses, Query.Statuses): for each kind, the
// best hits by their document id (the store path of their file; for a
// memory, memories.md's path, '#' and the memory's id), scored 0 to 1
// (the best of its kind 1). It asks the index, or scans the files when
// there is no lore-index or it fails — the fallback Search makes, so
// that prime ranks by relevance on every machine. It asks strictly
// (Query.Strict): an entry that shares only common words or stop words
// with text is not in the answer, and when every word of text is common
// the answer is empty — not nil: nothing is relevant. The answer is nil
// without a text, or when neither engine answers; the caller then ranks
// without it. It says nothing of why: the ranking stands without it.
func (sr *Searcher) Relevance(s *mdstore.Store, text string, statuses []string, kinds ...entry.Kind) <-chan map[string]float64 {
	out := make(chan map[string]float64, 1)
	if text == "" || !s.Exists() {
		out <- nil
		return out
	}
	q := Query{Text: text, Kinds: kinds, Statuses: statuses, Limit: RelevantHits, LimitPerKind: true, Bare: true, Strict: true}
	go func() {
		if sr != nil && sr.err == nil {
			if lock := unbuilt(Dir(s)); lock != nil {
				// A fresh clone's first prime: the scan answers, and the
				// index is built after the prime, as after a first search.
				sr.buildAfter(s, lock)
			} else if rel, ok := sr.askRelevance(s, q); ok {
				out <- rel
				return
			}
		}
		files, err := ListFiles(s.Root())
		if err != nil {
			out <- nil
			return
		}
		res, _, err := files.Scan(q)
		if err != nil {
			out <- nil
			return
		}
		out <- relevanceOf(res.Hits)
	}()
	return out
}

// askRelevance is Relevance's answer from lore-index; ok is false when it
// has none.
func (sr *Searcher) askRelevance(s *mdstore.Store, q Query) (map[string]float64, bool) {
	req := StoreRequest(s, OpSearch)
	req.Query = q
	req.TimeoutMS = int(Timeout / time.Millisecond)
	resp, err := sr.ask(s, req)
	if err != nil || resp.Error != "" || resp.Result == nil {
		return nil, false
	}
	return relevanceOf(resp.Result.Hits), true
}

// relevanceOf is Relevance's answer from a search's hits.
func relevanceOf(hits []Hit) map[string]float64 {
	best := map[entry.Kind]float64{}
	for _, h := range hits {
		best[h.Kind] = max(best[h.Kind], h.Score)
	}
	rel := make(map[string]float64, len(hits))
	for _, h := range hits {
		if best[h.Kind] > 0 {
			key := h.Path // h.ID does not cross the wire
			if h.Kind == entry.KindMemory {
				key += "#" + h.EntryID
			}
			rel[key] = h.Score / best[h.Kind]
		}
	}
	return rel
}
