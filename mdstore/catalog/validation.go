package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"lore/internal/fsx"
	"lore/internal/gitx"
	"lore/mdstore/entry"
)

// ValidationFiles lists the files of the store at root (in the worktree
// of repo, nil outside git, at prefix from its top) for entry.Validate:
// every file under .agent/ and every skill directory, from the worktree,
// but lore's temporary files — or, with staged
// set, as the git index holds them (what the next commit will contain),
// each marked InHead when HEAD holds it as staged. A file or directory
// lore would read but does not — a symbolic link, a FIFO, a file over its
// ReadLimit — is listed with why (File.Unreadable), but for a SkillLink.
func ValidationFiles(root string, repo *gitx.Repo, prefix string, staged bool) ([]entry.File, error) {
	dirs := append([]string{entry.Dir}, entry.SkillDirs...)
	var out []entry.File
	if staged {
		if repo == nil {
			return nil, fmt.Errorf("--staged needs a git repository (%s is not in one)", root)
		}
		seen := map[string]bool{}
		for _, d := range dirs {
			under := path.Join(prefix, d)
			files, err := repo.StagedFiles(under)
			if err != nil {
				return nil, err
			}
			for _, f := range files {
				p := strings.TrimPrefix(f.Path, prefix+"/")
				if prefix == "" {
					p = f.Path
				}
				if seen[p] {
					continue
				}
				seen[p] = true
				file := entry.File{Path: p, Data: f.Data, Unmerged: f.Unmerged, InHead: f.InHead}
				switch {
				case f.Mode&0o170000 == 0o120000:
					if !readByLore(p) || entry.SkillLink(p, string(f.Data)) {
						continue
					}
					file = entry.File{Path: p, Unreadable: fsx.ErrSymlink.Error(), InHead: f.InHead}
				case int64(len(f.Data)) > entry.ReadLimit(p) && readByLore(p):
					file = entry.File{Path: p, Unreadable: "larger than " + fsx.FormatSize(entry.ReadLimit(p)), InHead: f.InHead}
				}
				out = append(out, file)
			}
		}
		return out, nil
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		if err := fsx.CheckDirs(root, d); err != nil {
			if w, skipped := entry.Skipped(d, err); skipped {
				if w != nil && !seen[w.Path] {
					seen[w.Path] = true
					out = append(out, entry.File{Path: w.Path, Unreadable: strings.TrimPrefix(w.Message, "skipped: ")})
				}
				continue
			}
			return nil, err
		}
		top := filepath.Join(root, filepath.FromSlash(d))
		err := filepath.WalkDir(top, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == top {
					return nil
				}
				return err
			}
			if e.IsDir() || fsx.IsTemp(e.Name()) { // a write under way, or a killed one's
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if seen[rel] {
				return nil
			}
			seen[rel] = true
			var data []byte
			if err = fsx.CheckRegular(p, e.Type()); err == nil {
				data, err = fsx.ReadRegular(p, entry.ReadLimit(rel))
			}
			if w, skipped := entry.Skipped(rel, err); skipped {
				if w != nil && readByLore(rel) {
					out = append(out, entry.File{Path: rel, Unreadable: strings.TrimPrefix(w.Message, "skipped: ")})
				}
				return nil
			}
			if err != nil {
				return err
			}
			out = append(out, entry.File{Path: rel, Data: data})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readByLore says whether lore reads store path p: an entry file,
// config.yaml, or a directory it walks into (.agent, knowledge/, a
// journal run, a skill).
func readByLore(p string) bool {
	return entry.KindOf(p) != "" || p == entry.ConfigPath || p == entry.Dir || entry.IsSkillDir(p) || entry.Descend(path.Dir(p), path.Base(p))
}
