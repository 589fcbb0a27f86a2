package bleveindex

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"lore/index"
	"lore/mdstore/entry"
)

// TestIndexAndScanAnswerAlikeOnRandomStores: random stores and queries
// made of what real ones hold — words in any case, identifiers dotted,
// slashed, snake_ and CamelCase, non-ASCII words, words split and joined,
// synonyms and stems kept apart, typos, question and stop words, ids,
// filters, learnings not shown — answered alike by both engines, hit for
// hit and score for score.
func TestIndexAndScanAnswerAlikeOnRandomStores(t *testing.T) {
	t.Parallel()
	vocab := []string{
		"deploy", "deploying", "deployment", "rollback", "Postgres", "postgres", "timeout", "time", "out",
		"setup", "set", "up", "checkout", "check", "source", "freshness", "orders.customer_id", "customer_id",
		"src/billing.go", "billing", "BackoffJitterFn", "jitter", "Straße", "strasse", "café", "ΣΊΣΥΦΟΣ",
		"kubernetes", "kafka", "consumer", "lag", "the", "of", "why", "does", "how", "we", "error:",
		"ECONNREFUSED", "5432", "v1.2.3", "dead-letter", "letter", "dead", "flaky", "flakiness", "tests",
		"testing", "retries", "retry", "migration", "migrations", "migrating", "x", "go", "CI",
		// synonyms (thesaurus.Related) and stems kept apart (apartFamilies)
		"physician", "physicians", "doctor", "medico", "upkeep", "maintenance", "care", "password",
		"watchword", "container", "containers", "contains", "production", "products",
	}
	typo := func(r *rand.Rand, w string) string {
		b := []rune(strings.ToLower(w))
		if len(b) < 4 {
			return w
		}
		i := 1 + r.IntN(len(b)-2)
		switch r.IntN(3) {
		case 0:
			b[i], b[i+1] = b[i+1], b[i]
		case 1:
			b = append(b[:i], b[i+1:]...)
		default:
			b[i] = 'q'
		}
		return string(b)
	}
	kinds := []entry.Kind{entry.KindMemory, entry.KindKnowledge, entry.KindLearning, entry.KindJournal}
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 39))
		words := func(n int) string {
			var ws []string
			for range n {
				ws = append(ws, vocab[r.IntN(len(vocab))])
			}
			return strings.Join(ws, []string{" ", " ", ", ", "\n", ". "}[r.IntN(5)])
		}
		var docs []index.Doc
		for i := range 60 + r.IntN(120) {
			d := index.Doc{EntryID: fmt.Sprintf("e-%03d", i), Kind: kinds[r.IntN(len(kinds))],
				Content: words(1 + r.IntN(30)), Created: time.Date(2026, 1, 1+r.IntN(5), 0, 0, 0, 0, time.UTC)}
			d.Path = map[entry.Kind]string{entry.KindMemory: ".agent/memories.md", entry.KindKnowledge: ".agent/knowledge/" + d.EntryID + ".md",
				entry.KindLearning: ".agent/learnings/" + d.EntryID + ".md", entry.KindJournal: ".agent/journal/r/" + d.EntryID + ".md"}[d.Kind]
			d.ID = d.Path
			if d.Kind == entry.KindMemory {
				d.ID += "#" + d.EntryID
			}
			if r.IntN(3) == 0 {
				d.Title = words(1 + r.IntN(4))
			}
			for range r.IntN(3) {
				d.Tags = append(d.Tags, strings.ToLower(vocab[r.IntN(len(vocab))]))
			}
			if d.Kind == entry.KindLearning && r.IntN(4) == 0 {
				d.Status = "superseded"
			}
			docs = append(docs, d)
		}
		// Indexed in batches, some replaced and some removed: a lived index.
		x := scorchOf(t)
		for i := 0; i < len(docs); i += 25 {
			if err := x.Index(docs[i:min(i+25, len(docs))]...); err != nil {
				t.Fatal(err)
			}
		}
		scan := index.NewScan(docs...)
		for i := 0; i < len(docs); i += 7 {
			d := docs[i]
			d.Content += " " + words(3)
			x.Index(d)
			scan.Index(d)
		}
		var gone []string
		for i := 3; i < len(docs); i += 11 {
			gone = append(gone, docs[i].ID)
		}
		x.Remove(gone...)
		scan.Remove(gone...)

		var texts []string
		for range 100 {
			text := words(1 + r.IntN(5))
			switch r.IntN(5) {
			case 0:
				text = typo(r, vocab[r.IntN(len(vocab))]) + " " + words(r.IntN(2))
			case 1:
				text = docs[r.IntN(len(docs))].EntryID
			}
			texts = append(texts, text)
		}
		differ := 0
		for _, text := range texts {
			for shape, q := range shapes(text) {
				if r.IntN(4) == 0 {
					q.Kinds = []entry.Kind{kinds[r.IntN(len(kinds))]}
				}
				got, err := x.Search(q)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := scan.Search(q)
				if g, w := answer(got), answer(want); g != w {
					differ++
					if differ <= 3 {
						t.Errorf("seed %d, %s %q (kinds %v):\nindex %s\nscan  %s", seed, shape, text, q.Kinds, g, w)
					}
				}
			}
		}
		if differ > 0 {
			t.Errorf("seed %d: %d of %d queries answered differently", seed, differ, 3*len(texts))
		}
	}
}
