package bleveindex

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"lore/index"
	"lore/index/fresh"
	"lore/internal/fsx"
)

// Defaults for Options.
const (
	DefaultTimeout    = 500 * time.Millisecond
	DefaultSweepLimit = fresh.DefaultSweepLimit
)

// ErrBusy is returned when another process holds the index for writing
// longer than the caller was willing to wait.
var ErrBusy = fresh.ErrBusy

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
	// GitIndex is the index file of the git worktree the store is in, and
	// Prefix the store root relative to that worktree's top: the check
	// reads git's stat data for the files of a changed directory (see
	// fresh.Store). Both "" outside git.
	GitIndex, Prefix string
	// Watch, when set, hears of changes to the store's directories
	// between searches (a resident lore-index's): a small store in which
	// it heard of none is checked as a large one is, without a stamp of
	// every file.
	Watch *Watch
}

// Index is the search index of one store.
type Index struct {
	store fresh.Store
	dir   fresh.Dir
	opts  Options
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
	return &Index{store: fresh.Store{Root: root, GitIndex: opts.GitIndex, Prefix: opts.Prefix}, dir: fresh.Dir(dir), opts: opts}
}

// Search brings the index up to date and answers q. When changes had to
// be indexed, q is answered by the process that indexed them, as soon as
// they can be searched.
func (ix *Index) Search(q index.Query) (index.Result, index.Report, error) {
	return ix.SearchThen(q, nil)
}

// SearchThen is Search; when there were changes to index, answered (when
// set) hears the answer as soon as it is known, before the index holds
// all of them: the changed entries that can be hits of q
// (index.MayMatch) are made searchable first and q is answered; the other
// entries are indexed, everything is written to disk and the manifest is
// put in place before SearchThen returns, with the error, if any, of that
// part. A caller that answers its own caller from answered spares it
// the wait; the index stays consistent if the process dies meanwhile
// (the changes are found again by the next search). An index of a large
// store that must be built afresh (a fresh clone's first search) is built
// after answered heard the answer of a scan (rebuildAfterScan).
func (ix *Index) SearchThen(q index.Query, answered func(index.Result, index.Report)) (index.Result, index.Report, error) {
	var res index.Result
	var serr error
	searched := false
	terms := index.QueryTerms(q.Text) // the words of its compounds too
	rebuild := ix.Rebuild
	if answered != nil {
		rebuild = func(reason string) (index.Report, error) {
			return ix.rebuildAfterScan(reason, q, func(scanned index.Result, rep index.Report) {
				res, searched = scanned, true
				answered(res, rep)
			})
		}
	}
	rep, err := ix.refresh(rebuild, func(d index.Doc) bool { return index.MayMatch(d, q, terms) }, func(x *Scorch, rep index.Report) {
		res, serr = x.Search(q)
		searched = true
		if serr == nil && answered != nil {
			answered(res, rep)
		}
	})
	if err == nil && searched {
		err = serr
	}
	if err != nil || searched {
		return res, rep, err
	}
	x, gen, err := ix.openLive(&rep)
	if err != nil {
		return index.Result{}, rep, err
	}
	defer x.Close()
	trace("opened for reading")
	res, err = x.Search(q)
	trace("searched")
	if err != nil {
		// bleve failed on a generation that passed its check (bytes
		// damaged under the same stamps, or a bug of bleve's): this
		// search is answered by scanning, the next one rebuilds it.
		fresh.Unseal(ix.dir.Seal(gen))
	}
	return res, rep, err
}

// check says how a generation is checked against its seal (fresh.Seal)
// as it is opened.
type check struct {
	// writable opens it for writing, holding the write lock: the seal is
	// removed before bleve opens it and written again once it is closed
	// (Index.seal), so that a writer that dies leaves no seal behind.
	writable bool
	// full reads every file bleve reads, not only those whose stamp
	// changed.
	full bool
	// restamp says what becomes of the new stamp of a file whose bytes
	// are as sealed (a copy, a touch).
	restamp restamp
}

// restamp is what a check does with the new stamps of files that hold
// what lore wrote: written into the seal, they spare the next check
// reading those files again.
type restamp int

const (
	keepStamps    restamp = iota // nothing is written (status)
	restampLocked                // the caller holds the write lock
	restampIfFree                // a reader: when the write lock is free right now
)

// openChecked opens generation gen as c says, checked against its seal:
// the files bleve reads are what lore wrote (fresh.Seal.Check), and the
// snapshot bleve loaded is the one lore sealed — bleve falls back on an
// older snapshot, or none, without a word when the latest does not load.
// Anything else is a *fresh.DamageError, and so is a generation bleve
// cannot open. The seal is returned for a writer to build on.
func (ix *Index) openChecked(gen string, c check) (*Scorch, *fresh.Seal, error) {
	dir, sealPath := ix.dir.Generation(gen), ix.dir.Seal(gen)
	seal, err := fresh.ReadSeal(sealPath)
	if err != nil {
		return nil, nil, err
	}
	restamped, err := seal.Check(dir, c.full)
	if err != nil {
		return nil, nil, err
	}
	trace("seal checked")
	if c.writable {
		if err := fresh.Unseal(sealPath); err != nil {
			return nil, nil, err
		}
	}
	x, err := openScorch(dir, c.writable, ix.opts.Timeout)
	if errors.Is(err, ErrBusy) {
		if c.writable {
			err = errors.Join(err, fresh.WriteSeal(sealPath, seal)) // nothing was written
		}
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, &fresh.DamageError{Why: "bleve cannot open it: " + err.Error()}
	}
	docs, segs, err := x.sealed()
	if err == nil {
		err = seal.Holds(docs, segs)
	}
	if err != nil {
		x.Close()
		return nil, nil, err
	}
	if restamped && !c.writable {
		// Unwritten, the new stamps only mean reading the files again
		// next time.
		switch c.restamp {
		case restampLocked:
			fresh.WriteSeal(sealPath, seal)
		case restampIfFree:
			ix.dir.Locked(0, func() error {
				if now, err := fresh.ReadSeal(sealPath); err == nil && now.SameFiles(seal) {
					return fresh.WriteSeal(sealPath, seal)
				}
				return nil
			})
		}
	}
	return x, seal, nil
}

// openLive opens the live generation for reading, checked against its
// seal. One that fails the check is looked at again holding the write
// lock — a writer may have been between closing its files and sealing
// them, or a rebuild between switching generations and removing the old
// one — and rebuilt if it fails again (unless rep says it just was), with
// rep replaced by the rebuild's report.
func (ix *Index) openLive(rep *index.Report) (*Scorch, string, error) {
	open := func(c check) (*Scorch, string, error) {
		gen, err := ix.dir.Current()
		if err != nil {
			return nil, "", err
		}
		x, _, err := ix.openChecked(gen, c)
		return x, gen, err
	}
	x, gen, err := open(check{restamp: restampIfFree})
	if err == nil || errors.Is(err, ErrBusy) {
		return x, gen, err
	}
	trace("not as sealed (%v): again, holding the write lock", err)
	err = ix.dir.Locked(ix.opts.Timeout, func() error {
		var err error
		if x, gen, err = open(check{restamp: restampLocked}); err == nil || errors.Is(err, ErrBusy) || rep.Rebuilt {
			return err
		}
		if *rep, err = ix.rebuild(fresh.Reason(err)); err != nil {
			return err
		}
		x, gen, err = open(check{})
		return err
	})
	return x, gen, err
}

// Refresh brings the index up to date with the store: it reindexes what
// changed, and rebuilds an index that is missing, damaged or of another
// format.
func (ix *Index) Refresh() (index.Report, error) {
	rep, err := ix.refresh(ix.Rebuild, nil, nil)
	if err != nil || rep.Rebuilt {
		return rep, err
	}
	// A search compares the stamps of the files bleve reads with the
	// seal's; a refresh reads every byte of them.
	err = ix.dir.Locked(ix.opts.Timeout, func() error {
		gen, err := ix.dir.Current()
		if err == nil {
			var x *Scorch
			if x, _, err = ix.openChecked(gen, check{full: true, restamp: restampLocked}); err == nil {
				return x.Close()
			}
		}
		if errors.Is(err, ErrBusy) {
			return err
		}
		rep, err = ix.rebuild(fresh.Reason(err))
		return err
	})
	return rep, err
}

// refresh is Refresh; when it updates the index, searchable runs on the
// writer (and not otherwise) as soon as the changed documents for which
// early holds can be searched (see Scorch.update), with the report. An
// index that must be built afresh is built by rebuild.
func (ix *Index) refresh(rebuild func(reason string) (index.Report, error), early func(index.Doc) bool, searchable func(*Scorch, index.Report)) (index.Report, error) {
	gen, err := ix.dir.Current()
	if err != nil {
		return rebuild(fresh.Reason(err))
	}
	mpath := ix.dir.Manifest(gen)
	seen, _ := fsx.Lstat(mpath) // the manifest a replacement would give a new inode
	m, err := fresh.ReadManifest(mpath)
	if err != nil {
		return rebuild(fresh.Reason(err))
	}
	defer m.Close()
	trace("manifest read")
	every := fresh.Every(m, ix.opts.SweepLimit) && !ix.opts.Watch.quiet(ix.store.Root, m.Dirs())
	first, err := fresh.Check(ix.store, m, every, ix.opts.Now().UnixNano())
	if err == nil {
		trace("checked: %d files read, %d documents to index, %d to remove", first.Files, len(first.Docs), len(first.Remove))
	}
	if err != nil {
		if errors.Is(err, fresh.ErrBadManifest) {
			return rebuild(fresh.Reason(err))
		}
		return index.Report{}, err
	}
	if !first.Touched {
		// What the store holds that lore does not read is said anyway.
		return index.Report{Warnings: first.Warnings}, nil
	}
	var rep index.Report
	again := ""
	err = ix.dir.Locked(ix.opts.Timeout, func() error {
		trace("write lock taken")
		// Another process may have done the work meanwhile: if the
		// manifest was replaced, check again against the new one.
		ch := first
		if now, err := ix.dir.Current(); err != nil || now != gen || !fresh.SameFile(mpath, seen) {
			if err != nil {
				again = fresh.Reason(err)
				return nil
			}
			gen, mpath = now, ix.dir.Manifest(now)
			m, err := fresh.ReadManifest(mpath)
			if err != nil {
				again = fresh.Reason(err)
				return nil
			}
			defer m.Close()
			if ch, err = fresh.Check(ix.store, m, fresh.Every(m, ix.opts.SweepLimit), ix.opts.Now().UnixNano()); err != nil {
				if errors.Is(err, fresh.ErrBadManifest) {
					again = fresh.Reason(err)
					return nil
				}
				return err
			}
		}
		rep = index.Report{Files: ch.Files, Indexed: len(ch.Docs), Removed: len(ch.Remove), Warnings: ch.Warnings}
		if !ch.Touched {
			return nil
		}
		// The next manifest is written aside while the index is updated,
		// and put in place once the index holds what it says.
		next := make(chan fresh.Aside, 1)
		go func() { next <- fresh.WriteAside(mpath, ch.Next) }()
		var ready func(*Scorch)
		if searchable != nil {
			ready = func(x *Scorch) { searchable(x, rep) }
		}
		again, err = ix.apply(gen, ch, func() fresh.Aside { return <-next }, early, ready)
		return err
	})
	if err == nil && again != "" {
		return rebuild(again)
	}
	return rep, err
}

// apply brings generation gen up to date with ch (holding the write lock),
// then puts the next manifest in place; searchable runs as in refresh. It
// returns why the index must be rebuilt when it is damaged (not as
// sealed, or bleve cannot open it).
func (ix *Index) apply(gen string, ch *fresh.Changes, next func() fresh.Aside, early func(index.Doc) bool, searchable func(*Scorch)) (rebuild string, err error) {
	err = ix.update(gen, ch, early, searchable)
	aside := next()
	if err == nil {
		if err = aside.Commit(); err == nil {
			ix.dir.SetLastError(nil)
			trace("manifest in place")
		}
		return "", err
	}
	aside.Discard()
	if _, ok := fresh.Damage(err); ok {
		return fresh.Reason(err), nil
	}
	return "", err
}

// update applies a check's changes to generation gen, checked against
// its seal before it is opened and sealed again once it is closed; early
// and searchable are as in refresh.
func (ix *Index) update(gen string, ch *fresh.Changes, early func(index.Doc) bool, searchable func(*Scorch)) error {
	if ch.Empty() {
		return nil
	}
	x, seal, err := ix.openChecked(gen, check{writable: true})
	if err != nil {
		return err
	}
	trace("opened for writing")
	err = x.update(ch.Docs, ch.Remove, early, searchable)
	trace("changes on disk")
	if err == nil {
		err = x.compact()
		trace("compacted")
	}
	var docs uint64
	if err == nil {
		docs, err = x.DocCount()
	}
	if cerr := x.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ix.seal(gen, docs, seal)
	}
	return err
}

// seal writes generation gen's seal, holding the write lock, once the
// writer that left docs documents in it has closed it: bleve opens it
// again, read-only, and must find them all (a file the writer wrote may
// have gone since, and bleve would fall back on an older snapshot). prev
// is the seal it had, whose CRCs serve for the files that did not change.
func (ix *Index) seal(gen string, docs uint64, prev *fresh.Seal) error {
	trace("closed; sealing")
	dir := ix.dir.Generation(gen)
	x, err := openScorch(dir, false, ix.opts.Timeout)
	if err != nil {
		return fmt.Errorf("seal the index: %w", err)
	}
	got, segs, err := x.sealed()
	x.Close()
	if err != nil {
		return fmt.Errorf("seal the index: %w", err)
	}
	if got != docs {
		return fmt.Errorf("seal the index: bleve opens %d documents of the %d written", got, docs)
	}
	s, err := fresh.NewSeal(dir, docs, segs, prev)
	if err != nil {
		return err
	}
	if err = fresh.WriteSeal(ix.dir.Seal(gen), s); err != nil {
		return err
	}
	trace("sealed")
	// Replaced segments are only disk space: failing to remove them
	// fails nothing, and the next writer tries again.
	if err := s.RemoveUnsealed(dir); err != nil {
		trace("replaced segments not removed: %v", err)
	}
	return nil
}

// Rebuild builds the index from scratch from the store's files and makes
// it the live one. reason is reported back.
func (ix *Index) Rebuild(reason string) (index.Report, error) {
	var rep index.Report
	err := ix.dir.Locked(ix.opts.Timeout, func() error {
		var err error
		rep, err = ix.rebuild(reason)
		return err
	})
	return rep, err
}

// BuildUnbuilt builds the index when it was never built (index.OpBuild:
// lore answered a search by scanning and asks for the index afterwards).
// held, when not nil, holds the write lock already (lore took it and
// handed it over), and is closed once the build is over; otherwise the
// lock is taken without waiting — ErrBusy when another process holds it.
// Holding it, it builds when there is still no index, and otherwise does
// nothing: an index of another format or a damaged one is the next
// search's to rebuild.
func (ix *Index) BuildUnbuilt(held *os.File) (index.Report, error) {
	var rep index.Report
	build := func() error {
		if _, err := ix.dir.Current(); !errors.Is(err, fresh.ErrNoIndex) {
			return nil
		}
		var err error
		rep, err = ix.rebuild(fresh.Reason(fresh.ErrNoIndex))
		return err
	}
	if held != nil {
		defer held.Close()
		return rep, build()
	}
	return rep, ix.dir.Locked(0, build)
}

// rebuildAfterScan is Rebuild for a search, q: in a store of more than
// SweepLimit entry files, where a build takes seconds, q is answered by
// scanning the files (what lore would do without an index, in the same
// time) and given to answered, with Report.Building saying why, before
// the index is built. A smaller store's index is built first, and q is
// answered from it by the caller.
func (ix *Index) rebuildAfterScan(reason string, q index.Query, answered func(index.Result, index.Report)) (index.Report, error) {
	var rep index.Report
	err := ix.dir.Locked(ix.opts.Timeout, func() error {
		files, err := index.ListFiles(ix.store.Root)
		if err != nil {
			return err
		}
		if ix.opts.SweepLimit >= 0 && files.Len() <= ix.opts.SweepLimit {
			rep, err = ix.rebuild(reason)
			return err
		}
		res, warnings, err := files.Scan(q)
		if err != nil {
			return err
		}
		trace("scanned %d files", files.Len())
		answered(res, index.Report{Building: reason, Warnings: warnings})
		rep, err = ix.rebuild(reason)
		return err
	})
	return rep, err
}

// lowGC keeps the peak memory of a build, which is long and allocates a
// lot, down rather than its garbage collection short: GOGC 100 at most
// (lore-index starts at 400, for short requests).
func lowGC() {
	if old := debug.SetGCPercent(100); old >= 0 && old < 100 {
		debug.SetGCPercent(old)
	}
}

// A build's heap is held to buildHeapLimit (the garbage collector runs
// sooner as it nears it), and the final merge's to mergeHeapLimit: that
// merge maps every segment besides, ~120 MB at 100k entries. At 100k
// the peak went from 400–510 MB to 280–310 MB, in the same time.
const (
	buildHeapLimit = 250 << 20
	mergeHeapLimit = 120 << 20
)

// rebuild is Rebuild, holding the write lock.
func (ix *Index) rebuild(reason string) (index.Report, error) {
	rep := index.Report{Rebuilt: true, Reason: reason}
	trace("rebuilding: %s", reason)
	lowGC()
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(buildHeapLimit))
	old, _ := ix.dir.Current()
	gen := "gen-" + strconv.FormatInt(ix.opts.Now().UnixNano(), 36)
	dir := ix.dir.Generation(gen)
	if err := os.RemoveAll(dir); err != nil {
		return rep, err
	}
	b, err := newBuilder(dir)
	if err != nil {
		return rep, err
	}
	ch, err := fresh.CheckAll(ix.store, ix.opts.Now().UnixNano(), func(docs []index.Doc) error {
		rep.Indexed += len(docs)
		return b.add(docs)
	}, ix.opts.Progress)
	var docs uint64
	if err == nil {
		debug.SetMemoryLimit(mergeHeapLimit)
		docs, err = b.finish()
	} else {
		b.abort()
	}
	if err == nil {
		err = ix.seal(gen, docs, nil)
	}
	if err != nil {
		os.RemoveAll(dir)
		os.Remove(ix.dir.Seal(gen))
		return rep, err
	}
	rep.Files, rep.Warnings = ch.Files, ch.Warnings
	if err := fresh.WriteManifest(ix.dir.Manifest(gen), ch.Next); err != nil {
		return rep, err
	}
	if err := ix.dir.SetCurrent(gen); err != nil {
		return rep, err
	}
	if old != "" && old != gen {
		os.RemoveAll(ix.dir.Generation(old))
		os.Remove(ix.dir.Manifest(old))
		os.Remove(ix.dir.Seal(old))
	}
	ix.dir.RemoveStrays(gen)
	ix.dir.SetLastError(nil)
	return rep, nil
}

// Status looks at every file of the store and says whether the index
// holds what they say, without changing anything. It waits for a process
// that is updating the index (one that answered a search and is still
// writing, say), so that what it says is settled.
func (ix *Index) Status() (index.Status, error) {
	var st index.Status
	err := ix.dir.Locked(ix.opts.Timeout, func() error {
		var err error
		st, err = ix.status()
		return err
	})
	return st, err
}

func (ix *Index) status() (index.Status, error) {
	st := index.Status{Dir: string(ix.dir), Format: index.FormatVersion, LastError: ix.dir.LastError()}
	unusable := func(err error) (index.Status, error) {
		st.Fresh = false
		if why, ok := fresh.Damage(err); ok {
			st.Damaged = why
		} else {
			st.Problem = fresh.Reason(err)
		}
		return st, nil
	}
	gen, err := ix.dir.Current()
	if err != nil {
		return unusable(err)
	}
	m, err := fresh.ReadManifest(ix.dir.Manifest(gen))
	if err != nil {
		return unusable(err)
	}
	defer m.Close()
	if err := m.Verify(); err != nil {
		return unusable(err)
	}
	st.EveryFile = fresh.Every(m, ix.opts.SweepLimit)
	ch, err := fresh.Check(ix.store, m, true, ix.opts.Now().UnixNano())
	if err != nil {
		return unusable(err)
	}
	st.Files = ch.Next.EntryFiles()
	st.StaleFiles = ch.Changed
	st.Fresh = ch.Empty()
	// Every byte bleve reads is checked against the seal, and nothing is
	// written: status changes nothing.
	x, _, err := ix.openChecked(gen, check{full: true})
	if errors.Is(err, ErrBusy) {
		return st, err
	}
	if err != nil {
		return unusable(err)
	}
	defer x.Close()
	st.Documents, err = x.DocCount()
	return st, err
}
