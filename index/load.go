package index

import (
	"io/fs"
	"os"
	"path/filepath"

	"lore/mdstore"
)

// LoadDocs reads every entry file of the store at root into documents,
// with the problems of the files that do not read.
func LoadDocs(root string) ([]Doc, []mdstore.Warning, error) {
	var docs []Doc
	var warnings []mdstore.Warning
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		for _, e := range entries {
			p := dir + "/" + e.Name()
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				if info, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
					isDir = info.IsDir()
				}
			}
			if isDir {
				if mdstore.Descend(dir, e.Name()) {
					if err := walk(p); err != nil {
						return err
					}
				}
				continue
			}
			if mdstore.KindOf(p) == "" {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
			if err != nil {
				warnings = append(warnings, mdstore.Warning{Path: p, Message: "cannot be read: " + err.Error()})
				continue
			}
			fe, ws := mdstore.ParseFile(p, data)
			warnings = append(warnings, ws...)
			docs = append(docs, DocsFromFile(p, fe)...)
		}
		return nil
	}
	for _, r := range mdstore.Roots {
		if err := walk(r); err != nil {
			return nil, nil, err
		}
	}
	return docs, warnings, nil
}
