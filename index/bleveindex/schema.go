package bleveindex

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2/document"
	bindex "github.com/blevesearch/bleve_index_api"

	"lore/index"
	"lore/internal/words"
)

// The fields of a document. Text fields are analyzed by field.Analyze (the
// same words index.Tokens makes of a query); keyword fields hold one exact
// value each.
const (
	fieldKind    = "kind"    // keyword
	fieldType    = "type"    // keyword, lowercase: memory type, learning category
	fieldTag     = "tag"     // keyword, lowercase, one per tag: for filters
	fieldTags    = "tags"    // text: the words of the tags, for ranking
	fieldTitle   = "title"   // text
	fieldContent = "content" // text: title, tag words and content together
	fieldStems   = "stems"   // text: the English stems of the content's words (index.Stems), for word forms
	fieldEntryID = "eid"     // keyword: the entry's own id
	fieldCreated = "created" // keyword, UTC RFC 3339 (sorts as time), doc values
	fieldRun     = "run"     // keyword
	fieldTask    = "task"    // keyword
	fieldOutcome = "outcome" // keyword
	fieldStatus  = "status"  // keyword: a learning's that is not shown (index.Doc.Status)
	fieldFile    = "file"    // keyword, one per file
	fieldStored  = "_doc"    // stored only: the Doc as JSON, what a hit shows
)

const createdLayout = "2006-01-02T15:04:05Z"

var (
	textOptions    = bindex.IndexField
	keywordOptions = bindex.IndexField
	sortOptions    = bindex.IndexField | bindex.DocValues
	storedOptions  = bindex.StoreField
)

// storedDoc is index.Doc with every field serialized (Doc hides its ID
// from JSON output).
type storedDoc struct {
	index.Doc
	ID string `json:"_id"`
}

// buildDocument turns a Doc into bleve's document.
func buildDocument(d index.Doc) (*document.Document, error) {
	stored, err := json.Marshal(storedDoc{Doc: d, ID: d.ID})
	if err != nil {
		return nil, err
	}
	doc := document.NewDocument(d.ID)
	keyword := func(name, value string, opts bindex.FieldIndexingOptions, pos []uint64) {
		if value != "" {
			doc.AddField(&field{name: name, value: value, options: opts, arrayPositions: pos, keyword: true})
		}
	}
	text := func(name, value string) *field {
		if value == "" {
			return nil
		}
		f := &field{name: name, value: value, options: textOptions}
		doc.AddField(f)
		return f
	}
	keyword(fieldKind, string(d.Kind), keywordOptions, nil)
	keyword(fieldType, strings.ToLower(d.Type), keywordOptions, nil)
	for i, tag := range d.Tags {
		keyword(fieldTag, strings.ToLower(tag), keywordOptions, []uint64{uint64(i)})
	}
	text(fieldTags, joinWords(d.Tags))
	text(fieldTitle, d.Title)
	content := d.Title + "\n" + joinWords(d.Tags) + "\n" + d.Content
	if words := text(fieldContent, content); words != nil {
		doc.AddField(&field{name: fieldStems, value: content, options: textOptions, stemsOf: words})
	}
	keyword(fieldEntryID, d.EntryID, keywordOptions, nil)
	if !d.Created.IsZero() {
		keyword(fieldCreated, createdKey(d.Created), sortOptions, nil)
	}
	keyword(fieldRun, d.Run, keywordOptions, nil)
	keyword(fieldTask, d.Task, keywordOptions, nil)
	keyword(fieldOutcome, strings.ToLower(d.Outcome), keywordOptions, nil)
	keyword(fieldStatus, strings.ToLower(d.Status), keywordOptions, nil)
	for i, f := range d.Files {
		keyword(fieldFile, f, keywordOptions, []uint64{uint64(i)})
	}
	doc.AddField(document.NewTextFieldWithIndexingOptions(fieldStored, nil, stored, storedOptions))
	return doc, nil
}

// createdKey is how a time is indexed: UTC, to the second, which sorts as
// the time does.
func createdKey(t time.Time) string { return t.UTC().Format(createdLayout) }

func joinWords(list []string) string {
	n := 0
	for _, s := range list {
		n += len(s) + 1
	}
	b := make([]byte, 0, n)
	for _, s := range list {
		b = append(b, s...)
		b = append(b, ' ')
	}
	return string(b)
}

// field is an indexed, unstored field of a document: a keyword (its
// value is one term) or text, whose terms are the words index.Tokens
// makes of a query (runs of letters and digits, lowercased, English stop
// words dropped) — the same rule on both sides is what makes a query word
// find its entries. Analyze goes straight from the value to the term
// frequencies bleve indexes, in a few allocations: bleve's own TextField
// makes a token per word and then a map of them, and in a short-lived
// process fresh memory costs more than the work done in it.
type field struct {
	name           string
	value          string
	options        bindex.FieldIndexingOptions
	arrayPositions []uint64
	keyword        bool
	stemsOf        *field // its terms are the stems (index.Stem) of that field's terms

	length int
	freqs  bindex.TokenFrequencies
}

func (f *field) Name() string                                      { return f.name }
func (f *field) ArrayPositions() []uint64                          { return f.arrayPositions }
func (f *field) Options() bindex.FieldIndexingOptions              { return f.options }
func (f *field) Value() []byte                                     { return []byte(f.value) }
func (f *field) NumPlainTextBytes() uint64                         { return uint64(len(f.value)) }
func (f *field) EncodedFieldType() byte                            { return 't' }
func (f *field) AnalyzedLength() int                               { return f.length }
func (f *field) AnalyzedTokenFrequencies() bindex.TokenFrequencies { return f.freqs }

// Size is what bleve counts the field as in memory.
func (f *field) Size() int {
	n := 64 + len(f.name) + len(f.value) + 8*len(f.arrayPositions)
	for t, tf := range f.freqs {
		n += len(t) + tf.Size()
	}
	return n
}

func (f *field) Analyze() {
	switch {
	case f.freqs != nil: // analyzed: a stems field analyzes its words first
	case f.keyword:
		tf := &bindex.TokenFreq{Term: []byte(f.value)}
		tf.SetFrequency(1)
		f.length, f.freqs = 1, bindex.TokenFrequencies{f.value: tf}
	case f.stemsOf != nil:
		f.stemsOf.Analyze()
		f.analyzeStems(f.stemsOf.freqs)
	default:
		f.analyzeWords()
	}
}

// analyzeWords makes the field's terms of its words (index.Tokens' rule).
func (f *field) analyzeWords() {
	text := f.value
	ascii := true
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			ascii = false
			break
		}
	}
	var lower []byte // for ASCII text, the whole text lowercased: terms are slices of it
	var keys string  // and so are the map's keys
	if ascii {
		lower = []byte(text)
		for i, c := range lower {
			if 'A' <= c && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		keys = string(lower)
	}
	// One pass over the text, which costs more than the map.
	spans := make([]int32, 0, 2*(len(text)/6+1))
	words.EachTerm(text, func(start, end int) bool {
		spans = append(spans, int32(start), int32(end))
		return true
	})
	n := len(spans) / 2
	f.freqs = make(bindex.TokenFrequencies, n/2+1)
	chunk := make([]bindex.TokenFreq, 0, n/2+1)
	for i := 0; i < len(spans); i += 2 {
		start, end := int(spans[i]), int(spans[i+1])
		var key string
		var term []byte
		if ascii {
			key, term = keys[start:end], lower[start:end]
		} else {
			key = strings.ToLower(text[start:end])
			term = []byte(key)
		}
		if words.StopWords[key] {
			continue
		}
		f.length++
		tf := f.freqs[key]
		if tf == nil {
			if len(chunk) == cap(chunk) {
				chunk = make([]bindex.TokenFreq, 0, cap(chunk))
			}
			chunk = append(chunk, bindex.TokenFreq{Term: term})
			tf = &chunk[len(chunk)-1]
			f.freqs[key] = tf
		}
		tf.SetFrequency(tf.Frequency() + 1)
	}
}

// analyzeStems makes the field's terms the stems of words' terms, each
// word stemmed once however often it occurs.
func (f *field) analyzeStems(words bindex.TokenFrequencies) {
	f.freqs = make(bindex.TokenFrequencies, len(words))
	chunk := make([]bindex.TokenFreq, 0, len(words))
	for key, wf := range words {
		stem := index.Stem(key)
		if stem == "" {
			continue
		}
		n := wf.Frequency()
		f.length += n
		if tf := f.freqs[stem]; tf != nil {
			tf.SetFrequency(tf.Frequency() + n)
			continue
		}
		chunk = append(chunk, bindex.TokenFreq{Term: []byte(stem)})
		tf := &chunk[len(chunk)-1]
		tf.SetFrequency(n)
		f.freqs[stem] = tf
	}
}
