package mdstore

import (
	"strings"

	"lore/internal/gitx"
	"lore/internal/neardup"
	"lore/mdstore/catalog"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// readCachedMarkdownFiles is catalog.LoadKnowledge or LoadLearnings of dir
// through the blob cache (byBlob): the same entries in the same order,
// each with its keywords for a learning. ok is false when the change reads
// the files on disk or has queued changes: the caller reads every file.
// The cache holds its files sorted by path, as the directory lists them,
// so the two are walked side by side: nothing is looked up in a map, and
// a cached entry is decoded only when its file is still there unchanged.
func readCachedMarkdownFiles[T any](t *Tx, dir string,
	byBlob func(stateDir, dir string, blobs []gitx.Blob, read func(string) ([]byte, bool, error)) []catalog.ByBlob[T]) (out []catalog.ByBlob[T], ok bool, err error) {
	if len(t.overlay) > 0 || t.stateDir == "" {
		return nil, false, nil
	}
	if ahead, ok := t.ahead[dir]; ok {
		if tree, ok, err := t.tx.TreeID(t.path(dir)); err == nil && ok && tree == ahead.tree {
			if read, ok := ahead.read.([]catalog.ByBlob[T]); ok {
				return read, true, nil
			}
		}
	}
	all, ok, err := t.tx.Blobs(t.path(dir))
	if err != nil || !ok {
		return nil, false, err
	}
	// The regular files git has, as markdownFiles lists them: any other
	// entry (a link, a submodule) is refused when read, and skipped.
	// They are sorted by name, as the cache is.
	blobs := all[:0:0]
	for _, b := range all {
		if strings.HasSuffix(b.Name, ".md") && !strings.HasPrefix(b.Name, ".") {
			blobs = append(blobs, b)
		}
	}
	return byBlob(t.stateDir, dir, blobs, t.Read), true, nil
}

// knowledge is the knowledge entries the change builds on, as
// loadKnowledge reads them, through the blob cache when it can.
func (t *Tx) knowledge() ([]entry.Knowledge, error) {
	cs, ok, err := t.cachedKnowledge()
	if err != nil || !ok {
		if err == nil {
			ks, _, err := catalog.LoadKnowledge(t)
			return ks, err
		}
		return nil, err
	}
	ks := make([]entry.Knowledge, len(cs))
	for i, c := range cs {
		ks[i] = c.V
	}
	return ks, nil
}

// learnings is the learnings the change builds on, as loadLearnings
// reads them, each with its keywords (learningWords), through the blob
// cache when it can: as the directory lists them, which is not oldest
// first.
func (t *Tx) learnings() ([]catalog.ByBlob[entry.Learning], error) {
	cs, ok, err := t.cachedLearnings()
	if err != nil || ok {
		return cs, err
	}
	ls, _, err := catalog.LoadLearnings(t)
	if err != nil {
		return nil, err
	}
	for _, l := range ls {
		cs = append(cs, catalog.ByBlob[entry.Learning]{V: l, Words: neardup.Words(l.Body)})
	}
	return cs, nil
}

// cachedKnowledge and cachedLearnings are readCachedMarkdownFiles for
// each kind: what a write decides duplicates from, and what it reads ahead.
func (t *Tx) cachedKnowledge() ([]catalog.ByBlob[entry.Knowledge], bool, error) {
	return readCachedMarkdownFiles(t, entry.KnowledgeDir, catalog.KnowledgeByBlob)
}

func (t *Tx) cachedLearnings() ([]catalog.ByBlob[entry.Learning], bool, error) {
	return readCachedMarkdownFiles(t, entry.LearningsDir, catalog.LearningsByBlob)
}

// afterReadAhead, when a test sets it, runs between a write's read-ahead
// and its taking the lock.
var afterReadAhead func()

// readAhead is a directory of knowledge or learnings read before the
// repository's lock is taken (Store.readAhead): its git tree and what
// readCachedMarkdownFiles returned for it.
type readAhead struct {
	tree gitx.Hash
	read any // []cached[Knowledge] or []cached[Learning]
}

// readAhead reads the knowledge and learnings a write is about to decide
// duplicates from — the most of its time at 100k entries — from HEAD,
// before the write takes the repository's lock, so that the lock is held
// for little more than the commit. Under the lock the write uses what was
// read only when the directory's tree is still the one read (anyone's
// commit in between makes another); otherwise it reads again. Nothing is
// decided here. release drops what was read.
func (s *Store) readAhead(dirs ...string) (release func()) {
	if s.repo == nil || s.unusable != nil || s.config.Commit != config.CommitAuto || s.pending != (Pending{}) {
		return func() {}
	}
	snap, end, err := s.repo.Snapshot()
	if err != nil {
		return func() {} // the write reads under the lock, and says why
	}
	t := &Tx{tx: snap, prefix: s.prefix, stateDir: s.StateDir()}
	ahead := map[string]readAhead{}
	for _, dir := range dirs {
		tree, ok, err := snap.TreeID(t.path(dir))
		if err != nil || !ok {
			continue
		}
		var read any
		switch dir {
		case entry.KnowledgeDir:
			read, ok, err = t.cachedKnowledge()
		case entry.LearningsDir:
			read, ok, err = t.cachedLearnings()
		}
		if err == nil && ok {
			ahead[dir] = readAhead{tree: tree, read: read}
		}
	}
	s.ahead = ahead
	if afterReadAhead != nil {
		afterReadAhead()
	}
	return func() {
		s.ahead = nil
		end()
	}
}
