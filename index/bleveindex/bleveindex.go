// Package bleveindex is lore's search index: a bleve (scorch) index under
// <git-dir>/lore/index, never committed, that is brought up to date before
// every search by looking at what changed in the store.
//
// Layout of the index directory:
//
//	current              "lore-index <format> <generation>": the live index
//	<generation>/        the scorch index
//	<generation>.manifest what that index holds (see manifest)
//	write.lock           held (flock) by the one process updating the index
//
// A rebuild writes a new generation and switches current to it, so readers
// of the old one are never disturbed. Every wait for a lock is bounded by
// Options.Timeout; a caller that gets ErrBusy answers by scanning instead.
package bleveindex

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"lore/index"
	"lore/mdstore/gitx"
)

// Defaults for Options.
const (
	DefaultTimeout    = 500 * time.Millisecond
	DefaultSweepLimit = 2000
	batchSize         = 2000
)

// Options tune an Index.
type Options struct {
	// Timeout bounds every wait for another process's lock.
	Timeout time.Duration
	// SweepLimit: a store with at most this many entry files has every file
	// checked before each search, which also catches a file rewritten in
	// place. Larger stores check their directories, memories.md and skills,
	// and every file of a directory that changed. Negative: never sweep.
	SweepLimit int
	// Now is the clock (for the racy-timestamp rule); time.Now by default.
	Now func() time.Time
	// Progress, when set, hears how a rebuild advances.
	Progress func(done, total int)
}

// Index is the search index of one store.
type Index struct {
	root string // the store root, holding .agent/
	dir  string
	opts Options
}

// New returns the index of the store rooted at root, kept in dir. Nothing
// is read until it is used.
func New(root, dir string, opts Options) *Index {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.SweepLimit == 0 {
		opts.SweepLimit = DefaultSweepLimit
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Index{root: root, dir: dir, opts: opts}
}

// Search brings the index up to date and answers q. When changes had to
// be indexed, q is answered by the process that indexed them, as soon as
// they can be searched.
func (ix *Index) Search(q index.Query) (index.Result, index.Report, error) {
	var res index.Result
	var serr error
	searched := false
	rep, err := ix.refresh(func(x *Scorch) {
		res, serr = x.Search(q)
		searched = true
	})
	if err == nil && searched {
		err = serr
	}
	if err != nil || searched {
		return res, rep, err
	}
	x, err := ix.openCurrent()
	if err != nil && !errors.Is(err, ErrBusy) && !rep.Rebuilt {
		// The manifest was fine but the index files are not.
		rep, err = ix.Rebuild("the index could not be opened: " + err.Error())
		if err == nil {
			x, err = ix.openCurrent()
		}
	}
	if err != nil {
		return index.Result{}, rep, err
	}
	defer x.Close()
	res, err = x.Search(q)
	return res, rep, err
}

// openCurrent opens the live generation for reading.
func (ix *Index) openCurrent() (*Scorch, error) {
	gen, err := ix.current()
	if err != nil {
		return nil, err
	}
	return openScorch(filepath.Join(ix.dir, gen), false, ix.opts.Timeout)
}

// Refresh brings the index up to date with the store: it reindexes what
// changed, and rebuilds an index that is missing, damaged or of another
// format.
func (ix *Index) Refresh() (index.Report, error) {
	return ix.refresh(nil)
}

// refresh is Refresh; when it updates the index, searchable runs on the
// writer as soon as the changes can be searched (and not otherwise).
func (ix *Index) refresh(searchable func(*Scorch)) (index.Report, error) {
	gen, err := ix.current()
	if err != nil {
		return ix.Rebuild(reasonFor(err))
	}
	mpath := ix.manifestPath(gen)
	seen, _ := statOf(mpath) // the manifest a replacement would give a new inode
	m, err := readManifest(mpath)
	if err != nil {
		return ix.Rebuild(reasonFor(err))
	}
	defer m.close()
	first, err := check(ix.root, m, ix.every(m), ix.opts.Now().UnixNano())
	if err != nil {
		if errors.Is(err, errBadManifest) {
			return ix.Rebuild(reasonFor(err))
		}
		return index.Report{}, err
	}
	if !first.touched {
		return index.Report{}, nil
	}
	var rep index.Report
	rebuild := ""
	err = ix.locked(func() error {
		// Another process may have done the work meanwhile: if the
		// manifest was replaced, check again against the new one.
		ch := first
		if now, err := ix.current(); err != nil || now != gen || !sameFile(mpath, seen) {
			if err != nil {
				rebuild = reasonFor(err)
				return nil
			}
			gen, mpath = now, ix.manifestPath(now)
			m, err := readManifest(mpath)
			if err != nil {
				rebuild = reasonFor(err)
				return nil
			}
			defer m.close()
			if ch, err = check(ix.root, m, ix.every(m), ix.opts.Now().UnixNano()); err != nil {
				if errors.Is(err, errBadManifest) {
					rebuild = reasonFor(err)
					return nil
				}
				return err
			}
		}
		rep = index.Report{Files: ch.files, Indexed: len(ch.docs), Removed: len(ch.remove), Warnings: ch.warnings}
		if !ch.touched {
			return nil
		}
		// The next manifest is written aside while the index is updated,
		// and put in place once the index holds what it says.
		next := make(chan manifestAside, 1)
		go func() { next <- writeManifestAside(mpath, ch.next) }()
		err := ix.update(gen, ch, searchable)
		aside := <-next
		if err == nil {
			err = aside.err
		}
		if err == nil {
			return aside.commit()
		}
		aside.discard()
		if errors.Is(err, errCannotOpen) {
			rebuild, err = err.Error(), nil
		}
		return err
	})
	if err == nil && rebuild != "" {
		return ix.Rebuild(rebuild)
	}
	return rep, err
}

var errCannotOpen = errors.New("the index could not be opened")

// update applies a check's changes to generation gen; searchable runs as
// in refresh.
func (ix *Index) update(gen string, ch *changes, searchable func(*Scorch)) error {
	if ch.empty() {
		return nil
	}
	x, err := openScorch(filepath.Join(ix.dir, gen), true, ix.opts.Timeout)
	if errors.Is(err, ErrBusy) {
		return err
	}
	if err != nil {
		return fmt.Errorf("%w: %v", errCannotOpen, err)
	}
	err = x.update(ch.docs, ch.remove, searchable)
	if err == nil {
		err = x.compact(false)
	}
	if cerr := x.Close(); err == nil {
		err = cerr
	}
	return err
}

// sameFile says whether path is still the file that had stat seen.
func sameFile(path string, seen fileStat) bool {
	st, err := statOf(path)
	return err == nil && st == seen
}

// every says whether a check looks at every file of the store.
func (ix *Index) every(m *manifest) bool {
	return ix.opts.SweepLimit >= 0 && m.fileCount() <= ix.opts.SweepLimit
}

// Rebuild builds the index from scratch from the store's files and makes
// it the live one. reason is reported back.
func (ix *Index) Rebuild(reason string) (index.Report, error) {
	rep := index.Report{Rebuilt: true, Reason: reason}
	err := ix.locked(func() error {
		old, _ := ix.current()
		gen := "gen-" + strconv.FormatInt(ix.opts.Now().UnixNano(), 36)
		dir := filepath.Join(ix.dir, gen)
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		x, err := openScorch(dir, true, ix.opts.Timeout)
		if err != nil {
			return err
		}
		ch, err := checkAll(ix.root, ix.opts.Now().UnixNano(), func(docs []index.Doc) error {
			rep.Indexed += len(docs)
			return x.apply(docs, nil)
		}, ix.opts.Progress)
		if err == nil {
			err = x.compact(true)
		}
		if cerr := x.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.RemoveAll(dir)
			return err
		}
		rep.Files, rep.Warnings = ch.files, ch.warnings
		if err := writeManifest(ix.manifestPath(gen), ch.next); err != nil {
			return err
		}
		if err := gitx.WriteFileAtomic(filepath.Join(ix.dir, "current"), fmt.Appendf(nil, "lore-index %d %s\n", FormatVersion, gen)); err != nil {
			return err
		}
		if old != "" && old != gen {
			os.RemoveAll(filepath.Join(ix.dir, old))
			os.Remove(ix.manifestPath(old))
		}
		ix.removeStrays(gen)
		return nil
	})
	return rep, err
}

// checkAll reads every entry file of the store, handing documents to sink
// in batches.
func checkAll(root string, now int64, sink func([]index.Doc) error, progress func(done, total int)) (*changes, error) {
	return checkWith(root, newManifest(), false, now, sink, progress)
}

// removeStrays deletes generations left behind by an interrupted rebuild.
func (ix *Index) removeStrays(keep string) {
	entries, _ := os.ReadDir(ix.dir)
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".manifest")
		if strings.HasPrefix(name, "gen-") && name != keep {
			os.RemoveAll(filepath.Join(ix.dir, e.Name()))
		}
	}
}

// Status looks at every file of the store and says whether the index
// holds what they say, without changing anything.
func (ix *Index) Status() (index.Status, error) {
	st := index.Status{Dir: ix.dir, Format: FormatVersion}
	gen, err := ix.current()
	if err != nil {
		st.Problem = reasonFor(err)
		return st, nil
	}
	mpath := ix.manifestPath(gen)
	m, err := readManifest(mpath)
	if err != nil {
		st.Problem = reasonFor(err)
		return st, nil
	}
	defer m.close()
	st.EveryFile = ix.every(m)
	ch, err := check(ix.root, m, true, ix.opts.Now().UnixNano())
	if err != nil {
		st.Problem = reasonFor(err)
		return st, nil
	}
	st.Files = ch.next.fileCount() // and the watched ones that are files:
	for p := range ch.next.watch {
		if hot(p) {
			st.Files++
		}
	}
	st.StaleFiles = ch.changed
	st.Fresh = ch.empty()
	x, err := openScorch(filepath.Join(ix.dir, gen), false, ix.opts.Timeout)
	if err != nil {
		if errors.Is(err, ErrBusy) {
			return st, err
		}
		st.Problem = "the index could not be opened: " + err.Error()
		return st, nil
	}
	defer x.Close()
	st.Documents, err = x.DocCount()
	return st, err
}

func (ix *Index) manifestPath(gen string) string {
	return filepath.Join(ix.dir, gen+".manifest")
}

var errNoIndex = errors.New("there is no index yet")

type formatError struct{ found string }

func (e *formatError) Error() string {
	return fmt.Sprintf("the index has format %s, this lore reads format %d", e.found, FormatVersion)
}

// current names the live generation.
func (ix *Index) current() (string, error) {
	data, err := os.ReadFile(filepath.Join(ix.dir, "current"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", errNoIndex
	}
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(data))
	if len(f) != 3 || f[0] != "lore-index" || !strings.HasPrefix(f[2], "gen-") || strings.ContainsAny(f[2], `/\`) {
		return "", errBadManifest
	}
	if f[1] != strconv.Itoa(FormatVersion) {
		return "", &formatError{found: f[1]}
	}
	return f[2], nil
}

// reasonFor says in words why an index is rebuilt.
func reasonFor(err error) string {
	var fe *formatError
	switch {
	case errors.Is(err, errNoIndex):
		return "there was no index"
	case errors.As(err, &fe):
		return fe.Error()
	case errors.Is(err, errBadManifest), errors.Is(err, fs.ErrNotExist):
		return "the index was damaged"
	}
	return "the index could not be read: " + err.Error()
}

// locked runs fn holding the index's write lock, waiting at most the
// timeout for it.
func (ix *Index) locked(fn func() error) error {
	if err := os.MkdirAll(ix.dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(ix.dir, "write.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	deadline := time.Now().Add(ix.opts.Timeout)
	for {
		ok, err := lockFile(f)
		if err != nil {
			return err
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			return ErrBusy
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fn() // closing f releases the lock
}
