package bleveindex

import (
	"cmp"
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
	// unsearchable is how many of the store's entries are not searchable
	// yet while a search runs during update: those that cannot match it,
	// indexed after it. They count among the entries a word's rarity is
	// measured against, so that the answer is the whole index's.
	unsearchable int
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
		x.unsearchable = len(later)
		searchable(x)
		x.unsearchable = 0
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

// Search answers q by the rules of package index: a query's text by its
// one scoring rule (rank, index.Scorer), which Scan follows too; without
// text, every entry passing the filters, newest first.
func (x *Scorch) Search(q index.Query) (res index.Result, err error) {
	defer guard(&err)()
	r, err := x.s.Reader()
	if err != nil {
		return index.Result{}, err
	}
	defer r.Close()
	terms := index.QueryTerms(q.Text) // for snippets: the words a hit may hold
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
		res, err := x.collect(ctx, r, q, terms, query.NewMatchAllQuery(), sort)
		for i := range res.Hits {
			res.Hits[i].Score = 0 // no text, no relevance: as Scan says
		}
		return res, err
	}
	return rank(ctx, r, q, terms, x.unsearchable)
}

// queryWords are the words of text and how to look for them
// (index.QueryWords), with the counts of the entries holding them read
// from the index's dictionaries: one lookup per word and segment.
// n is how many entries the store holds.
func queryWords(ctx context.Context, r bindex.IndexReader, text string, n int) ([]index.QueryWord, error) {
	var ferr error
	ws := index.QueryWords(text, n, func(t string, stem bool) int {
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

// collect runs main, restricted by q's filters, and makes its hits, in
// sort's order (a query without text: newest first). With LimitPerKind
// it runs once per kind.
func (x *Scorch) collect(ctx context.Context, r bindex.IndexReader, q index.Query, terms []string, main query.Query, sort search.SortOrder) (index.Result, error) {
	if q.LimitPerKind && q.Limit > 0 {
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
	return filtered(main, q).Searcher(ctx, r, queryMapping, search.SearcherOptions{})
}

// filtered is main restricted by q's filters; main itself when q has
// none and shows every learning there is.
func filtered(main query.Query, q index.Query) query.Query {
	// The learnings q does not ask for are left out by their status, which
	// only the few that are not shown carry.
	var hidden []query.Query
	if statuses, shown := q.HiddenStatuses(); shown {
		for _, st := range statuses {
			hidden = append(hidden, term(fieldStatus, st, 1))
		}
	}
	filter := filterQuery(q)
	if filter == nil && len(hidden) == 0 {
		return main
	}
	bq := query.NewBooleanQuery([]query.Query{main}, nil, hidden)
	if filter != nil {
		bq.AddFilter(filter)
	}
	return bq
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
