package index

import (
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"lore/internal/fsx"
	"lore/mdstore/entry"
)

// LoadDocs reads every entry file of the store at root into documents,
// with the problems of the files that do not read, on every core. What
// lore does not read is skipped with a warning, as every reader of the
// store skips it: a symbolic link (never followed; but for an
// mdstore.SkillLink, skipped without a word), a FIFO or device, a file
// over its mdstore.ReadLimit.
func LoadDocs(root string) ([]Doc, []entry.Warning, error) {
	slots, err := listStore(root)
	if err != nil {
		return nil, nil, err
	}
	eachSlot(slots, func() func(*storeSlot) {
		return func(sl *storeSlot) { sl.docs, sl.warnings = sl.load(root, sl.warnings) }
	})
	n := 0
	for _, sl := range slots {
		n += len(sl.docs)
	}
	docs := make([]Doc, 0, n)
	var warnings []entry.Warning
	for _, sl := range slots {
		docs = append(docs, sl.docs...)
		warnings = append(warnings, sl.warnings...)
	}
	return docs, warnings, nil
}

// StoreFiles are the entry files of a store, listed, to be scanned.
type StoreFiles struct {
	root  string
	slots []storeSlot
}

// ListFiles lists the entry files of the store at root, as LoadDocs reads
// them.
func ListFiles(root string) (*StoreFiles, error) {
	slots, err := listStore(root)
	if err != nil {
		return nil, err
	}
	return &StoreFiles{root: root, slots: slots}, nil
}

// Len is how many entry files there are.
func (f *StoreFiles) Len() int {
	n := 0
	for _, sl := range f.slots {
		if sl.path != "" {
			n++
		}
	}
	return n
}

// Scan answers q by reading every file: what
// NewScan(LoadDocs(root)).Search(q) answers, with LoadDocs's warnings,
// but holding only the documents that match — a store of 100k entries
// is ~600 MB of documents, and holding them cost the first search in a
// clone more than reading them. A search that looks again (for a typo's
// near misses, or the words to suggest) reads the files again.
func (f *StoreFiles) Scan(q Query) (Result, []entry.Warning, error) {
	slots := slices.Clone(f.slots)
	first := true
	res, err := search(q, func(newVisitor func() func(d *Doc)) error {
		eachSlot(slots, func() func(*storeSlot) {
			visit := newVisitor()
			return func(sl *storeSlot) {
				var docs []Doc
				if first {
					docs, sl.warnings = sl.load(f.root, sl.warnings)
				} else {
					docs, _ = sl.load(f.root, nil)
				}
				for i := range docs {
					visit(&docs[i])
				}
			}
		})
		first = false
		return nil
	})
	if err != nil {
		return Result{}, nil, err
	}
	var warnings []entry.Warning
	for _, sl := range slots {
		warnings = append(warnings, sl.warnings...)
	}
	return res, warnings, nil
}

// storeSlot is one file of a store, in the order of the walk, or a
// warning of the walk's own (path "").
type storeSlot struct {
	path     string
	docs     []Doc
	warnings []entry.Warning
}

// listStore walks the store at root and lists its entry files in
// order, with what the walk has to say in slots of their own.
func listStore(root string) ([]storeSlot, error) {
	var slots []storeSlot
	abs := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	skip := func(p string, err error) bool {
		w, skipped := entry.Skipped(p, err)
		if w != nil {
			slots = append(slots, storeSlot{warnings: []entry.Warning{*w}})
		}
		return skipped
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := fsx.ReadDir(abs(dir))
		if errors.Is(err, fs.ErrNotExist) || skip(dir, err) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := dir + "/" + e.Name()
			switch {
			case e.Type()&fs.ModeSymlink != 0:
				if entry.Descend(dir, e.Name()) || entry.KindOf(p) != "" {
					skip(p, &fsx.SkipError{Path: abs(p), Err: fsx.ErrSymlink})
				}
			case e.IsDir():
				if entry.Descend(dir, e.Name()) {
					if err := walk(p); err != nil {
						return err
					}
				}
			case entry.KindOf(p) == "":
			default:
				if err := fsx.CheckRegular(abs(p), e.Type()); err != nil {
					if !skip(p, err) {
						slots = append(slots, storeSlot{warnings: []entry.Warning{{Path: p, Message: "cannot be read: " + err.Error()}}})
					}
					continue
				}
				slots = append(slots, storeSlot{path: p})
			}
		}
		return nil
	}
	for _, r := range entry.Roots {
		if err := fsx.CheckDirs(root, r); err != nil {
			if skip(r, err) {
				continue
			}
			return nil, err
		}
		if err := walk(r); err != nil {
			return nil, err
		}
	}
	return slots, nil
}

// load reads and parses the slot's file into documents, adding what is
// wrong with it to warnings. A slot of the walk's own loads nothing.
func (sl *storeSlot) load(root string, warnings []entry.Warning) ([]Doc, []entry.Warning) {
	if sl.path == "" {
		return nil, warnings
	}
	data, err := fsx.ReadRegular(filepath.Join(root, filepath.FromSlash(sl.path)), entry.ReadLimit(sl.path))
	if w, skipped := entry.Skipped(sl.path, err); skipped {
		if w != nil {
			warnings = append(warnings, *w)
		}
		return nil, warnings
	}
	if err != nil {
		return nil, append(warnings, entry.Warning{Path: sl.path, Message: "cannot be read: " + err.Error()})
	}
	fe, ws := entry.ParseFile(sl.path, data)
	return DocsFromFile(sl.path, fe), append(warnings, ws...)
}

// eachSlot runs a function newWorker makes, one per core, on every slot.
func eachSlot(slots []storeSlot, newWorker func() func(*storeSlot)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(1, len(slots)/64)) {
		work := newWorker()
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(slots); i = int(next.Add(1)) - 1 {
				work(&slots[i])
			}
		})
	}
	wg.Wait()
}
