package bleveindex

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bindex "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	zap "github.com/blevesearch/zapx/v17"

	"lore/index"
)

// A rebuild writes a generation offline, as scorch's own Builder does —
// segments made from batches of documents, merged into one, and a
// root.bolt naming it — but on every core: documents are analyzed and
// their segments made by one worker per core while the files are still
// being read, and the segments are merged in one pass. Through a live
// scorch index (batches introduced one by one, persisted, merged in
// tiers in the background, then merged into one), a rebuild of 100k
// entries took 20–27 s here with one core mostly idle; the builder's
// Builder makes every segment on one core.
//
// What scorch reads of a generation is root.bolt and the segment it
// names. scorch's Builder is what writes root.bolt (lore does not write
// bleve's files itself): it is given one placeholder document, and the
// segment it makes of it is replaced with the merged one, under the same
// name — root.bolt records the segment's file name, type and version,
// nothing of what it holds (scorch's prepareBoltSnapshot). The seal's
// check that bleve opens as many documents as were written holds the
// result to that.
type builder struct {
	dir     string // the generation being built
	tmp     string // segments before the merge, and scorch's Builder's work
	plugin  *zap.ZapPlugin
	batches chan builderBatch
	wg      sync.WaitGroup

	mu   sync.Mutex
	segs []string // each batch's segment, in the order the batches came
	err  error

	next    int             // the number of the next batch
	pending []index.Doc     // documents not yet handed to a worker
	seen    map[string]bool // document ids: the first of an id counts, as index.DocsFromFile keeps it
	docs    uint64
}

type builderBatch struct {
	n    int
	docs []index.Doc
}

// newBuilder starts building a generation in dir, which must not exist.
func newBuilder(dir string) (*builder, error) {
	b := &builder{
		dir:     dir,
		tmp:     dir + ".build",
		plugin:  &zap.ZapPlugin{},
		batches: make(chan builderBatch),
		seen:    map[string]bool{},
	}
	if err := os.RemoveAll(b.tmp); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(b.tmp, 0o755); err != nil {
		return nil, err
	}
	for range runtime.GOMAXPROCS(0) {
		b.wg.Go(b.work)
	}
	return b, nil
}

// add indexes docs: it hands them to the workers segmentDocs at a time,
// waiting while every worker is busy, and keeps the rest for the next
// call (or finish). The first document of an id counts, as
// index.DocsFromFile keeps the first memory of an id.
func (b *builder) add(docs []index.Doc) error {
	for _, d := range docs {
		if !b.seen[d.ID] {
			b.seen[d.ID] = true
			b.pending = append(b.pending, d)
		}
	}
	return b.send(segmentDocs)
}

// send hands the pending documents to the workers while at least min
// of them wait.
func (b *builder) send(min int) error {
	for len(b.pending) >= max(min, 1) {
		if err := b.failed(); err != nil {
			return err
		}
		n := len(b.pending)
		if n > segmentDocs {
			n = segmentDocs
		}
		b.mu.Lock()
		b.segs = append(b.segs, "")
		b.mu.Unlock()
		b.batches <- builderBatch{n: b.next, docs: b.pending[:n:n]}
		b.next++
		b.docs += uint64(n)
		b.pending = b.pending[n:]
	}
	if len(b.pending) == 0 {
		b.pending = nil
	}
	return b.failed()
}

// segmentDocs is how many documents make a segment. Analyzing a
// document makes its terms' table, ~60 KB for an entry of 500 words,
// which the segment holds until it is written: at 2,000 a segment, the
// two workers' tables kept the heap at its limit and the collector ran
// all the time (100k entries: 19.7 s, 420 MB); at 1,000, 14.3–15.5 s and
// 255–265 MB; at 500, or 1,500, slower again.
var segmentDocs = 1000 // a variable for the tests

func (b *builder) failed() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// work makes a segment of each batch it receives and writes it to tmp.
func (b *builder) work() {
	for batch := range b.batches {
		path, err := b.segment(batch)
		b.mu.Lock()
		if err != nil && b.err == nil {
			b.err = err
		}
		b.segs[batch.n] = path
		b.mu.Unlock()
	}
}

func (b *builder) segment(batch builderBatch) (path string, err error) {
	defer guard(&err)()
	if b.failed() != nil {
		return "", nil
	}
	docs := make([]bindex.Document, 0, len(batch.docs))
	for _, d := range batch.docs {
		doc, err := buildDocument(d)
		if err != nil {
			return "", fmt.Errorf("index %s: %w", d.ID, err)
		}
		analyze(doc)
		docs = append(docs, doc)
	}
	seg, _, err := b.plugin.New(docs)
	if err != nil {
		return "", err
	}
	defer seg.Close()
	unpersisted, ok := seg.(segment.UnpersistedSegment)
	if !ok {
		return "", fmt.Errorf("bleve made a segment of type %T, which cannot be written", seg)
	}
	path = filepath.Join(b.tmp, fmt.Sprintf("batch-%06d.zap", batch.n))
	return path, unpersisted.Persist(path)
}

// analyze does what scorch does to a document before it makes a segment
// of it: adds its _id field and analyzes every indexed field (lore's
// documents have no composite fields).
func analyze(doc *document.Document) {
	doc.AddIDField()
	doc.VisitFields(func(f bindex.Field) {
		if f.Options().IsIndexed() {
			f.Analyze()
		}
	})
}

// finish waits for the workers, merges their segments into the
// generation's and writes its root.bolt; it returns how many documents
// the generation holds. A builder that failed removes what it wrote.
func (b *builder) finish() (docs uint64, err error) {
	serr := b.send(1)
	close(b.batches)
	b.wg.Wait()
	defer os.RemoveAll(b.tmp)
	if serr != nil {
		return 0, serr
	}
	if err := b.failed(); err != nil {
		return 0, err
	}
	if b.docs == 0 {
		// No document: an empty index, as scorch opens one.
		x, err := openScorch(b.dir, true, 0)
		if err != nil {
			return 0, err
		}
		return 0, x.Close()
	}
	trace("segments made: %d of %d documents", len(b.segs), b.docs)
	merged, err := b.merge()
	if err != nil {
		return 0, err
	}
	trace("segments merged")
	if err := b.wrap(merged); err != nil {
		return 0, err
	}
	return b.docs, nil
}

// abort stops the workers and removes what they wrote.
func (b *builder) abort() {
	close(b.batches)
	b.wg.Wait()
	os.RemoveAll(b.tmp)
}

// merge merges the batches' segments into one file in tmp, in the
// batches' order.
func (b *builder) merge() (path string, err error) {
	defer guard(&err)()
	if len(b.segs) == 1 {
		return b.segs[0], nil
	}
	segs := make([]segment.Segment, 0, len(b.segs))
	defer func() {
		for _, s := range segs {
			s.Close()
		}
	}()
	for _, p := range b.segs {
		s, err := b.plugin.Open(p)
		if err != nil {
			return "", err
		}
		segs = append(segs, s)
	}
	path = filepath.Join(b.tmp, "merged.zap")
	if _, _, err := b.plugin.Merge(segs, make([]*roaring.Bitmap, len(segs)), path, nil, nil); err != nil {
		return "", err
	}
	return path, nil
}

// wrap makes the generation of the segment at merged: scorch's Builder
// writes root.bolt for a placeholder segment, which merged then replaces.
func (b *builder) wrap(merged string) (err error) {
	defer guard(&err)()
	sb, err := scorch.NewBuilder(map[string]any{
		"path":                b.dir,
		"buildPathPrefix":     b.tmp,
		"forceSegmentType":    b.plugin.Type(),
		"forceSegmentVersion": int(b.plugin.Version()),
	})
	if err != nil {
		return err
	}
	placeholder := document.NewDocument("placeholder")
	if err := sb.Index(placeholder); err != nil {
		return err
	}
	if err := sb.Close(); err != nil {
		return err
	}
	names, err := filepath.Glob(filepath.Join(b.dir, "*.zap"))
	if err != nil {
		return err
	}
	if len(names) != 1 {
		return fmt.Errorf("bleve's builder wrote %d segments, not one", len(names))
	}
	return os.Rename(merged, names[0])
}
