package bleveindex

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/search"
	bindex "github.com/blevesearch/bleve_index_api"

	"lore/index"
	"lore/internal/words"
	"lore/mdstore/entry"
)

// rank answers q's text by the one scoring rule (index.Scorer), which
// Scan follows too: bleve finds the documents holding a query word's
// clauses — its postings, with each term's frequency and its field's norm,
// and for a possible typo the near words of its dictionary — and the
// scorer weighs them. Documents are walked in the order of their
// numbers, every clause's postings side by side: a rare word's clauses
// find documents, a common word's only add to a document found
// (TermFieldReader.Advance). When the rare words find nothing and q is not
// strict, the common words answer alone (Scorer.CommonOnly). unsearchable
// entries of the store are not in r yet (Scorch.unsearchable).
func rank(ctx context.Context, r bindex.IndexReader, q index.Query, terms []string, unsearchable int) (index.Result, error) {
	docs, err := r.DocCount()
	if err != nil {
		return index.Result{}, err
	}
	n := int(docs) + unsearchable
	ws, err := queryWords(ctx, r, q.Text, n)
	if err != nil {
		return index.Result{}, err
	}
	sc := index.NewScorer(ws, n, q.Strict)
	res, err := rankBy(ctx, r, q, terms, sc)
	if fallback := sc.CommonOnly(); err == nil && res.Total == 0 && fallback != nil {
		return rankBy(ctx, r, q, terms, fallback)
	}
	return res, err
}

// rankBy is rank with the scorer sc.
func rankBy(ctx context.Context, r bindex.IndexReader, q index.Query, terms []string, sc *index.Scorer) (index.Result, error) {
	lead, follow, err := openClauses(ctx, r, sc, q.Text)
	defer func() {
		for _, c := range slices.Concat(lead, follow) {
			c.tfr.Close()
		}
	}()
	if err != nil {
		return index.Result{}, err
	}
	pass, err := newFilter(ctx, r, q)
	if err != nil {
		return index.Result{}, err
	}
	defer pass.close()
	var kindOf func(uint64) entry.Kind
	if q.LimitPerKind && q.Limit > 0 {
		table, ok, err := kindTable(ctx, r)
		if err != nil {
			return index.Result{}, err
		}
		if ok {
			kindOf = table
		}
	}
	kept := map[entry.Kind]*keeper{}
	keeperOf := func(k entry.Kind) *keeper {
		if kept[k] == nil {
			kept[k] = &keeper{limit: q.Limit}
		}
		return kept[k]
	}
	ms := make([]index.WordMatch, len(sc.Words()))
	total := 0
	for {
		num, ok := uint64(0), false
		for _, c := range lead {
			if c.at != nil && (!ok || c.num < num) {
				num, ok = c.num, true
			}
		}
		if !ok {
			break
		}
		clear(ms)
		id := false
		for _, c := range lead {
			if c.at != nil && c.num == num {
				id = c.add(ms) || id
				if err := c.next(); err != nil {
					return index.Result{}, err
				}
			}
		}
		for _, c := range follow {
			if err := c.catchUp(num); err != nil {
				return index.Result{}, err
			}
			if c.at != nil && c.num == num {
				c.add(ms)
			}
		}
		score := sc.Score(ms, id)
		if score <= 0 {
			continue
		}
		if ok, err := pass.passes(num); err != nil || !ok {
			if err != nil {
				return index.Result{}, err
			}
			continue
		}
		total++
		h := ranked{num: num, score: score}
		switch {
		case kindOf != nil:
			h.kind = kindOf(num)
		case q.LimitPerKind && q.Limit > 0: // no kind table: the kind is the path's
			if h.id, err = r.ExternalID(bindex.NewIndexInternalID(nil, num)); err != nil {
				return index.Result{}, err
			}
			h.kind = entry.KindOf(strings.SplitN(h.id, "#", 2)[0])
		}
		keeperOf(h.kind).add(h)
	}
	dv, err := r.DocValueReader([]string{fieldCreated})
	if err != nil {
		return index.Result{}, err
	}
	var best []ranked
	for _, k := range kept {
		hits, err := k.best(r, dv)
		if err != nil {
			return index.Result{}, err
		}
		best = append(best, hits...)
	}
	slices.SortFunc(best, compareRanked)
	res := index.Result{Total: total}
	for _, h := range best {
		hit, err := makeHit(r, q, terms, h.id, h.score)
		if err != nil {
			return index.Result{}, err
		}
		res.Hits = append(res.Hits, hit)
	}
	return res, nil
}

// ranked is a document that scored: its number, score and kind, and —
// read only for those that may be shown — its id and creation time.
type ranked struct {
	num     uint64
	score   float64
	kind    entry.Kind
	id      string
	created string // createdKey; "" for none
}

// compareRanked orders hits as Scan does: best first, then newest first,
// then by id.
func compareRanked(a, b ranked) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	if c := cmp.Compare(b.created, a.created); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// keeper keeps the best hits of a kind: limit of them (0: all), and those
// as good as the last of them, whose order only their times and ids tell.
type keeper struct {
	limit int
	hits  []ranked
	floor float64 // once pruned, the limit-th best score: a worse hit is not kept
}

func (k *keeper) add(h ranked) {
	if h.score < k.floor {
		return
	}
	k.hits = append(k.hits, h)
	if k.limit > 0 && len(k.hits) >= 2*k.limit+64 {
		k.prune()
	}
}

// prune drops the hits worse than the limit-th best.
func (k *keeper) prune() {
	if k.limit <= 0 || len(k.hits) <= k.limit {
		return
	}
	slices.SortFunc(k.hits, func(a, b ranked) int { return cmp.Compare(b.score, a.score) })
	last := k.hits[k.limit-1].score
	k.floor = last
	end := k.limit
	for end < len(k.hits) && k.hits[end].score == last {
		end++
	}
	k.hits = k.hits[:end]
}

// best is the kind's best hits in order, their ids and times read.
func (k *keeper) best(r bindex.IndexReader, dv bindex.DocValueReader) ([]ranked, error) {
	k.prune()
	for i := range k.hits {
		h := &k.hits[i]
		id := bindex.NewIndexInternalID(nil, h.num)
		if h.id == "" {
			var err error
			if h.id, err = r.ExternalID(id); err != nil {
				return nil, err
			}
		}
		err := dv.VisitDocValues(id, func(field string, term []byte) {
			if field == fieldCreated {
				h.created = string(term)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(k.hits, compareRanked)
	if k.limit > 0 && len(k.hits) > k.limit {
		k.hits = k.hits[:k.limit]
	}
	return k.hits, nil
}

// A clause is the postings of one term in one field, for one query word
// (see index.Field), read in the order of the documents' numbers.
type clause struct {
	word   int // the word's place in the scorer's; -1 for the id
	kind   clauseKind
	field  index.Field
	edits  int // a near word's edits, and its index.IDF2
	rarity float64
	tfr    bindex.TermFieldReader
	at     *bindex.TermFieldDoc // where the postings stand; nil at their end
	num    uint64               // at's number
	buf    bindex.TermFieldDoc
}

type clauseKind uint8

const (
	exactClause clauseKind = iota
	stemClause
	nearClause
	idClause
)

func (c *clause) next() error {
	at, err := c.tfr.Next(&c.buf)
	c.set(at)
	return err
}

// catchUp moves the clause to document num, or the first after it,
// skipping the postings between. (Reading them one by one instead, for a
// clause with up to 3 or 10 times the lead clauses' postings, made a
// 14-word query at 100k entries 20-40% slower.)
func (c *clause) catchUp(num uint64) error {
	if c.at == nil || c.num >= num {
		return nil
	}
	at, err := c.tfr.Advance(bindex.NewIndexInternalID(nil, num), &c.buf)
	c.set(at)
	return err
}

func (c *clause) set(at *bindex.TermFieldDoc) {
	c.at = at
	if at != nil {
		c.num = at.ID.Value()
	}
}

// add records the clause's match of the document it stands at in ms; it
// says whether that was the id's.
func (c *clause) add(ms []index.WordMatch) bool {
	switch c.kind {
	case idClause:
		return true
	case exactClause:
		ms[c.word].Exact(c.field, c.at.Freq, c.at.Norm)
	case stemClause:
		ms[c.word].Stem(c.at.Freq, c.at.Norm)
	case nearClause:
		ms[c.word].Near(c.field, c.at.Freq, c.at.Norm, c.edits, c.rarity)
	}
	return false
}

// textFields are the index's fields of index.Field.
var textFields = [...]string{index.FieldTitle: fieldTitle, index.FieldTags: fieldTags, index.FieldContent: fieldContent}

// openClauses opens the postings of every clause of sc's words, and of
// the id when text may be one, each at its first document: those that
// find documents (lead) and those that only add to them (follow).
func openClauses(ctx context.Context, r bindex.IndexReader, sc *index.Scorer, text string) (lead, follow []*clause, err error) {
	open := func(c *clause, field, term string) (bool, error) {
		tfr, err := r.TermFieldReader(ctx, []byte(term), field, true, true, false)
		if err != nil {
			return false, err
		}
		if tfr.Count() == 0 {
			tfr.Close()
			return false, nil
		}
		c.tfr = tfr
		if err := c.next(); err != nil {
			tfr.Close()
			return false, err
		}
		if c.word < 0 || sc.Leads(c.word) {
			lead = append(lead, c)
		} else {
			follow = append(follow, c)
		}
		return true, nil
	}
	for i, w := range sc.Words() {
		if w.Fuzziness == 0 {
			for f, field := range textFields {
				if _, err := open(&clause{word: i, kind: exactClause, field: index.Field(f)}, field, w.Term); err != nil {
					return lead, follow, err
				}
			}
		}
		if w.Stem != "" {
			if _, err := open(&clause{word: i, kind: stemClause}, fieldStems, w.Stem); err != nil {
				return lead, follow, err
			}
		}
		if w.Fuzziness > 0 {
			near, err := nearWords(ctx, r, w)
			if err != nil {
				return lead, follow, err
			}
			for _, nw := range near {
				for f, field := range textFields {
					if _, err := open(&clause{word: i, kind: nearClause, field: index.Field(f), edits: nw.edits, rarity: index.IDF2(nw.docs, sc.Entries())}, field, nw.term); err != nil {
						return lead, follow, err
					}
				}
			}
		}
	}
	if id := index.QueryID(text); id != "" {
		if _, err := open(&clause{word: -1, kind: idClause}, fieldEntryID, id); err != nil {
			return lead, follow, err
		}
	}
	return lead, follow, nil
}

// nearWord is a word of the index within a possible typo's fuzziness:
// its edits, and how many entries hold it.
type nearWord struct {
	term        string
	edits, docs int
}

// nearWords are the words of the content's dictionary (which holds the
// title's and the tags' words too) within w's fuzziness, as
// words.EditDistance counts (bleve's automaton counts alike), that some
// entry holds: a dictionary keeps the words of deleted entries until its
// segment is merged away.
func nearWords(ctx context.Context, r bindex.IndexReader, w index.QueryWord) ([]nearWord, error) {
	fr, ok := r.(bindex.IndexReaderFuzzy)
	if !ok {
		return nil, fmt.Errorf("bleve's reader is a %T, which has no fuzzy dictionary", r)
	}
	dict, err := fr.FieldDictFuzzy(fieldContent, w.Term, w.Fuzziness, "")
	if err != nil {
		return nil, err
	}
	var terms []string
	for {
		e, err := dict.Next()
		if err != nil {
			dict.Close()
			return nil, err
		}
		if e == nil {
			break
		}
		terms = append(terms, e.Term)
	}
	if err := dict.Close(); err != nil {
		return nil, err
	}
	var out []nearWord
	for _, t := range terms {
		edits, ok := words.EditDistance(w.Term, t, w.Fuzziness)
		if !ok || edits == 0 {
			continue
		}
		tfr, err := r.TermFieldReader(ctx, []byte(t), fieldContent, false, false, false)
		if err != nil {
			return nil, err
		}
		docs := int(tfr.Count())
		tfr.Close()
		if docs > 0 {
			out = append(out, nearWord{term: t, edits: edits, docs: docs})
		}
	}
	return out, nil
}

// A filter says which documents pass a query's filters and show the
// learnings it asks for, walked in the order of their numbers: the
// filters' searcher advanced alongside (nil for none), and the few
// documents of the statuses not asked for (a learning that is not shown).
// A nil filter passes all.
type filter struct {
	s      search.Searcher
	sctx   *search.SearchContext
	at     *search.DocumentMatch // the first passing document not before the last asked; nil past the end
	done   bool
	hidden []uint64 // sorted
}

func newFilter(ctx context.Context, r bindex.IndexReader, q index.Query) (*filter, error) {
	f := &filter{}
	if statuses, shown := q.HiddenStatuses(); shown {
		for _, st := range statuses {
			nums, err := postings(ctx, r, fieldStatus, st)
			if err != nil {
				return nil, err
			}
			f.hidden = append(f.hidden, nums...)
		}
		slices.Sort(f.hidden)
	}
	if fq := filterQuery(q); fq != nil {
		s, err := fq.Searcher(ctx, r, queryMapping, search.SearcherOptions{})
		if err != nil {
			return nil, err
		}
		f.s = s
		f.sctx = &search.SearchContext{
			DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize()+1, 0),
			IndexReader:       r,
		}
	}
	if f.s == nil && len(f.hidden) == 0 {
		return nil, nil
	}
	return f, nil
}

// postings are the numbers of the documents whose field holds term.
func postings(ctx context.Context, r bindex.IndexReader, field, term string) ([]uint64, error) {
	tfr, err := r.TermFieldReader(ctx, []byte(term), field, false, false, false)
	if err != nil {
		return nil, err
	}
	defer tfr.Close()
	var out []uint64
	var tfd bindex.TermFieldDoc
	for {
		d, err := tfr.Next(&tfd)
		if err != nil || d == nil {
			return out, err
		}
		out = append(out, d.ID.Value())
	}
}

// passes says whether document num passes; nums come in increasing order.
func (f *filter) passes(num uint64) (bool, error) {
	if f == nil {
		return true, nil
	}
	for len(f.hidden) > 0 && f.hidden[0] < num {
		f.hidden = f.hidden[1:]
	}
	if len(f.hidden) > 0 && f.hidden[0] == num {
		return false, nil
	}
	if f.s == nil {
		return true, nil
	}
	if f.done {
		return false, nil
	}
	if f.at == nil || f.at.IndexInternalID.Value() < num {
		if f.at != nil {
			f.sctx.DocumentMatchPool.Put(f.at)
		}
		at, err := f.s.Advance(f.sctx, bindex.NewIndexInternalID(nil, num))
		if err != nil {
			return false, err
		}
		f.at, f.done = at, at == nil
		if at == nil {
			return false, nil
		}
	}
	return f.at.IndexInternalID.Value() == num, nil
}

func (f *filter) close() {
	if f != nil && f.s != nil {
		f.s.Close()
	}
}
