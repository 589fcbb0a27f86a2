package bleveindex

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	bindex "github.com/blevesearch/bleve_index_api"

	"lore/index"
)

// FormatVersion changes whenever what is indexed, or how, changes; an index
// written with another version is rebuilt.
const FormatVersion = 3

// The fields of a document. Text fields are analyzed with textAnalyzer (the
// same words index.Tokens makes of a query); keyword fields hold one exact
// value each.
const (
	fieldKind    = "kind"    // keyword
	fieldType    = "type"    // keyword, lowercase: memory type, learning category
	fieldTag     = "tag"     // keyword, lowercase, one per tag: for filters
	fieldTags    = "tags"    // text: the words of the tags, for ranking
	fieldTitle   = "title"   // text
	fieldContent = "content" // text: title, tag words and content together (fuzzy matches look here)
	fieldEntryID = "eid"     // keyword: the entry's own id
	fieldCreated = "created" // keyword, UTC RFC 3339 (sorts as time), doc values
	fieldRun     = "run"     // keyword
	fieldTask    = "task"    // keyword
	fieldOutcome = "outcome" // keyword
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
			doc.AddField(document.NewTextFieldCustom(name, pos, []byte(value), opts, keywordAnalyzer{}))
		}
	}
	text := func(name, value string) {
		if value != "" {
			doc.AddField(document.NewTextFieldCustom(name, nil, []byte(value), textOptions, textAnalyzer{}))
		}
	}
	keyword(fieldKind, string(d.Kind), keywordOptions, nil)
	keyword(fieldType, strings.ToLower(d.Type), keywordOptions, nil)
	for i, tag := range d.Tags {
		keyword(fieldTag, strings.ToLower(tag), keywordOptions, []uint64{uint64(i)})
	}
	text(fieldTags, joinWords(d.Tags))
	text(fieldTitle, d.Title)
	text(fieldContent, d.Title+"\n"+joinWords(d.Tags)+"\n"+d.Content)
	keyword(fieldEntryID, d.EntryID, keywordOptions, nil)
	if !d.Created.IsZero() {
		keyword(fieldCreated, createdKey(d.Created), sortOptions, nil)
	}
	keyword(fieldRun, d.Run, keywordOptions, nil)
	keyword(fieldTask, d.Task, keywordOptions, nil)
	keyword(fieldOutcome, strings.ToLower(d.Outcome), keywordOptions, nil)
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

// textAnalyzer gives bleve the words index.Tokens makes of a query (runs
// of letters and digits, lowercased, English stop words dropped): the same
// rule on both sides is what makes a query word find its entries.
type textAnalyzer struct{}

func (textAnalyzer) Analyze(input []byte) analysis.TokenStream {
	var stream analysis.TokenStream
	text := string(input)
	index.Words(text, func(start, end int) bool {
		if term := strings.ToLower(text[start:end]); !index.StopWords[term] {
			stream = append(stream, &analysis.Token{
				Start: start, End: end, Term: []byte(term),
				Position: len(stream) + 1, Type: analysis.AlphaNumeric,
			})
		}
		return true
	})
	return stream
}

// keywordAnalyzer indexes a value as one term.
type keywordAnalyzer struct{}

func (keywordAnalyzer) Analyze(input []byte) analysis.TokenStream {
	return analysis.TokenStream{{Start: 0, End: len(input), Term: input, Position: 1, Type: analysis.AlphaNumeric}}
}
