package gitx

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zlib"

	"lore/internal/fsx"
)

// Hash is a SHA-1 object name.
type Hash = plumbing.Hash

// ZeroHash is the all-zero object name git uses for "no object".
var ZeroHash = plumbing.ZeroHash

// ErrObjectNotFound is returned when an object is missing from the
// repository (a shallow or partial clone, or a damaged one).
var ErrObjectNotFound = errors.New("object not found")

func hashObject(typ plumbing.ObjectType, data []byte) Hash {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", typ.Bytes(), len(data))
	h.Write(data)
	var out Hash
	copy(out[:], h.Sum(nil))
	return out
}

// readObject returns the content of an object of the given type.
// During an Update every object read is kept (readCache): the build
// function reads HEAD's version of a file, and the plan reads it again.
// The data is shared: callers must not modify it.
func (r *Repo) readObject(typ plumbing.ObjectType, h Hash) ([]byte, error) {
	got, data, cached := plumbing.InvalidObject, []byte(nil), false
	if r.readCache != nil {
		var c cachedObject
		if c, cached = r.readCache[h]; cached {
			got, data = c.typ, c.data
		}
	}
	if !cached {
		var err error
		if got, data, err = r.objects.read(h); err != nil {
			return nil, err
		}
		if r.readCache != nil {
			r.readCache[h] = cachedObject{got, data}
		}
	}
	if got != typ {
		return nil, fmt.Errorf("object %s is a %s, not a %s", h, got, typ)
	}
	return data, nil
}

// cacheObjects keeps the objects read and the trees parsed (readCache,
// treeCache) until release is called, unless they are kept already: an
// object's content is its name, so what a Snapshot read before an Update
// is still true in it.
func (r *Repo) cacheObjects() (release func()) {
	if r.readCache != nil {
		return func() {}
	}
	r.readCache, r.treeCache = map[Hash]cachedObject{}, map[Hash]*parsedTree{}
	return func() { r.readCache, r.treeCache = nil, nil }
}

// cachedObject is an object read during an Update.
type cachedObject struct {
	typ  plumbing.ObjectType
	data []byte
}

// storedTreeSize is the size from which a tree is written uncompressed
// (see writeObject): a directory of about 1,500 entries.
const storedTreeSize = 64 << 10

// writeObject stores data as a loose object and returns its name. The
// object is written to a temporary file, closed at once (a write of
// 100,000 objects must not hold 100,000 files open); flushObjects makes
// all of them durable together and renames them into place, before
// anything refers to them. An object that already exists as a loose
// object is freshened.
func (r *Repo) writeObject(typ plumbing.ObjectType, data []byte) (Hash, error) {
	// A big blob (memories.md) is deflated on every core while it is
	// hashed: the hash names the file it goes to.
	var deflated chan []byte
	if typ != plumbing.TreeObject && len(data) >= parallelDeflateSize && runtime.GOMAXPROCS(0) > 1 {
		deflated = make(chan []byte, 1)
		go func() { deflated <- deflateParallel(objectHeader(typ, len(data)), data) }()
	}
	h := hashObject(typ, data)
	hex := h.String()
	dir := filepath.Join(r.CommonDir, "objects", hex[:2])
	path := filepath.Join(dir, hex[2:])
	if r.pendingAt[path] {
		return h, nil
	}
	if _, err := os.Stat(path); err == nil {
		now := time.Now()
		os.Chtimes(path, now, now) // keep it safe from a concurrent prune
		return h, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return h, fmt.Errorf("write object: %w", err)
	}
	// git prune-packed (run by git repack -d and git gc) removes an
	// emptied objects/xx/ directory: one can vanish between MkdirAll and
	// the create. Like C git, make it again and retry.
	tmp, err := os.CreateTemp(dir, "tmp_obj_")
	for try := 0; errors.Is(err, fs.ErrNotExist) && try < 10; try++ {
		if err = os.MkdirAll(dir, 0o755); err == nil {
			tmp, err = os.CreateTemp(dir, "tmp_obj_")
		}
	}
	if err != nil {
		return h, fmt.Errorf("write object: %w", err)
	}
	if r.pendingAt == nil {
		r.pendingAt = map[string]bool{}
	}
	r.pending = append(r.pending, pendingObject{name: tmp.Name(), final: path})
	r.pendingAt[path] = true
	if err := r.writeLoose(tmp, typ, data, deflated); err != nil {
		tmp.Close()
		return h, fmt.Errorf("write object %s: %w", hex, err)
	}
	if err := tmp.Close(); err != nil {
		return h, fmt.Errorf("write object %s: %w", hex, err)
	}
	return h, nil
}

// writeLoose writes a loose object's bytes to f: deflated already (a big
// blob), or deflated here.
func (r *Repo) writeLoose(f *os.File, typ plumbing.ObjectType, data []byte, deflated chan []byte) error {
	// The object is compressed straight into its file, at git's loose
	// level (core.looseCompression, 1) — but a big tree is stored in
	// zlib's stored blocks: most of a tree is object names, which do not
	// compress (a tree of 25,000 learnings deflates by a third, in 9–12
	// ms), and the next write reads it back (inflating it took 9 ms,
	// reading it stored 3). git reads both alike, and packs them alike.
	// A zlib writer allocates about a megabyte of tables: one of each
	// level is reused for every object this process writes.
	if deflated != nil {
		_, err := f.Write(<-deflated)
		return err
	}
	out := bufio.NewWriterSize(f, min(64<<10, len(data)+512))
	kind, level := 0, zlib.BestSpeed
	if typ == plumbing.TreeObject && len(data) >= storedTreeSize {
		kind, level = 1, zlib.NoCompression
	}
	z := r.zlib[kind]
	if z == nil {
		z, _ = zlib.NewWriterLevel(out, level)
		r.zlib[kind] = z
	} else {
		z.Reset(out)
	}
	z.Write(objectHeader(typ, len(data)))
	z.Write(data)
	if err := z.Close(); err != nil {
		return err
	}
	return out.Flush()
}

// parallelDeflateSize is the size from which a blob is deflated in
// parts, one per core (deflateParallel).
const parallelDeflateSize = 1 << 20

// objectHeader is the header git puts before an object's content.
func objectHeader(typ plumbing.ObjectType, size int) []byte {
	return fmt.Appendf(nil, "%s %d\x00", typ.Bytes(), size)
}

// deflateParallel is zlib at git's loose level (1) of header and data,
// deflated in one part per core at once, the way pigz does: each part but
// the last ends with a sync flush (an empty stored block, on a byte
// boundary), so the parts joined are one deflate stream, which any zlib
// reads; the Adler-32 is of the whole. Each part starts without the last
// 32 KiB of the one before as its dictionary, which costs a few hundred
// bytes in a megabyte. A 3 MB memories.md: 15 ms against 25 on two cores,
// in a fresh process.
func deflateParallel(header, data []byte) []byte {
	n := min(runtime.GOMAXPROCS(0), max(1, len(data)/(512<<10)))
	parts := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			from, to := i*len(data)/n, (i+1)*len(data)/n
			var b bytes.Buffer
			b.Grow((to - from) / 2)
			w, _ := flate.NewWriter(&b, flate.BestSpeed)
			if i == 0 {
				w.Write(header)
			}
			w.Write(data[from:to])
			if i < n-1 {
				w.Flush()
			} else {
				w.Close()
			}
			parts[i] = b.Bytes()
		})
	}
	sum := adler32.New()
	sum.Write(header)
	sum.Write(data)
	wg.Wait()
	size := 2 + 4
	for _, p := range parts {
		size += len(p)
	}
	out := make([]byte, 0, size)
	out = append(out, 0x78, 0x01) // deflate, 32 KiB window, fastest level
	for _, p := range parts {
		out = append(out, p...)
	}
	return binary.BigEndian.AppendUint32(out, sum.Sum32())
}

// pendingObject is a loose object written to a temporary file, closed.
type pendingObject struct {
	name, final string
}

// flushObjects makes the pending objects durable and renames them into
// place, before anything names them.
func (r *Repo) flushObjects() error {
	defer r.discardObjects()
	names := make([]string, len(r.pending))
	for i, p := range r.pending {
		names[i] = p.name
	}
	if err := fsx.SyncFiles(names); err != nil {
		return fmt.Errorf("sync object: %w", err)
	}
	for _, p := range r.pending {
		os.Chmod(p.name, 0o444)
		if err := os.Rename(p.name, p.final); err != nil {
			return fmt.Errorf("write object: %w", err)
		}
	}
	r.pending = r.pending[:0]
	clear(r.pendingAt)
	return nil
}

// discardObjects removes the temporary files of objects not flushed.
func (r *Repo) discardObjects() {
	for _, p := range r.pending {
		os.Remove(p.name)
	}
	r.pending = r.pending[:0]
	clear(r.pendingAt)
}

// treeEntry is one line of a tree object. The mode is kept as written so
// that unchanged entries are re-encoded byte for byte.
type treeEntry struct {
	mode string
	name string
	hash Hash
}

func (e treeEntry) isTree() bool { return e.mode == "40000" || e.mode == "040000" }

func parseTree(data []byte) ([]treeEntry, error) {
	// One string holds every name, and the usual modes are shared: a
	// tree of 25,000 entries is then three allocations, not 50,000.
	text := string(data)
	entries := make([]treeEntry, 0, len(data)/48)
	for at := 0; at < len(text); {
		sp := strings.IndexByte(text[at:], ' ')
		nul := strings.IndexByte(text[at:], 0)
		if sp < 0 || nul < sp || len(text) < at+nul+21 {
			return nil, errors.New("malformed tree object")
		}
		var h Hash
		copy(h[:], text[at+nul+1:at+nul+21])
		entries = append(entries, treeEntry{mode: treeMode(text[at : at+sp]), name: text[at+sp+1 : at+nul], hash: h})
		at += nul + 21
	}
	return entries, nil
}

// treeMode is mode, shared when it is one git writes.
func treeMode(mode string) string {
	for _, m := range [...]string{"100644", "40000", "100755", "120000", "160000"} {
		if mode == m {
			return m
		}
	}
	return mode
}

func encodeTree(entries []treeEntry) []byte {
	var buf bytes.Buffer
	for _, e := range entries {
		buf.WriteString(e.mode)
		buf.WriteByte(' ')
		buf.WriteString(e.name)
		buf.WriteByte(0)
		buf.Write(e.hash[:])
	}
	return buf.Bytes()
}

// treeEntryLess is git's tree order: names compared as bytes, with a
// directory compared as if its name ended in "/".
func treeEntryLess(a, b treeEntry) bool {
	return compareTreeNames(a.name, a.isTree(), b.name, b.isTree()) < 0
}

// compareTreeNames compares two names in git's tree order, each a
// directory's (tree) or not.
func compareTreeNames(a string, aTree bool, b string, bTree bool) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	// One is a prefix of the other: what follows it is the longer one's
	// next byte, a directory's "/", or nothing. Names hold no "/".
	next := func(s string, tree bool) int {
		switch {
		case n < len(s):
			return int(s[n])
		case tree:
			return '/'
		}
		return -1
	}
	return cmp.Compare(next(a, aTree), next(b, bTree))
}

// commitTree returns the tree of commit h.
func (r *Repo) commitTree(h Hash) (Hash, error) {
	data, err := r.readObject(plumbing.CommitObject, h)
	if err != nil {
		return ZeroHash, err
	}
	line, _, _ := bytes.Cut(data, []byte{'\n'})
	hex, ok := bytes.CutPrefix(line, []byte("tree "))
	if !ok || len(hex) != 40 {
		return ZeroHash, fmt.Errorf("commit %s has no tree line", h)
	}
	return plumbing.NewHash(string(hex)), nil
}

// lookupPath finds path in tree root. It returns the entry and whether it
// exists.
func (r *Repo) lookupPath(root Hash, path string) (treeEntry, bool, error) {
	if root.IsZero() {
		return treeEntry{}, false, nil
	}
	current := root
	parts := strings.Split(path, "/")
	for i, part := range parts {
		t, err := r.readTree(current)
		if err != nil {
			return treeEntry{}, false, err
		}
		e, ok := t.find(part)
		switch {
		case !ok:
			return treeEntry{}, false, nil
		case i == len(parts)-1:
			return e, true, nil
		case !e.isTree():
			return treeEntry{}, false, nil
		}
		current = e.hash
	}
	return treeEntry{}, false, nil
}

// parsedTree is a tree's entries, in order, and by name (made when first
// asked for).
type parsedTree struct {
	entries []treeEntry
	byName  map[string]treeEntry
	sorted  bool // in git's order, each name once: find searches
}

// newParsedTree is the tree of entries, which says whether they are in
// git's order.
func newParsedTree(entries []treeEntry) *parsedTree {
	t := &parsedTree{entries: entries, sorted: true}
	for i := 1; i < len(entries) && t.sorted; i++ {
		t.sorted = treeEntryLess(entries[i-1], entries[i])
	}
	return t
}

// names is the tree by name, made on first use: the first entry of a
// name, as a scan finds it.
func (t *parsedTree) names() map[string]treeEntry {
	if t.byName == nil {
		t.byName = make(map[string]treeEntry, len(t.entries))
		for _, e := range t.entries {
			if _, dup := t.byName[e.name]; !dup {
				t.byName[e.name] = e
			}
		}
	}
	return t.byName
}

// find returns the entry named name: found by halving when the tree is in
// git's order, as every tree git writes is (one lookup in a directory of
// 25,000 entries need not make a map of them), else from the map, which
// keeps the first entry of a name as a scan finds it. Of a file and a
// directory of the same name, the file comes first in either.
func (t *parsedTree) find(name string) (treeEntry, bool) {
	if !t.sorted {
		e, ok := t.names()[name]
		return e, ok
	}
	for _, tree := range [...]bool{false, true} {
		i := sort.Search(len(t.entries), func(i int) bool {
			return compareTreeNames(t.entries[i].name, t.entries[i].isTree(), name, tree) >= 0
		})
		if i < len(t.entries) && t.entries[i].name == name && t.entries[i].isTree() == tree {
			return t.entries[i], true
		}
	}
	return treeEntry{}, false
}

// readTree reads and parses tree h. During an Update each tree is parsed
// once (treeCache): a change that reads every file of a directory of
// 25,000 entries would otherwise parse that directory's tree 25,000
// times, and listing it three times (its blobs, its names for a free id)
// would parse 1 MB three times.
func (r *Repo) readTree(h Hash) (*parsedTree, error) {
	if t, ok := r.treeCache[h]; ok {
		return t, nil
	}
	data, err := r.readObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	entries, err := parseTree(data)
	if err != nil {
		return nil, fmt.Errorf("%w (tree %s)", err, h)
	}
	t := newParsedTree(entries)
	if r.treeCache != nil {
		r.treeCache[h] = t
	}
	return t, nil
}

// treeByName reads tree h as a map from name to entry.
func (r *Repo) treeByName(h Hash) (map[string]treeEntry, error) {
	t, err := r.readTree(h)
	if err != nil {
		return nil, err
	}
	return t.names(), nil
}

// treeChange sets a path to a blob (with mode) or, when remove is set,
// removes it.
type treeChange struct {
	path   string
	mode   string
	blob   Hash
	remove bool
}

// applyTreeChanges returns the tree that results from applying changes to
// tree base (ZeroHash for the empty tree), writing a new tree object for
// every directory on a changed path and reusing every other tree as is.
func (r *Repo) applyTreeChanges(base Hash, changes []treeChange) (Hash, error) {
	var entries []treeEntry
	if !base.IsZero() {
		data, err := r.readObject(plumbing.TreeObject, base)
		if err != nil {
			return ZeroHash, err
		}
		if entries, err = parseTree(data); err != nil {
			return ZeroHash, fmt.Errorf("%w (tree %s)", err, base)
		}
	}
	// Group the changes by their first path component.
	groups := map[string][]treeChange{}
	var names []string
	for _, c := range changes {
		first, rest, nested := strings.Cut(c.path, "/")
		if _, seen := groups[first]; !seen {
			names = append(names, first)
		}
		if nested {
			c.path = rest
			groups[first] = append(groups[first], c)
		} else {
			groups[first] = append(groups[first], treeChange{path: "", mode: c.mode, blob: c.blob, remove: c.remove})
		}
	}
	for _, name := range names {
		group := groups[name]
		idx := -1
		for i, e := range entries {
			if e.name == name {
				idx = i
				break
			}
		}
		var updated *treeEntry
		if len(group) == 1 && group[0].path == "" {
			c := group[0]
			if !c.remove {
				updated = &treeEntry{mode: c.mode, name: name, hash: c.blob}
			}
		} else {
			sub := ZeroHash
			if idx >= 0 && entries[idx].isTree() {
				sub = entries[idx].hash
			}
			var nested []treeChange
			for _, c := range group {
				if c.path != "" {
					nested = append(nested, c)
				}
			}
			h, err := r.applyTreeChanges(sub, nested)
			if err != nil {
				return ZeroHash, err
			}
			if !h.IsZero() {
				updated = &treeEntry{mode: "40000", name: name, hash: h}
			}
		}
		switch {
		case idx >= 0 && updated == nil:
			entries = append(entries[:idx], entries[idx+1:]...)
		case idx >= 0:
			entries[idx] = *updated
		case updated != nil:
			entries = append(entries, *updated)
		}
	}
	if len(entries) == 0 {
		return ZeroHash, nil
	}
	sort.SliceStable(entries, func(i, j int) bool { return treeEntryLess(entries[i], entries[j]) })
	return r.writeObject(plumbing.TreeObject, encodeTree(entries))
}

// signature is an author or committer line.
type signature struct {
	Name  string
	Email string
	When  time.Time
}

func (s signature) String() string {
	_, offset := s.When.Zone()
	sign := '+'
	if offset < 0 {
		sign, offset = '-', -offset
	}
	return fmt.Sprintf("%s <%s> %d %c%02d%02d", s.Name, s.Email, s.When.Unix(), sign, offset/3600, offset%3600/60)
}

func encodeCommit(tree Hash, parents []Hash, author, committer signature, message string) []byte {
	var buf bytes.Buffer
	buf.WriteString("tree " + tree.String() + "\n")
	for _, p := range parents {
		buf.WriteString("parent " + p.String() + "\n")
	}
	buf.WriteString("author " + author.String() + "\n")
	buf.WriteString("committer " + committer.String() + "\n\n")
	buf.WriteString(message)
	if !strings.HasSuffix(message, "\n") {
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// parseOctalMode turns a tree or index mode string into its number.
func parseOctalMode(mode string) uint32 {
	n, _ := strconv.ParseUint(mode, 8, 32)
	return uint32(n)
}

// BlobHash is the id git gives a blob of data.
func BlobHash(data []byte) Hash { return hashObject(plumbing.BlobObject, data) }
