package index

import (
	"errors"
	"io/fs"
	"path/filepath"

	"lore/internal/fsx"
	"lore/mdstore"
)

// LoadDocs reads every entry file of the store at root into documents,
// with the problems of the files that do not read. What lore does not read
// is skipped with a warning, as every reader of the store skips it: a
// symbolic link (never followed; but for an mdstore.SkillLink, skipped
// without a word), a FIFO or device, a file over its mdstore.ReadLimit.
func LoadDocs(root string) ([]Doc, []mdstore.Warning, error) {
	var docs []Doc
	var warnings []mdstore.Warning
	abs := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	skip := func(p string, err error) bool {
		w, skipped := mdstore.Skipped(p, err)
		if w != nil {
			warnings = append(warnings, *w)
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
				err := fsx.CheckRegular(abs(p), e.Type())
				var data []byte
				if err == nil {
					data, err = fsx.ReadRegular(abs(p), mdstore.ReadLimit(p))
				}
				if skip(p, err) {
					continue
				}
				if err != nil {
					warnings = append(warnings, mdstore.Warning{Path: p, Message: "cannot be read: " + err.Error()})
					continue
				}
				fe, ws := mdstore.ParseFile(p, data)
				warnings = append(warnings, ws...)
				docs = append(docs, DocsFromFile(p, fe)...)
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
	return docs, warnings, nil
}
