package fresh

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
	"lore/internal/fsx"
	"lore/internal/storewatch"
)

// DefaultSweepLimit: a store with at most this many entry files has every
// file checked before each search (storewatch.SweepLimit, the entries
// cache's rule too). Larger stores check their directories, memories.md
// and skills, the files of a directory that changed and those git wrote.
const DefaultSweepLimit = storewatch.SweepLimit

// Every says whether a check against m looks at every file of the store,
// for a sweep limit (negative: never).
func Every(m *Manifest, sweepLimit int) bool {
	return storewatch.Every(m.FileCount(), sweepLimit)
}

// ErrBusy is returned when another process holds the index for writing
// longer than the caller was willing to wait.
var ErrBusy = errors.New("the search index is busy (another lore process is writing it)")

// ErrNoIndex means the directory holds no index yet.
var ErrNoIndex = errors.New("there is no index yet")

// FormatError means the index was written with another FormatVersion.
type FormatError struct{ Found string }

func (e *FormatError) Error() string {
	return fmt.Sprintf("the index has format %s, this lore reads format %d", e.Found, index.FormatVersion)
}

// Reason says in words why an index is rebuilt after err.
func Reason(err error) string {
	var fe *FormatError
	var de *DamageError
	switch {
	case errors.Is(err, ErrNoIndex):
		return "there was no index"
	case errors.As(err, &fe):
		return fe.Error()
	case errors.As(err, &de):
		return "the index was damaged: " + de.Why
	case errors.Is(err, ErrBadManifest), errors.Is(err, fs.ErrNotExist):
		return "the index was damaged"
	}
	return "the index could not be read: " + err.Error()
}

// Dir is an index directory.
type Dir string

// Current names the live generation.
func (d Dir) Current() (string, error) {
	data, err := os.ReadFile(filepath.Join(string(d), index.CurrentFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", ErrNoIndex
	}
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(data))
	if len(f) != 3 || f[0] != "lore-index" || !strings.HasPrefix(f[2], "gen-") || strings.ContainsAny(f[2], `/\`) {
		return "", ErrBadManifest
	}
	if f[1] != strconv.Itoa(index.FormatVersion) {
		return "", &FormatError{Found: f[1]}
	}
	return f[2], nil
}

// SetCurrent makes gen the live generation.
func (d Dir) SetCurrent(gen string) error {
	return fsx.WriteFile(filepath.Join(string(d), index.CurrentFile), fmt.Appendf(nil, "lore-index %d %s\n", index.FormatVersion, gen), fsx.SyncAll)
}

// Generation is where generation gen's scorch index lives.
func (d Dir) Generation(gen string) string { return filepath.Join(string(d), gen) }

// Manifest is the path of generation gen's manifest.
func (d Dir) Manifest(gen string) string { return filepath.Join(string(d), gen+".manifest") }

// Locked runs fn holding the index's write lock, waiting at most timeout
// for it (ErrBusy after that).
func (d Dir) Locked(timeout time.Duration, fn func() error) error {
	if err := os.MkdirAll(string(d), 0o755); err != nil {
		return err
	}
	unlock, err := fsx.Lock(filepath.Join(string(d), index.LockFile), true, timeout)
	if errors.Is(err, fsx.ErrLocked) {
		return ErrBusy
	}
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// LastError is what the last-error file says, "" when there is none.
func (d Dir) LastError() string {
	data, err := os.ReadFile(filepath.Join(string(d), "last-error"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// SetLastError records err in the last-error file, or removes that file
// when err is nil.
func (d Dir) SetLastError(err error) {
	p := filepath.Join(string(d), "last-error")
	if err == nil {
		os.Remove(p)
		return
	}
	fsx.WriteFile(p, []byte(err.Error()+"\n"), fsx.SyncAll)
}

// RemoveStrays deletes every generation but keep: what a rebuild
// replaced or an interrupted one left behind, with their manifests and
// the manifests written aside for them.
func (d Dir) RemoveStrays(keep string) {
	entries, _ := os.ReadDir(string(d))
	for _, e := range entries {
		name := e.Name()
		// A manifest being written is ".<generation>.manifest.lore-….tmp".
		if gen, _, _ := strings.Cut(strings.TrimPrefix(name, "."), "."); strings.HasPrefix(gen, "gen-") && gen != keep {
			os.RemoveAll(filepath.Join(string(d), name))
		}
	}
}

// SameFile says whether path is still the file that had stat seen.
func SameFile(path string, seen fsx.Stamp) bool {
	st, err := fsx.Lstat(path)
	return err == nil && st.Same(seen)
}

// CheckAll reads every entry file of the store, handing documents to
// sink in batches: what a rebuild indexes. The git index's stat is taken
// first, so that what git writes meanwhile is looked at by the next check.
func CheckAll(s Store, now int64, sink func([]index.Doc) error, progress func(done, total int)) (*Changes, error) {
	m := NewManifest()
	if s.GitIndex != "" {
		if st, err := fsx.Lstat(s.GitIndex); err == nil {
			m.git = fileRecord{stat: st.IfSettled(now), hash: uint64(now)}
		}
	}
	return checkWith(s, m, false, now, sink, progress)
}
