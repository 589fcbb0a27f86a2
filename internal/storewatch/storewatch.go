// Package storewatch is the one answer to "what changed in the store's
// files since I last looked", for the two caches lore keeps of them: the
// entries cache that prime reads through (mdstore/catalog) and the search
// index's manifest (index/fresh). Each keeps what it saw in its own
// format; the rules of looking are here, once.
//
// A cache records the stamp (fsx.Stamp: mtime, ctime, inode, size) of
// every directory and file it read. A later look:
//
//   - stamps each recorded directory: one whose stamp is the one recorded
//     holds the files recorded (a file created, deleted or renamed in it
//     changes its mtime), so only a changed directory is listed again;
//   - in a changed directory, takes a file listed under the inode recorded
//     for it as unchanged without a stat of it (Replaced), since an editor
//     saves by renaming a new file over the old one;
//   - asks git's index which files git wrote since the last look (Git.
//     Written): git writes a file it checks out (a pull, a checkout, a
//     stash, a reset) by removing it and creating it again, and the file
//     system tends to give the new file the inode just freed, so its
//     directory's listing shows the same inode; but git records the new
//     stat in its index;
//   - in a store of at most SweepLimit files (Every), stamps every file
//     as well, which catches a file rewritten in place by hand; a larger
//     store sees such a file when its directory next changes, or after
//     lore index rebuild;
//   - never trusts a stamp taken within the racy window before the look
//     (fsx.Stamp.IfSettled): a change in the same tick would not show, so
//     such a file is looked at again next time.
package storewatch

import (
	"errors"
	"io/fs"

	"lore/internal/fsx"
	"lore/internal/gitx/gitindex"
)

// SweepLimit is the most files a store may hold and still have each one
// stamped at every look (Every).
const SweepLimit = 2000

// Every says whether a look at a store of files recorded files stamps
// each one: at most limit of them (a negative limit: never).
func Every(files, limit int) bool { return limit >= 0 && files <= limit }

// Replaced says whether a file a directory's listing shows under inode
// ino is another than the one recorded with stamp rec: the inodes differ,
// or one of them is unknown (0). A file under its recorded inode is the
// one recorded, unless git wrote it (Git.Written).
func Replaced(rec fsx.Stamp, ino uint64) bool {
	return rec.Ino == 0 || ino == 0 || rec.Ino != ino
}

// Git is where a store sits in a git worktree: the worktree's index file,
// and the store root's path below the worktree's top ("" at the top).
// The zero Git is a store outside git, whose files git never writes.
type Git struct {
	Index, Prefix string
}

// Look is what a cache recorded of git's index when it last asked which
// files git wrote: the index file's stamp (zero when not trusted) and
// when it asked (Unix nanoseconds; 0: never, so every file git holds is
// taken as written).
type Look struct {
	Stamp fsx.Stamp
	At    int64
}

// ErrUnknown says that git's index cannot say what git wrote (it cannot
// be read): every file must be stamped.
var ErrUnknown = errors.New("git's index cannot say which files git wrote")

// Written calls each with the store files under dir (a store path such as
// ".agent") that git wrote since last, with the stat git recorded for
// each, and returns the look to record. When git's index is the one last
// looked at, git wrote nothing since: each is not called and last is
// returned. An error (ErrUnknown, wrapped) means it cannot tell, and
// every file must be stamped; the look returned then is the zero Look.
func (g Git) Written(dir string, last Look, now int64, each func(p []byte, st gitindex.Stat)) (Look, error) {
	if g.Index == "" {
		return last, nil
	}
	st, err := fsx.Lstat(g.Index)
	if errors.Is(err, fs.ErrNotExist) {
		return last, nil // nothing staged yet: git wrote nothing
	}
	if err != nil {
		return Look{}, errors.Join(ErrUnknown, err)
	}
	if last.Stamp.Same(st) {
		return last, nil
	}
	gitPrefix, cut := g.pathPrefix(dir)
	err = gitindex.WrittenSince(g.Index, gitPrefix, last.At, func(p []byte, gs gitindex.Stat) bool {
		each(p[cut:], gs)
		return true
	})
	if err != nil {
		return Look{}, errors.Join(ErrUnknown, err)
	}
	return Look{Stamp: st.IfSettled(now), At: now}, nil
}

// pathPrefix is the prefix of the store's files under dir among the
// paths git's index holds, and how many bytes to cut from such a path to
// get the store path.
func (g Git) pathPrefix(dir string) (gitPrefix string, cut int) {
	gitPrefix = dir + "/"
	if g.Prefix != "" {
		gitPrefix = g.Prefix + "/" + gitPrefix
	}
	return gitPrefix, len(gitPrefix) - len(dir) - 1
}
