package gitx

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
)

// reflogEntry is one line of a reflog: the ref moved from Old to New.
type reflogEntry struct {
	Old, New Hash
	Message  string
}

// reflogPath is the file of ref name's reflog ("HEAD" for this
// worktree's HEAD).
func (r *Repo) reflogPath(name string) string {
	if name == "HEAD" {
		return filepath.Join(r.GitDir, "logs", "HEAD")
	}
	return filepath.Join(r.CommonDir, "logs", filepath.FromSlash(name))
}

// reflogEnd is the size of ref name's reflog, 0 when it has none.
func (r *Repo) reflogEnd(name string) (int64, error) {
	info, err := os.Stat(r.reflogPath(name))
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read the reflog of %s: %w", name, err)
	}
	return info.Size(), nil
}

// readReflog reads ref name's reflog from byte offset since, at most its
// last maxScan bytes, and returns its whole lines in order and the offset
// where it ends now. A reflog shorter than since was rewritten (git
// reflog expire) and is read from its end again.
func (r *Repo) readReflog(name string, since, maxScan int64) ([]reflogEntry, int64, error) {
	f, err := os.Open(r.reflogPath(name))
	if os.IsNotExist(err) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, since, fmt.Errorf("read the reflog of %s: %w", name, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, since, fmt.Errorf("read the reflog of %s: %w", name, err)
	}
	end := info.Size()
	aligned := true // since is where a line starts
	if since > end || end-since > maxScan {
		since = max(0, end-maxScan)
		aligned = since == 0
	}
	if since == end {
		return nil, end, nil
	}
	data := make([]byte, end-since)
	if _, err := f.ReadAt(data, since); err != nil && err != io.EOF {
		return nil, since, fmt.Errorf("read the reflog of %s: %w", name, err)
	}
	skipped := 0
	if !aligned { // started in a line: skip it
		skipped = bytes.IndexByte(data, '\n') + 1
	}
	// Only full lines count: a writer may be appending one.
	data = data[skipped : bytes.LastIndexByte(data, '\n')+1]
	var out []reflogEntry
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if len(line) < 82 || line[40] != ' ' || line[81] != ' ' {
			continue
		}
		from, to := string(line[:40]), string(line[41:81])
		if !plumbing.IsHash(from) || !plumbing.IsHash(to) {
			continue
		}
		_, msg, _ := bytes.Cut(line, []byte{'\t'})
		out = append(out, reflogEntry{Old: plumbing.NewHash(from), New: plumbing.NewHash(to), Message: string(msg)})
	}
	return out, since + int64(skipped+len(data)), nil
}
