package index

import (
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"lore/internal/fsx"
	"lore/mdstore"
)

// LoadDocs reads every entry file of the store at root into documents,
// with the problems of the files that do not read, on every core. What
// lore does not read is skipped with a warning, as every reader of the
// store skips it: a symbolic link (never followed; but for an
// mdstore.SkillLink, skipped without a word), a FIFO or device, a file
// over its mdstore.ReadLimit.
func LoadDocs(root string) ([]Doc, []mdstore.Warning, error) {
	// The walk lists the files in order, each in a slot that the readers
	// fill; what the walk itself has to say has a slot of its own.
	type slot struct {
		path     string // a file to read, or "" for a warning
		docs     []Doc
		warnings []mdstore.Warning
	}
	var slots []slot
	abs := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	skipped := func(warnings *[]mdstore.Warning, p string, err error) bool {
		w, skipped := mdstore.Skipped(p, err)
		if w != nil {
			*warnings = append(*warnings, *w)
		}
		return skipped
	}
	skip := func(p string, err error) bool {
		var ws []mdstore.Warning
		defer func() {
			if len(ws) > 0 {
				slots = append(slots, slot{warnings: ws})
			}
		}()
		return skipped(&ws, p, err)
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
				if mdstore.Descend(dir, e.Name()) || mdstore.KindOf(p) != "" {
					skip(p, &fsx.SkipError{Path: abs(p), Err: fsx.ErrSymlink})
				}
			case e.IsDir():
				if mdstore.Descend(dir, e.Name()) {
					if err := walk(p); err != nil {
						return err
					}
				}
			case mdstore.KindOf(p) == "":
			default:
				if err := fsx.CheckRegular(abs(p), e.Type()); err != nil {
					if !skip(p, err) {
						slots = append(slots, slot{warnings: []mdstore.Warning{{Path: p, Message: "cannot be read: " + err.Error()}}})
					}
					continue
				}
				slots = append(slots, slot{path: p})
			}
		}
		return nil
	}
	for _, r := range mdstore.Roots {
		if err := fsx.CheckDirs(root, r); err != nil {
			if skip(r, err) {
				continue
			}
			return nil, nil, err
		}
		if err := walk(r); err != nil {
			return nil, nil, err
		}
	}
	read := func(sl *slot) {
		data, err := fsx.ReadRegular(abs(sl.path), mdstore.ReadLimit(sl.path))
		if skipped(&sl.warnings, sl.path, err) {
			return
		}
		if err != nil {
			sl.warnings = append(sl.warnings, mdstore.Warning{Path: sl.path, Message: "cannot be read: " + err.Error()})
			return
		}
		fe, ws := mdstore.ParseFile(sl.path, data)
		sl.warnings = append(sl.warnings, ws...)
		sl.docs = DocsFromFile(sl.path, fe)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(1, len(slots)/64)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(slots); i = int(next.Add(1)) - 1 {
				if slots[i].path != "" {
					read(&slots[i])
				}
			}
		})
	}
	wg.Wait()
	var docs []Doc
	var warnings []mdstore.Warning
	for _, sl := range slots {
		docs = append(docs, sl.docs...)
		warnings = append(warnings, sl.warnings...)
	}
	return docs, warnings, nil
}
