package gitx

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrRefMoved is returned when a branch no longer holds the commit lore
// built on: another process committed in between. The caller retries.
var ErrRefMoved = errors.New("ref moved")

// head describes what HEAD points to.
type head struct {
	// Branch is the full ref name ("refs/heads/main") when HEAD is
	// symbolic, "" when it is detached.
	Branch string
	// Commit is the commit HEAD resolves to, ZeroHash on an unborn branch.
	Commit Hash
}

func (h head) detached() bool { return h.Branch == "" }

// readHead resolves HEAD of this worktree.
func (r *Repo) readHead() (head, error) {
	data, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return head{}, fmt.Errorf("read HEAD: %w", err)
	}
	line := strings.TrimSpace(string(data))
	target, symbolic := strings.CutPrefix(line, "ref:")
	if !symbolic {
		if !plumbing.IsHash(line) {
			return head{}, fmt.Errorf("HEAD is neither a ref nor a commit: %q", line)
		}
		return head{Commit: plumbing.NewHash(line)}, nil
	}
	name := strings.TrimSpace(target)
	// A branch may itself be a symbolic ref; follow a few levels.
	for depth := 0; depth < 5; depth++ {
		if !strings.HasPrefix(name, "refs/") {
			// git's own rule for HEAD (validate_headref): only a ref
			// under refs/ is a branch.
			return head{}, fmt.Errorf("HEAD points to %q, which is not a branch under refs/", name)
		}
		h, sym, err := r.readRef(name)
		if err != nil {
			return head{}, err
		}
		if sym == "" {
			return head{Branch: name, Commit: h}, nil
		}
		name = sym
	}
	return head{}, fmt.Errorf("symbolic ref chain from HEAD is too deep")
}

// refPath returns where a loose ref lives: per-worktree refs in GitDir,
// shared ones in CommonDir.
func (r *Repo) refPath(name string) string {
	if name == "HEAD" || strings.HasPrefix(name, "refs/worktree/") ||
		strings.HasPrefix(name, "refs/bisect/") || strings.HasPrefix(name, "refs/rewritten/") {
		return filepath.Join(r.GitDir, filepath.FromSlash(name))
	}
	return filepath.Join(r.CommonDir, filepath.FromSlash(name))
}

// readRef reads a ref as a loose file or from packed-refs. It returns the
// hash (ZeroHash when the ref does not exist) or, for a symbolic ref, the
// name it points to.
func (r *Repo) readRef(name string) (Hash, string, error) {
	if err := checkRefName(name); err != nil {
		return ZeroHash, "", err
	}
	data, err := os.ReadFile(r.refPath(name))
	if err == nil {
		line := strings.TrimSpace(string(data))
		if target, ok := strings.CutPrefix(line, "ref:"); ok {
			return ZeroHash, strings.TrimSpace(target), nil
		}
		if !plumbing.IsHash(line) {
			return ZeroHash, "", fmt.Errorf("ref %s is corrupt: %q", name, line)
		}
		return plumbing.NewHash(line), "", nil
	}
	if !os.IsNotExist(err) {
		// A directory where the ref file would be (refs/heads/a when
		// refs/heads/a/b exists) means there is no loose ref.
		if info, serr := os.Stat(r.refPath(name)); serr != nil || !info.IsDir() {
			return ZeroHash, "", fmt.Errorf("read ref %s: %w", name, err)
		}
	}
	return r.readPackedRef(name)
}

func (r *Repo) readPackedRef(name string) (Hash, string, error) {
	f, err := os.Open(filepath.Join(r.CommonDir, "packed-refs"))
	if os.IsNotExist(err) {
		return ZeroHash, "", nil
	}
	if err != nil {
		return ZeroHash, "", fmt.Errorf("read packed-refs: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	suffix := []byte(" " + name)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) > 41 && line[40] == ' ' && bytes.Equal(line[40:], suffix) {
			return plumbing.NewHash(string(line[:40])), "", nil
		}
	}
	if err := sc.Err(); err != nil {
		return ZeroHash, "", fmt.Errorf("read packed-refs: %w", err)
	}
	return ZeroHash, "", nil
}

// refUpdate moves one ref from old to new under its lock file.
type refUpdate struct {
	name      string // "refs/heads/main" or "HEAD" when detached
	old, new  Hash
	committer signature
	message   string // reflog message
	logHEAD   bool   // also append to logs/HEAD (HEAD points to this branch)
}

// lockRef takes <ref>.lock, checks that the ref still holds u.old
// (compare-and-set) and writes u.new into the lock file durably. The
// caller publishes the lock (renames it into place) and then calls
// logRefUpdate. It returns ErrRefMoved when the ref changed.
func (r *Repo) lockRef(u refUpdate, timeout time.Duration) (*lockFile, error) {
	if err := checkRefName(u.name); err != nil {
		return nil, err
	}
	path := r.refPath(u.name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("update %s: %w", u.name, err)
	}
	lock, err := acquireLock(path, timeout)
	if err != nil {
		return nil, err
	}
	var current Hash
	if u.name == "HEAD" {
		h, err := r.readHead()
		if err != nil {
			lock.rollback()
			return nil, err
		}
		if !h.detached() {
			lock.rollback()
			return nil, fmt.Errorf("%w: HEAD is no longer detached", ErrRefMoved)
		}
		current = h.Commit
	} else {
		h, sym, err := r.readRef(u.name)
		if err != nil {
			lock.rollback()
			return nil, err
		}
		if sym != "" {
			lock.rollback()
			return nil, fmt.Errorf("%s became a symbolic ref", u.name)
		}
		current = h
	}
	if current != u.old {
		lock.rollback()
		return nil, fmt.Errorf("%w: %s is at %s, expected %s", ErrRefMoved, u.name, current, u.old)
	}
	if err := lock.write([]byte(u.new.String() + "\n")); err != nil {
		lock.rollback()
		return nil, err
	}
	if err := lock.prepare(true); err != nil {
		lock.rollback()
		return nil, err
	}
	return lock, nil
}

// logRefUpdate appends the reflog lines of a published ref update. The
// reflog comes after the ref, as in git: a missing reflog line is
// harmless, a ref pointing nowhere is not.
func (r *Repo) logRefUpdate(u refUpdate) error {
	line := fmt.Sprintf("%s %s %s\t%s\n", u.old, u.new, u.committer, strings.ReplaceAll(u.message, "\n", " "))
	if err := r.appendReflog(u.name, line); err != nil {
		return err
	}
	if u.logHEAD {
		return r.appendReflog("HEAD", line)
	}
	return nil
}

// appendReflog appends line to the ref's log, creating the log when
// core.logAllRefUpdates asks for it.
func (r *Repo) appendReflog(name, line string) error {
	if err := checkRefName(name); err != nil {
		return err
	}
	path := filepath.Join(r.CommonDir, "logs", filepath.FromSlash(name))
	if name == "HEAD" {
		path = filepath.Join(r.GitDir, "logs", "HEAD")
	}
	if _, err := os.Stat(path); os.IsNotExist(err) {
		mode, _ := r.config.Get("core.logallrefupdates")
		always := strings.EqualFold(mode, "always")
		autoCreate := name == "HEAD" || strings.HasPrefix(name, "refs/heads/")
		if !always && !(autoCreate && r.config.Bool("core.logallrefupdates", true)) {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("reflog %s: %w", name, err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return fmt.Errorf("reflog %s: %w", name, err)
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("reflog %s: %w", name, err)
	}
	return nil
}

// checkRefName refuses a ref name git would refuse (git check-ref-format),
// before it becomes a path under the git directory: HEAD holding
// "ref: refs/heads/../../../x" must not make lore read or write a file
// outside it. The rules: "HEAD", or a name of at least two
// slash-separated components, none empty, none beginning with "." or
// ending with ".lock"; no "..", "@{", control characters, space, "~",
// "^", ":", "?", "*", "[" or a backslash; not ending with ".".
func checkRefName(name string) error {
	if name == "HEAD" {
		return nil
	}
	bad := func(why string) error {
		return fmt.Errorf("%q is not a valid ref name (%s)", name, why)
	}
	switch {
	case name == "" || name == "@":
		return bad("empty or @")
	case !strings.Contains(name, "/"):
		return bad("a single component")
	case strings.HasSuffix(name, "."):
		return bad("ends with .")
	case strings.Contains(name, ".."):
		return bad("contains ..")
	case strings.Contains(name, "@{"):
		return bad("contains @{")
	}
	for _, c := range []byte(name) {
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return bad(fmt.Sprintf("contains %q", c))
		}
	}
	for _, part := range strings.Split(name, "/") {
		switch {
		case part == "":
			return bad("an empty component")
		case strings.HasPrefix(part, "."):
			return bad("a component begins with .")
		case strings.HasSuffix(part, ".lock"):
			return bad("a component ends with .lock")
		}
	}
	return nil
}
