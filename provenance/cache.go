package provenance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"lore/internal/fsx"
	"lore/internal/gitx"
	"lore/mdstore"
	"lore/mdstore/cites"
	"lore/mdstore/entry"
)

// The stale cache, <git-dir>/lore/stale.cache, is what Read found, kept
// for the next Read of the clone: a prime's question "which entries are
// stale" then costs a read of a small file rather than parsing
// citations.md (7 MB at 100k entries) and filing 50,000 citations.
//
// Read's answer depends on three things, and the cache records each:
//
//   - citations.md: its stamp, and its content's SHA-256. A stamp that is
//     the same and settled by the cache file's own (fsx.Stamp.SettledBy)
//     is the same content; any other stamp, the content is read and
//     hashed again.
//   - git's index: the staged blob of each cited file (what makes a
//     citation fresh, changed or gone), and the index's stamp. A stamp
//     that is the same and settled skips the lookups; any other, each
//     cited file is looked up again, and one whose blob differs throws
//     the cache away.
//   - HEAD: its commit, and, when some cited file is gone from its path,
//     where HEAD's tree holds its content (moved). When HEAD moved, the
//     files the commits changed (gitx.Repo.ChangedFiles, old HEAD to new)
//     are compared with the gone contents and the paths they moved to:
//     one that touches them throws the cache away; none, and the moves
//     stand.
//
// So a commit that changes no cited file (every lore write, most code
// commits) keeps the answer: the cache is read, its header rewritten.
// A commit or a staged change that changes a cited file, an edit of
// citations.md, a reset to a commit the old HEAD's diff says moved a
// gone file, and anything the cache cannot tell, make Read read
// everything again and write a new cache.
//
// The cached answer is the checks of the entries that are not all fresh
// (usually few) and the sorted keys of every cited entry (whether an
// entry cites anything at all: a line found by binary search, no map
// built); the checks of a fresh entry are read again when one is asked
// (Report.Of). A file that is not a cache of this version, or whose
// checksum (an IEEE CRC-32 of what follows it) does not hold, is no answer.

// cacheFile is the cache's name in the state directory.
const cacheFile = "stale.cache"

// cacheMagic is the cache format's first line; another version is no
// answer.
const cacheMagic = "lore stale cache 2\n"

// maxCache bounds the cache file read.
const maxCache = 64 << 20

// cache is the stale cache of one store; nil when not used.
type cache struct {
	s    *mdstore.Store
	path string
}

func openCache(s *mdstore.Store) *cache {
	return &cache{s: s, path: filepath.Join(s.StateDir(), cacheFile)}
}

// inputs are what a report depends on, as Read found them.
type inputs struct {
	cites    fsx.Stamp
	citesSum [32]byte
	index    fsx.Stamp
	head     gitx.Hash
	staged   map[string]gitx.Staged // each cited file
	gone     map[gitx.Hash]bool     // contents gone from their cited path
	moved    map[gitx.Hash]string   // of those, where HEAD has them
}

func sum(data []byte) [32]byte { return sha256.Sum256(data) }

// remove throws the cache away (nothing is cited).
func (c *cache) remove() {
	if c != nil {
		os.Remove(c.path)
	}
}

// write records r, read from in, as the cache; nothing when a key or a
// path could not be written in its format. A failure to write is no
// error: the next Read reads everything again.
func (c *cache) write(r *Report, in inputs) {
	if c == nil {
		return
	}
	var body bytes.Buffer
	files := make([]string, 0, len(in.staged))
	for f := range in.staged {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		fmt.Fprintf(&body, "file %s %s\n", in.staged[f].Blob, f)
	}
	gone := make([]string, 0, len(in.gone))
	for b := range in.gone {
		gone = append(gone, fmt.Sprintf("gone %s %s\n", b, in.moved[b]))
	}
	sort.Strings(gone)
	for _, g := range gone {
		body.WriteString(g)
	}
	keys := make([]string, 0, len(r.all))
	for key := range r.all {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	var stale, checks bytes.Buffer
	for _, key := range r.StaleKeys() {
		stale.WriteString(key + "\n")
	}
	for _, key := range keys {
		for _, ch := range r.marked[key] {
			fields := []string{key, string(ch.State), ch.MovedTo, ch.File, ch.Lines, ch.Blob, ch.Commit}
			for _, f := range fields {
				if strings.ContainsAny(f, "\x00\n") {
					c.remove()
					return
				}
			}
			checks.WriteString(strings.Join(fields, "\x00") + "\n")
		}
	}
	fmt.Fprintf(&body, "stale %d\n", stale.Len())
	body.Write(stale.Bytes())
	fmt.Fprintf(&body, "checks %d\n", checks.Len())
	body.Write(checks.Bytes())
	body.WriteString("keys\n")
	for _, key := range keys {
		if strings.ContainsAny(key, "\x00\n") {
			c.remove()
			return
		}
		body.WriteString(key)
		body.WriteByte('\n')
	}
	c.save(in, body.Bytes())
}

// save writes the cache: its header for in, then body.
func (c *cache) save(in inputs, body []byte) {
	var b bytes.Buffer
	stamp := func(s fsx.Stamp) string { return fmt.Sprintf("%d %d %d %d", s.Mtime, s.Ctime, s.Ino, s.Size) }
	fmt.Fprintf(&b, "cites %s %x\nindex %s\nhead %s\n", stamp(in.cites), in.citesSum, stamp(in.index), in.head)
	b.Write(body)
	out := make([]byte, 0, len(cacheMagic)+9+b.Len())
	out = append(out, cacheMagic...)
	out = fmt.Appendf(out, "%08x\n", crc32.ChecksumIEEE(b.Bytes()))
	out = append(out, b.Bytes()...)
	if os.MkdirAll(filepath.Dir(c.path), 0o755) == nil {
		_ = fsx.WriteFile(c.path, out, fsx.Unsynced)
	}
}

// cached is a cache file read: its header, and the body that follows.
type cached struct {
	inputs
	files  []string // the cited files, in staged
	body   []byte
	stale  []string // the stale entries' keys, sorted
	checks []byte   // the check lines of the entries not all fresh, by key
	keys   []byte   // every cited entry's key, sorted, a line each
}

// load reads the cache file: nil, with its stamp, when there is none or
// it is no cache of this version, or damaged.
func (c *cache) load() (*cached, fsx.Stamp) {
	f, err := fsx.OpenRegular(c.path)
	if err != nil {
		return nil, fsx.Stamp{}
	}
	defer f.Close()
	st, err := fsx.Fstat(f)
	if err != nil || st.Size > maxCache {
		return nil, st
	}
	data, err := io.ReadAll(io.LimitReader(f, maxCache))
	if err != nil {
		return nil, st
	}
	return parseCache(data), st
}

// parseCache reads a cache file's bytes; nil for anything but a whole
// cache of this version.
func parseCache(data []byte) *cached {
	rest, ok := bytes.CutPrefix(data, []byte(cacheMagic))
	if !ok || len(rest) < 9 || rest[8] != '\n' {
		return nil
	}
	if string(rest[:8]) != fmt.Sprintf("%08x", crc32.ChecksumIEEE(rest[9:])) {
		return nil
	}
	out := &cached{inputs: inputs{staged: map[string]gitx.Staged{}, gone: map[gitx.Hash]bool{}, moved: map[gitx.Hash]string{}}}
	rest = rest[9:]
	stamp := func(f []string) (fsx.Stamp, bool) {
		var n [4]int64
		for i := range n {
			v, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				return fsx.Stamp{}, false
			}
			n[i] = v
		}
		return fsx.Stamp{Mtime: n[0], Ctime: n[1], Ino: uint64(n[2]), Size: n[3]}, true
	}
	var seen int // header lines read: cites, index, head
	bodyAt := -1
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return nil
		}
		line := string(rest[:i])
		if seen == 3 && bodyAt < 0 {
			bodyAt = len(data) - len(rest)
		}
		rest = rest[i+1:]
		word, arg, _ := strings.Cut(line, " ")
		switch {
		case word == "cites" && seen == 0:
			f := strings.Fields(arg)
			s, ok := stamp(f)
			if len(f) != 5 || !ok {
				return nil
			}
			h, err := hex.DecodeString(f[4])
			if err != nil || len(h) != 32 {
				return nil
			}
			out.cites = s
			copy(out.citesSum[:], h)
		case word == "index" && seen == 1:
			f := strings.Fields(arg)
			s, ok := stamp(f)
			if len(f) != 4 || !ok {
				return nil
			}
			out.index = s
		case word == "head" && seen == 2:
			if out.head, ok = parseHash(arg); !ok {
				return nil
			}
		case word == "file" && seen == 3:
			blob, path, _ := strings.Cut(arg, " ")
			h, ok := parseHash(blob)
			if !ok || path == "" {
				return nil
			}
			out.staged[path] = gitx.Staged{Blob: h}
			out.files = append(out.files, path)
		case word == "gone" && seen == 3:
			blob, path, _ := strings.Cut(arg, " ")
			h, ok := parseHash(blob)
			if !ok {
				return nil
			}
			out.gone[h] = true
			if path != "" {
				out.moved[h] = path
			}
		case (word == "stale" || word == "checks") && seen == 3:
			n, err := strconv.Atoi(arg)
			if err != nil || n < 0 || n > len(rest) || n > 0 && rest[n-1] != '\n' {
				return nil
			}
			if word == "stale" {
				out.stale = strings.Split(string(rest[:n]), "\n")
				out.stale = out.stale[:len(out.stale)-1]
			} else {
				out.checks = rest[:n:n]
			}
			rest = rest[n:]
		case line == "keys" && seen == 3:
			out.body = data[bodyAt:]
			out.keys = rest
			return out
		default:
			return nil
		}
		if seen < 3 {
			seen++
		}
	}
	return nil
}

// parseHash reads 40 hex digits (the zero hash too).
func parseHash(s string) (gitx.Hash, bool) {
	if len(s) != 40 {
		return gitx.Hash{}, false
	}
	if _, err := hex.DecodeString(s); err != nil {
		return gitx.Hash{}, false
	}
	return gitx.ParseHash(s), true
}

// report is the cached report, when what it depends on is as the cache
// recorded it (or changed in ways that leave it standing: then the cache
// is rewritten with what it depends on now); nil otherwise.
func (c *cache) report(r *Report, citesPath string) *Report {
	k, own := c.load()
	if k == nil {
		return nil
	}
	settled := func(recorded, now fsx.Stamp) bool { return recorded.Same(now) && recorded.SettledBy(own) }
	now := k.inputs
	st, err := fsx.Lstat(citesPath)
	if err != nil {
		return nil
	}
	if !settled(k.cites, st) {
		data, err := fsx.ReadRegular(citesPath, int64(entry.WriteLimit(cites.Path)))
		if err != nil || sum(data) != k.citesSum {
			return nil
		}
		now.cites = st
	}
	if st, _ := fsx.Lstat(r.repo.IndexFile()); !settled(k.index, st) {
		staged, err := r.repo.StagedOf(k.files)
		if err != nil {
			return nil
		}
		for _, f := range k.files {
			if staged[f].Blob != k.staged[f].Blob {
				return nil
			}
		}
		now.index = st
	}
	head, err := r.repo.HeadCommit()
	if err != nil {
		return nil
	}
	if head != k.head && len(k.gone) > 0 {
		// Where HEAD has a gone file's content: what the commits between
		// changed must not touch it.
		changes, err := r.repo.ChangedFiles(k.head, head)
		if err != nil {
			return nil
		}
		for _, ch := range changes { // (the path a content moved to holds it: a change there is one of it)
			if ch.HadOld && k.gone[ch.OldBlob] || ch.HasNew && k.gone[ch.NewBlob] {
				return nil
			}
		}
	}
	now.head = head
	if now.cites != k.cites || now.index != k.index || now.head != k.head {
		c.save(now, k.body)
	}
	r.Head, r.stale, r.checks, r.keys, r.all, r.fromCache = head, k.stale, k.checks, k.keys, nil, true
	r.load = func() (map[string][]Check, error) {
		full, err := read(c.s, false)
		if err != nil {
			return nil, err
		}
		return full.all, nil
	}
	return r
}

// hasLine reports whether key is a line of block, whose lines are sorted
// (each ended by a newline).
func hasLine(block []byte, key string) bool {
	k := []byte(key)
	at := firstLine(block, func(line []byte) bool { return bytes.Compare(line, k) >= 0 })
	return at < len(block) && bytes.Equal(lineAt(block, at), k)
}

// findChecks is the checks of entry key in block, check lines sorted by
// key (key, state, moved to, file, lines, blob and commit, separated by
// NULs); nil for none.
func findChecks(block []byte, key string) []Check {
	k := []byte(key)
	keyOf := func(line []byte) []byte { return line[:max(bytes.IndexByte(line, 0), 0)] }
	var out []Check
	for at := firstLine(block, func(line []byte) bool { return bytes.Compare(keyOf(line), k) >= 0 }); at < len(block); {
		line := lineAt(block, at)
		if !bytes.Equal(keyOf(line), k) {
			break
		}
		f := strings.Split(string(line), "\x00")
		if len(f) == 7 {
			out = append(out, Check{Cite: cites.Cite{File: f[3], Lines: f[4], Blob: f[5], Commit: f[6]}, State: State(f[1]), MovedTo: f[2]})
		}
		at += len(line) + 1
	}
	return out
}

// firstLine is where the first line of block (lines sorted, each ended
// by a newline) that geq holds for starts, len(block) for none: a binary
// search, geq holding from some line on.
func firstLine(block []byte, geq func(line []byte) bool) int {
	lo, hi := 0, len(block) // each the start of a line (or the end)
	for lo < hi {
		mid := lo + (hi-lo)/2
		start := lo + bytes.LastIndexByte(block[lo:mid], '\n') + 1
		if line := lineAt(block, start); geq(line) {
			hi = start
		} else {
			lo = start + len(line) + 1
		}
	}
	return min(lo, len(block))
}

// lineAt is the line of block that starts at offset at, without its
// newline.
func lineAt(block []byte, at int) []byte {
	line := block[at:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return line
}
