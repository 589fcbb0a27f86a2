package hooks

import (
	"lore/internal/fsx"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// IgnoreLines are the .agent/.gitignore lines that keep lore's temporary
// files out of git: a file lore replaces is written beside it first, as
// .<name>.lore-<pid>-<n>.tmp (fsx.TempPattern), which git status would
// show while the write runs — and after it, when the write is killed,
// until lore's next write in that directory removes it.
var IgnoreLines = []string{fsx.TempPattern}

const ignoreComment = "# lore: the temporary files of lore's writes (.<name>.lore-<pid>-<n>.tmp)"

// IgnoreEdit adds the IgnoreLines .agent/.gitignore lacks, at its end,
// keeping everything else: lore init commits it, so that every clone of
// the store ignores them.
var IgnoreEdit = mdstore.FileEdit{
	Path:    entry.IgnorePath,
	Subject: "ignore lore's temporary files",
	Apply:   func(old []byte) []byte { return addLines(old, ignoreComment, IgnoreLines) },
}
