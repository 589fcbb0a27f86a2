package bleveindex

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/collector"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
	bolterrors "go.etcd.io/bbolt/errors"

	"lore/index"
	"lore/index/fresh"
	"lore/mdstore/entry"
)

// Scorch is one bleve scorch index on disk, opened for reading or writing.
// It implements index.Index. bleve's scorch lets one process open an index
// for writing and blocks every other opener meanwhile; Open therefore
// always takes a timeout.
type Scorch struct {
	s     bindex.Index
	queue *bindex.AnalysisQueue
	path  string
	// failed hears the errors scorch meets persisting in the background
	// (writers only).
	failed chan error
}

// A writer's batches return once they can be searched; scorch persists
// them in the background and reports how through a callback on the batch,
// or, when persisting fails (it then retries), through the error callback
// registered here, which routes the error to the writer by its path.
const asyncErrors = "lore"

var writers = struct {
	sync.Mutex
	failed map[string]chan error
}{failed: map[string]chan error{}}

func init() {
	scorch.RegistryAsyncErrorCallbacks[asyncErrors] = func(err error, path string) {
		writers.Lock()
		ch := writers.failed[path]
		writers.Unlock()
		if ch != nil {
			select {
			case ch <- err:
			default:
			}
		}
	}
}

// guard makes a panic of bleve's an error: bolt and zap panic on bytes
// that are not what they expect (a damaged root.bolt), and fault on a
// file truncated under their mapping, which guard makes a panic too
// (debug.SetPanicOnFault) for as long as the call lasts. lore-index must
// answer — the search is then answered by scanning and the index rebuilt
// — rather than crash with a trace on lore's stderr. Every method that
// calls into bleve starts with defer guard(&err)(). (A panic in scorch's
// own goroutines, which only a writer runs, cannot be recovered: a
// generation is checked against its seal before it is opened for
// writing.)
func guard(err *error) func() {
	old := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(old)
		if p := recover(); p != nil {
			*err = fmt.Errorf("bleve failed: %v", p)
		}
	}
}

// openScorch opens (writable: creating) the scorch index in dir, waiting
// at most timeout for another process's lock.
func openScorch(dir string, writable bool, timeout time.Duration) (x *Scorch, err error) {
	// A panic while opening leaves the half-open index as it is: its
	// mappings and file lock go with the process, which lives for one
	// request.
	defer guard(&err)()
	if timeout <= 0 {
		timeout = time.Millisecond
	}
	cfg := map[string]interface{}{
		"path":         dir,
		"read_only":    !writable,
		"bolt_timeout": timeout.String(),
	}
	if writable {
		cfg["unsafe_batch"] = true
		cfg["asyncErrorCallbackName"] = asyncErrors
	}
	workers := 1
	if writable {
		workers = runtime.GOMAXPROCS(0)
	}
	queue := bindex.NewAnalysisQueue(workers)
	s, err := scorch.NewScorch(scorch.Name, cfg, queue)
	if err == nil {
		err = s.Open()
	}
	if err != nil {
		queue.Close()
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, ErrBusy
		}
		return nil, err
	}
	x = &Scorch{s: s, queue: queue, path: dir}
	if writable {
		x.failed = make(chan error, 1)
		writers.Lock()
		writers.failed[dir] = x.failed
		writers.Unlock()
	}
	return x, nil
}

// Close releases the index and its lock.
func (x *Scorch) Close() (err error) {
	defer guard(&err)()
	err = x.s.Close()
	x.queue.Close()
	if x.failed != nil {
		writers.Lock()
		delete(writers.failed, x.path)
		writers.Unlock()
	}
	return err
}

// Scorch is an index.Index: the conformance suite (index/indextest) holds
// it to the same rules as the Scan it stands in for.
var _ index.Index = (*Scorch)(nil)

// Index adds or replaces documents in one batch; it returns once the batch
// is on disk.
func (x *Scorch) Index(docs ...index.Doc) error {
	return x.apply(docs, nil)
}

// Remove drops documents by ID in one batch.
func (x *Scorch) Remove(ids ...string) error {
	return x.apply(nil, ids)
}

// apply writes one batch of updates and deletions and returns once it is
// on disk.
func (x *Scorch) apply(docs []index.Doc, remove []string) error {
	return x.update(docs, remove, nil, nil)
}

// update writes docs and drops the documents remove names, and returns
// once all of it is on disk. searchable, when set, runs as soon as the
// documents for which first holds (every one, when first is nil) can be
// searched: they go in a batch of their own, which also drops the old
// versions of the others, so that no search sees an entry as it was.
// The others are indexed while searchable runs, and scorch writes both
// batches to disk meanwhile.
func (x *Scorch) update(docs []index.Doc, remove []string, first func(index.Doc) bool, searchable func(*Scorch)) (err error) {
	defer guard(&err)()
	if len(docs) == 0 && len(remove) == 0 {
		if searchable != nil {
			searchable(x)
		}
		return nil
	}
	now, later := docs, []index.Doc(nil)
	if searchable != nil && first != nil {
		now = make([]index.Doc, 0, len(docs))
		for _, d := range docs {
			if first(d) {
				now = append(now, d)
			} else {
				later = append(later, d)
			}
		}
	}
	b := bindex.NewBatch()
	if err := addDocs(b, now); err != nil {
		return err
	}
	for _, id := range remove {
		b.Delete(id)
	}
	for _, d := range later {
		b.Delete(d.ID)
	}
	var pending []chan error
	batch := func(b *bindex.Batch) error {
		persisted := make(chan error, 1)
		b.SetPersistedCallback(func(err error) { persisted <- err })
		if err := x.s.Batch(b); err != nil {
			return err
		}
		pending = append(pending, persisted)
		return nil
	}
	trace("first batch built: %d documents, %d to follow", len(now), len(later))
	if err := batch(b); err != nil {
		return err
	}
	if searchable != nil {
		trace("first batch searchable")
		searchable(x)
	}
	if len(later) > 0 {
		b := bindex.NewBatch()
		if err := addDocs(b, later); err != nil {
			return err
		}
		if err := batch(b); err != nil {
			return err
		}
		trace("second batch searchable")
	}
	for _, persisted := range pending {
		select {
		case err := <-persisted:
			if err != nil {
				return err
			}
		case err := <-x.failed:
			return err
		}
	}
	return nil
}

// addDocs adds (or replaces) docs in b.
func addDocs(b *bindex.Batch, docs []index.Doc) error {
	for _, d := range docs {
		doc, err := buildDocument(d)
		if err != nil {
			return fmt.Errorf("index %s: %w", d.ID, err)
		}
		b.Update(doc)
	}
	return nil
}

// Every update writes one segment, and each one slows every search down
// (a fuzzy query walks every segment's dictionary; at 100k entries each
// extra segment cost ~5 ms). Past maxSegments, the small segments are
// merged in tiers of at most segmentsPerTier, each tier ten times the
// last (bleve's tiered merge plan), and no segment of more than a quarter
// of the index takes part: an update never rewrites the whole index, and
// a segment is rewritten once per tier it climbs.
const (
	maxSegments     = 4
	segmentsPerTier = 4
)

// compact merges the index's small segments when there are more than
// maxSegments.
func (x *Scorch) compact() (err error) {
	defer guard(&err)()
	s, ok := x.s.(*scorch.Scorch)
	if !ok {
		return nil
	}
	n, _ := s.StatsMap()["num_root_filesegments"].(uint64)
	if n <= maxSegments {
		return nil
	}
	docs, err := x.DocCount()
	if err != nil {
		return err
	}
	opts := mergeplan.DefaultMergePlanOptions
	opts.MaxSegmentSize = max(int64(docs)/2, 1000) // eligible: under a quarter of the index
	opts.MaxSegmentsPerTier = segmentsPerTier
	opts.SegmentsPerMergeTask = segmentsPerTier
	opts.FloorSegmentSize = 100
	return s.ForceMerge(context.Background(), &opts)
}

// Clear drops every document.
func (x *Scorch) Clear() error {
	r, err := x.s.Reader()
	if err != nil {
		return err
	}
	ids, err := allIDs(r)
	r.Close()
	if err != nil {
		return err
	}
	return x.Remove(ids...)
}

// DocCount is how many documents the index holds.
func (x *Scorch) DocCount() (n uint64, err error) {
	defer guard(&err)()
	r, err := x.s.Reader()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	return r.DocCount()
}

func allIDs(r bindex.IndexReader) ([]string, error) {
	it, err := r.DocIDReaderAll()
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var ids []string
	for {
		id, err := it.Next()
		if err != nil {
			return nil, err
		}
		if id == nil {
			return ids, nil
		}
		ext, err := r.ExternalID(id)
		if err != nil {
			return nil, err
		}
		ids = append(ids, ext)
	}
}

// sealed is what the opened index holds, as a seal records it: its
// documents, and the segments of its snapshot with their live documents.
func (x *Scorch) sealed() (docs uint64, segs []fresh.SealedSegment, err error) {
	defer guard(&err)()
	r, err := x.s.Reader()
	if err != nil {
		return 0, nil, err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return 0, nil, fmt.Errorf("bleve's reader is a %T, not a scorch snapshot", r)
	}
	for _, ss := range snap.Segments() {
		seg, ok := ss.Segment().(interface{ Path() string })
		if !ok {
			return 0, nil, fmt.Errorf("a segment of the index is not a file")
		}
		segs = append(segs, fresh.SealedSegment{Name: filepath.Base(seg.Path()), Docs: ss.Count()})
	}
	docs, err = r.DocCount()
	return docs, segs, err
}

// bleve's query package wants a mapping to find analyzers; lore builds
// every query from analyzed terms, so an empty one serves.
var queryMapping = mapping.NewIndexMapping()

// Search answers q with bleve's ranking (tf-idf) over queries built by the
// rules in package index: every query word may match a title, tag or
// content, exactly or by its stem, or a typo within its fuzziness; an
// entry must match one of the query's rare words when it has any, and
// more of them rank higher; filters restrict without scoring.
func (x *Scorch) Search(q index.Query) (res index.Result, err error) {
	defer guard(&err)()
	r, err := x.s.Reader()
	if err != nil {
		return index.Result{}, err
	}
	defer r.Close()
	terms := index.QueryTokens(q.Text)
	res, err = x.search(r, q, terms)
	if err != nil || res.Total > 0 || len(terms) == 0 || q.Strict {
		return res, err // a strict search wants no suggestion
	}
	res.Suggestion = index.Suggest(q.Text, vocabulary(r))
	return res, nil
}

func (x *Scorch) search(r bindex.IndexReader, q index.Query, terms []string) (index.Result, error) {
	ctx := context.WithValue(context.Background(), search.GetScoringModelCallbackKey,
		search.GetScoringModelCallbackFn(func() string { return bindex.DefaultScoringModel }))
	if len(terms) == 0 {
		if q.Strict {
			return index.Result{}, nil
		}
		// Ties keep index order: sorting by document ID would look up the
		// ID of every hit.
		sort := search.SortOrder{&search.SortField{Field: fieldCreated, Desc: true, Missing: search.SortFieldMissingLast}, &search.SortDocID{}}
		return x.collect(ctx, r, q, terms, query.NewMatchAllQuery(), sort)
	}
	ws, err := queryWords(ctx, r, q.Text)
	if err != nil {
		return index.Result{}, err
	}
	// The rare words, and the id: an entry must match one of them when
	// there are any; the common words add to its score.
	rare, common := index.SplitRare(ws)
	var must, should []query.Query
	for _, w := range rare {
		wq, err := wordQuery(r, w, 1)
		if err != nil {
			return index.Result{}, err
		}
		must = append(must, wq)
	}
	for _, w := range common {
		// bleve multiplies the common words' score by the share of them
		// matched; this makes it the share of all the query's words.
		wq, err := wordQuery(r, w, float64(len(common))/float64(len(ws)))
		if err != nil {
			return index.Result{}, err
		}
		should = append(should, wq)
	}
	if id := strings.TrimSpace(q.Text); !strings.ContainsAny(id, " \t\n") {
		if len(must) > 0 || q.Strict {
			must = append(must, term(fieldEntryID, id, boostID))
		} else {
			should = append(should, term(fieldEntryID, id, boostID))
		}
	}
	sort := search.SortOrder{&search.SortScore{Desc: true}}
	var main query.Query
	switch {
	case len(must) > 0 && len(should) > 0:
		main = query.NewBooleanQuery([]query.Query{query.NewDisjunctionQuery(must)}, should, nil)
	case len(must) > 0:
		main = query.NewDisjunctionQuery(must)
	case q.Strict:
		return index.Result{}, nil
	default:
		main = query.NewDisjunctionQuery(should)
	}
	res, err := x.collect(ctx, r, q, terms, main, sort)
	if err != nil || res.Total > 0 || q.Strict || len(rare) == 0 || len(common) == 0 {
		return res, err
	}
	// The rare words found nothing: the common ones answer alone.
	return x.collect(ctx, r, q, terms, query.NewDisjunctionQuery(should), sort)
}

// queryWords are the words of text and how to look for them
// (index.QueryWords), with the counts of the entries holding them read
// from the index's dictionaries: one lookup per word and segment.
func queryWords(ctx context.Context, r bindex.IndexReader, text string) ([]index.QueryWord, error) {
	n, err := r.DocCount()
	if err != nil {
		return nil, err
	}
	var ferr error
	ws := index.QueryWords(text, int(n), func(t string, stem bool) int {
		field := fieldContent
		if stem {
			field = fieldStems
		}
		tfr, err := r.TermFieldReader(ctx, []byte(t), field, false, false, false)
		if err != nil {
			ferr = err
			return 0
		}
		defer tfr.Close()
		return int(tfr.Count())
	})
	return ws, ferr
}

// collect runs main, restricted by q's filters, and makes its hits. With
// LimitPerKind it runs once per kind: bleve reads the id of every hit it
// returns (~25 µs each), and taking every hit to keep the best of each
// kind read 1,371 ids for a task at 10k entries, where the kinds' best
// are 400 (lore-index answered in 51 ms, and in 45 ms so).
func (x *Scorch) collect(ctx context.Context, r bindex.IndexReader, q index.Query, terms []string, main query.Query, sort search.SortOrder) (index.Result, error) {
	if q.LimitPerKind && q.Limit > 0 {
		if res, ok, err := x.collectPerKind(ctx, r, q, terms, main, sort); ok || err != nil {
			return res, err
		}
		kinds := q.Kinds
		if len(kinds) == 0 {
			kinds = entry.Kinds
		}
		var all index.Result
		for _, k := range kinds {
			one := q
			one.Kinds, one.LimitPerKind = []entry.Kind{k}, false
			res, err := x.collect(ctx, r, one, terms, main, sort)
			if err != nil {
				return index.Result{}, err
			}
			all.Total += res.Total
			all.Hits = append(all.Hits, res.Hits...)
		}
		slices.SortStableFunc(all.Hits, func(a, b index.Hit) int { return cmp.Compare(b.Score, a.Score) })
		return all, nil
	}
	searcher, err := filteredSearcher(ctx, r, main, q)
	if err != nil {
		return index.Result{}, err
	}
	defer searcher.Close()
	size := q.Limit
	if size <= 0 {
		n, err := r.DocCount()
		if err != nil {
			return index.Result{}, err
		}
		size = int(n) + 1
	}
	coll := collector.NewTopNCollector(size, 0, sort)
	if err := coll.Collect(ctx, searcher, r); err != nil {
		return index.Result{}, err
	}
	res := index.Result{Total: int(coll.Total())}
	for _, m := range coll.Results() {
		h, err := makeHit(r, q, terms, m.ID, m.Score)
		if err != nil {
			return index.Result{}, err
		}
		res.Hits = append(res.Hits, h)
	}
	return res, nil
}

// filteredSearcher is main's searcher, restricted by q's filters.
func filteredSearcher(ctx context.Context, r bindex.IndexReader, main query.Query, q index.Query) (search.Searcher, error) {
	// The learnings q does not ask for are left out by their status, which
	// only the few that are not shown carry.
	var hidden []query.Query
	if statuses, shown := q.HiddenStatuses(); shown {
		for _, st := range statuses {
			hidden = append(hidden, term(fieldStatus, st, 1))
		}
	}
	if filter := filterQuery(q); filter != nil || len(hidden) > 0 {
		bq := query.NewBooleanQuery([]query.Query{main}, nil, hidden)
		if filter != nil {
			bq.AddFilter(filter)
		}
		main = bq
	}
	return main.Searcher(ctx, r, queryMapping, search.SearcherOptions{})
}

// makeHit is the hit for the document of external id, which scored
// score: bare, or with its stored entry and a snippet.
func makeHit(r bindex.IndexReader, q index.Query, terms []string, id string, score float64) (index.Hit, error) {
	if q.Bare {
		path, memory, _ := strings.Cut(id, "#")
		return index.Hit{Doc: index.Doc{ID: id, Path: path, EntryID: memory, Kind: entry.KindOf(path)}, Score: score}, nil
	}
	d, err := storedDocument(r, id)
	if err != nil {
		return index.Hit{}, err
	}
	text := d.Content
	if text == "" {
		text = d.Title
	}
	return index.Hit{Doc: d, Score: score, Snippet: index.Snippet(text, terms, index.SnippetWidth)}, nil
}

// collectPerKind is collect for LimitPerKind in one pass over main's
// matches, keeping the best q.Limit of each kind (ties to the earlier
// match, as bleve's collector breaks them), where a search per kind
// would walk every posting of main once per kind: prime's query for a
// task at 100k entries took 87 ms so, and 31 ms in one pass. A match's kind
// is looked up in a table of every document's kind (kindTable); ok is
// false when the index holds a document without one, and the caller
// searches kind by kind.
func (x *Scorch) collectPerKind(ctx context.Context, r bindex.IndexReader, q index.Query, terms []string, main query.Query, sort search.SortOrder) (res index.Result, ok bool, err error) {
	if len(sort) != 1 || !sort[0].RequiresScoring() {
		return index.Result{}, false, nil // only the score's order is kept here
	}
	wanted := q.Kinds
	if len(wanted) == 0 {
		wanted = entry.Kinds
	}
	kindOf, ok, err := kindTable(ctx, r)
	if !ok || err != nil {
		return index.Result{}, false, err
	}
	rest := q
	rest.Kinds = nil // a match's kind is looked up instead
	searcher, err := filteredSearcher(ctx, r, main, rest)
	if err != nil {
		return index.Result{}, false, err
	}
	defer searcher.Close()
	sctx := &search.SearchContext{
		DocumentMatchPool: search.NewDocumentMatchPool(searcher.DocumentMatchPoolSize()+len(wanted)*q.Limit+1, 0),
		IndexReader:       r,
	}
	best := make(map[entry.Kind]*matchHeap, len(wanted))
	for _, k := range wanted {
		best[k] = &matchHeap{}
	}
	var hitNumber uint64
	for {
		m, err := searcher.Next(sctx)
		if err != nil {
			return index.Result{}, false, err
		}
		if m == nil {
			break
		}
		h := best[kindOf(m.IndexInternalID.Value())]
		if h == nil {
			sctx.DocumentMatchPool.Put(m)
			continue
		}
		hitNumber++
		m.HitNumber = hitNumber
		res.Total++
		switch {
		case len(*h) < q.Limit:
			heap.Push(h, m)
		case (*h)[0].Score < m.Score:
			sctx.DocumentMatchPool.Put((*h)[0])
			(*h)[0] = m
			heap.Fix(h, 0)
		default:
			sctx.DocumentMatchPool.Put(m)
		}
	}
	// Kind after kind, each best first; then best first, ties in the
	// kinds' order.
	for _, k := range wanted {
		kept := *best[k]
		slices.SortFunc(kept, search.CompareScoreDescending)
		for _, m := range kept {
			id, err := r.ExternalID(m.IndexInternalID)
			if err != nil {
				return index.Result{}, false, err
			}
			h, err := makeHit(r, q, terms, id, m.Score)
			if err != nil {
				return index.Result{}, false, err
			}
			res.Hits = append(res.Hits, h)
		}
	}
	slices.SortStableFunc(res.Hits, func(a, b index.Hit) int { return cmp.Compare(b.Score, a.Score) })
	return res, true, nil
}

// matchHeap holds a kind's best matches with the worst on top: the
// lowest score, and among equal scores the latest match.
type matchHeap []*search.DocumentMatch

func (h matchHeap) Len() int           { return len(h) }
func (h matchHeap) Less(i, j int) bool { return search.CompareScoreDescending(h[i], h[j]) > 0 }
func (h matchHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *matchHeap) Push(x any)        { *h = append(*h, x.(*search.DocumentMatch)) }
func (h *matchHeap) Pop() any {
	old := *h
	m := old[len(old)-1]
	*h = old[:len(old)-1]
	return m
}

// kindTable says the kind of each document of r by its number: the
// postings of every kind's term but the one most documents have, whose
// documents are the rest. ok is false when the kinds' counts do not add
// up to the documents (a document without a kind, which no build makes).
func kindTable(ctx context.Context, r bindex.IndexReader) (kindOf func(uint64) entry.Kind, ok bool, err error) {
	docs, err := r.DocCount()
	if err != nil {
		return nil, false, err
	}
	readers := make([]bindex.TermFieldReader, len(entry.Kinds))
	defer func() {
		for _, tfr := range readers {
			if tfr != nil {
				tfr.Close()
			}
		}
	}()
	var sum uint64
	largest := 0
	for i, k := range entry.Kinds {
		if readers[i], err = r.TermFieldReader(ctx, []byte(k), fieldKind, false, false, false); err != nil {
			return nil, false, err
		}
		sum += readers[i].Count()
		if readers[i].Count() > readers[largest].Count() {
			largest = i
		}
	}
	if sum != docs {
		return nil, false, nil
	}
	var table []uint8 // by document number: the kind's place in mdstore.Kinds, plus one; 0 for the largest
	var tfd bindex.TermFieldDoc
	for i, tfr := range readers {
		if i == largest {
			continue
		}
		for {
			d, err := tfr.Next(&tfd)
			if err != nil {
				return nil, false, err
			}
			if d == nil {
				break
			}
			n := d.ID.Value()
			if n >= uint64(len(table)) {
				table = slices.Grow(table, int(n+1)-len(table))[:n+1]
			}
			table[n] = uint8(i + 1)
		}
	}
	return func(n uint64) entry.Kind {
		if n < uint64(len(table)) && table[n] > 0 {
			return entry.Kinds[table[n]-1]
		}
		return entry.Kinds[largest]
	}, true, nil
}

// Field weights: the content field holds the title and tag words too, so
// a title or tag word scores there like any other, and a quarter more in
// its own short field — a tie-breaker, not a trump card: with a weight of
// 3, one common word of a knowledge title outranked an entry holding most
// of the query (go run ./bench recall: R@1 0.78 at 3, 0.89 at 0.25). A
// fuzzy match counts half an exact one, in each field. The word's stem
// (index.Stem: deploying finds deployed) counts as much as the word in
// the content, and the entry holding the word itself matches both, so it
// ranks first (at half, word forms found R@1 0.90 of their entries, 0.95
// at one, since words the store holds are no longer matched fuzzily). An
// entry whose id is the whole query comes first.
const (
	boostTitle   = 0.25
	boostContent = 1.0
	fuzzyFactor  = 0.5
	stemFactor   = 1.0
	boostID      = 20.0
)

// wordQuery matches one query word, its weights times factor: exactly in
// the title, the tags or the content, and by its stem; a word that may be
// a typo (index.QueryWord.Fuzziness), which no entry holds, by its stem and
// fuzzily in each of those fields instead (fuzzyClauses).
func wordQuery(r bindex.IndexReader, w index.QueryWord, factor float64) (query.Query, error) {
	t := w.Term
	var clauses []query.Query
	if w.Fuzziness == 0 {
		clauses = append(clauses, term(fieldTitle, t, factor*boostTitle), term(fieldTags, t, factor*boostTitle), term(fieldContent, t, factor*boostContent))
	}
	if stem := index.Stem(t); stem != "" {
		// Another form of the word: an entry holding the word itself
		// matches its stem too, and so ranks above one holding another
		// form.
		clauses = append(clauses, term(fieldStems, stem, factor*boostContent*stemFactor))
	}
	if w.Fuzziness > 0 {
		fuzzy, err := fuzzyClauses(r, w, factor)
		if err != nil {
			return nil, err
		}
		clauses = append(clauses, fuzzy...)
	}
	return query.NewDisjunctionQuery(clauses), nil
}

// fuzzyClauses match a possible typo fuzzily in the content, the title
// and the tags, each with its field's weight, as bleve's FuzzyQuery does
// (the words of the field within the typo's fuzziness, each weighed by
// 1/(edits+1)) — but with one Levenshtein automaton instead of three:
// building it and walking a dictionary with it is the costly part of a
// fuzzy query (at 100k entries, 3.8 ms for one field, 7.5 ms for three),
// and the content holds the title's and the tags' words too, so its
// words near the typo are all there are. A field that holds none of them
// keeps its clause, which matches nothing, as bleve's would.
func fuzzyClauses(r bindex.IndexReader, w index.QueryWord, factor float64) ([]query.Query, error) {
	fr, ok := r.(bindex.IndexReaderFuzzy)
	cr, ok2 := r.(bindex.IndexReaderContains)
	if !ok || !ok2 {
		return nil, fmt.Errorf("bleve's reader is a %T, which has no fuzzy dictionary", r)
	}
	type candidate struct {
		term  string
		edits uint8
	}
	var near []candidate
	dict, err := fr.FieldDictFuzzy(fieldContent, w.Term, w.Fuzziness, "")
	if err != nil {
		return nil, err
	}
	for {
		e, err := dict.Next()
		if err != nil {
			dict.Close()
			return nil, err
		}
		if e == nil {
			break
		}
		near = append(near, candidate{e.Term, e.EditDistance})
	}
	if err := dict.Close(); err != nil {
		return nil, err
	}
	var out []query.Query
	for _, f := range []struct {
		field string
		boost float64
	}{{fieldContent, boostContent}, {fieldTitle, boostTitle}, {fieldTags, boostTitle}} {
		var holds bindex.FieldDictContains
		if f.field != fieldContent {
			if holds, err = cr.FieldDictContains(f.field); err != nil {
				return nil, err
			}
		}
		var alts []query.Query
		for _, c := range near {
			if holds != nil {
				if ok, err := holds.Contains([]byte(c.term)); err != nil {
					return nil, err
				} else if !ok {
					continue
				}
			}
			alts = append(alts, term(f.field, c.term, factor*f.boost*fuzzyFactor/float64(c.edits+1)))
		}
		switch len(alts) {
		case 0:
			out = append(out, term(f.field, w.Term, factor*f.boost*fuzzyFactor)) // held by no entry
		default:
			out = append(out, query.NewDisjunctionQuery(alts))
		}
	}
	return out, nil
}

func term(field, t string, boost float64) *query.TermQuery {
	tq := query.NewTermQuery(t)
	tq.SetField(field)
	tq.SetBoost(boost)
	return tq
}

// filterQuery is the conjunction of q's filters, nil when it has none.
func filterQuery(q index.Query) query.Query {
	var must []query.Query
	anyOf := func(field string, values []string, fold bool) {
		if len(values) == 0 {
			return
		}
		var alts []query.Query
		for _, v := range values {
			if fold {
				v = strings.ToLower(v)
			}
			tq := query.NewTermQuery(v)
			tq.SetField(field)
			alts = append(alts, tq)
		}
		must = append(must, query.NewDisjunctionQuery(alts))
	}
	kinds := make([]string, 0, len(q.Kinds))
	for _, k := range q.Kinds {
		kinds = append(kinds, string(k))
	}
	anyOf(fieldKind, kinds, true)
	anyOf(fieldType, q.Types, true)
	anyOf(fieldTag, q.Tags, true)
	anyOf(fieldType, q.Categories, true)
	if q.Task != "" {
		anyOf(fieldTask, []string{q.Task}, false)
	}
	if q.Run != "" {
		anyOf(fieldRun, []string{q.Run}, false)
	}
	if hidden, shown := q.HiddenStatuses(); !shown {
		// Only learnings that are not shown: one of the statuses asked.
		var asked []string
		for _, st := range index.Statuses[1:] {
			if !slices.Contains(hidden, st) {
				asked = append(asked, st)
			}
		}
		if len(asked) == 0 {
			asked = []string{"\x00"} // none of the statuses there are: nothing
		}
		anyOf(fieldStatus, asked, false)
	}
	if !q.Since.IsZero() {
		from, inclusive := createdKey(q.Since), true
		if !q.Since.Equal(q.Since.Truncate(time.Second)) { // the key is to the second
			from = createdKey(q.Since.Truncate(time.Second).Add(time.Second))
		}
		rq := query.NewTermRangeInclusiveQuery(from, "", &inclusive, nil)
		rq.SetField(fieldCreated)
		must = append(must, rq)
	}
	if len(must) == 0 {
		return nil
	}
	return query.NewConjunctionQuery(must)
}

// storedDocument reads back the Doc a hit was indexed from.
func storedDocument(r bindex.IndexReader, id string) (index.Doc, error) {
	doc, err := r.Document(id)
	if err != nil {
		return index.Doc{}, err
	}
	var sd storedDoc
	found := false
	if doc != nil {
		doc.VisitFields(func(f bindex.Field) {
			if f.Name() == fieldStored && !found {
				found = json.Unmarshal(f.Value(), &sd) == nil
			}
		})
	}
	if !found {
		return index.Doc{}, fmt.Errorf("search index: document %s has no stored entry (rebuild with lore index rebuild)", id)
	}
	d := sd.Doc
	d.ID = sd.ID
	return d, nil
}

// vocabulary lists the terms of the text fields with their document
// frequencies, for "did you mean".
func vocabulary(r bindex.IndexReader) func(yield func(string, int) bool) {
	return func(yield func(string, int) bool) {
		for _, field := range []string{fieldTitle, fieldTags, fieldContent} {
			dict, err := r.FieldDict(field)
			if err != nil {
				continue
			}
			for {
				e, err := dict.Next()
				if err != nil || e == nil {
					break
				}
				if strings.ContainsFunc(e.Term, func(r rune) bool { return r >= '0' && r <= '9' }) {
					continue // ids and numbers make poor suggestions
				}
				if !yield(e.Term, int(e.Count)) {
					dict.Close()
					return
				}
			}
			dict.Close()
		}
	}
}
