package bleveindex

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lore/index"
	"lore/index/fresh"
	"lore/internal/loretest"
	"lore/mdstore"
)

// benchIndex is a built index of n knowledge entries of 40 to 80 words
// drawn from 5,000 made-up ones, and one of those words (in about one
// entry in a hundred).
func benchIndex(b *testing.B, n int) (*Index, string) {
	b.Helper()
	r := loretest.NewRepo(b)
	s, err := mdstore.Open(r.Dir, mdstore.Options{Getenv: r.Getenv})
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := s.Init(false); err != nil {
		b.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(uint64(n), 15))
	vocab := make([]string, 5000)
	for i := range vocab {
		w := make([]byte, 4+rnd.IntN(6))
		for j := range w {
			w[j] = byte('a' + rnd.IntN(26))
		}
		vocab[i] = string(w)
	}
	dir := filepath.Join(r.Dir, ".agent/knowledge")
	os.MkdirAll(dir, 0o755)
	for i := 0; i < n; i++ {
		words := make([]string, 40+rnd.IntN(41))
		for j := range words {
			words[j] = vocab[rnd.IntN(len(vocab))]
		}
		text := fmt.Sprintf("---\ntitle: \"Entry %d about %s\"\ntags: [\"%s\"]\n---\n\n%s.\n", i, words[0], vocab[rnd.IntN(50)], strings.Join(words, " "))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("entry-%05d.md", i)), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	gitIndex, prefix := s.GitIndex()
	ix := New(r.Dir, index.Dir(s), Options{GitIndex: gitIndex, Prefix: prefix})
	if _, err := ix.Rebuild("benchmark"); err != nil {
		b.Fatal(err)
	}
	return ix, vocab[4321]
}

// What checking the index against its seal costs, at 1k and 10k entries
// (the figures in BENCHMARKS.md):
//
//	go test ./index/bleveindex -run XXX -bench BenchmarkSeal -benchtime 300x -count 5
//
// search: a warm search (nothing changed), Index.Search as lore-index
// runs it with the check of stamps and snapshot (ms/checked), beside the
// same steps as before the seal — the store's check, bleve's open, the
// search (ms/unchecked) — one after the other; stamps: reading the seal
// and comparing the stamps of the files bleve reads; snapshot: comparing
// the snapshot bleve loaded with the seal's; seal: what a writer pays
// once it has closed the generation (opening it again, reading every
// file as after a rebuild, waiting for the file system's clock); full:
// reading and checking every byte, as lore index status and refresh do.
func BenchmarkSeal(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		ix, word := benchIndex(b, n)
		q := index.Query{Text: word, Limit: 10} // as lore search asks
		gen, err := ix.dir.Current()
		if err != nil {
			b.Fatal(err)
		}
		dir := ix.dir.Generation(gen)
		size := int64(0)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if info, err := e.Info(); err == nil {
				size += info.Size()
			}
		}
		b.Logf("%d entries: an index of %.1f MB in %d files", n, float64(size)/1e6, len(entries))
		// The search with the check and the same steps without it, one
		// after the other, so that both see the same machine.
		b.Run(fmt.Sprintf("%d/search", n), func(b *testing.B) {
			var checked, unchecked time.Duration
			for b.Loop() {
				start := time.Now()
				if _, rep, err := ix.Search(q); err != nil || rep.Rebuilt {
					b.Fatal(rep, err)
				}
				checked += time.Since(start)
				start = time.Now()
				if _, err := ix.refresh(ix.Rebuild, nil, nil); err != nil {
					b.Fatal(err)
				}
				x, err := openScorch(dir, false, ix.opts.Timeout)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := x.Search(q); err != nil {
					b.Fatal(err)
				}
				x.Close()
				unchecked += time.Since(start)
			}
			b.ReportMetric(float64(checked.Microseconds())/1000/float64(b.N), "ms/checked")
			b.ReportMetric(float64(unchecked.Microseconds())/1000/float64(b.N), "ms/unchecked")
			b.ReportMetric(float64(checked)/float64(unchecked), "checked/unchecked")
		})
		b.Run(fmt.Sprintf("%d/stamps", n), func(b *testing.B) {
			for b.Loop() {
				s, err := fresh.ReadSeal(ix.dir.Seal(gen))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Check(dir, false); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%d/snapshot", n), func(b *testing.B) {
			s, err := fresh.ReadSeal(ix.dir.Seal(gen))
			if err != nil {
				b.Fatal(err)
			}
			x, err := openScorch(dir, false, ix.opts.Timeout)
			if err != nil {
				b.Fatal(err)
			}
			defer x.Close()
			for b.Loop() {
				docs, segs, err := x.sealed()
				if err == nil {
					err = s.Holds(docs, segs)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		// What sealing costs a writer, once it has closed the generation:
		// opening it again, reading the files that changed (every one
		// after a rebuild), waiting for the file system's clock.
		b.Run(fmt.Sprintf("%d/seal", n), func(b *testing.B) {
			docs := uint64(n)
			for b.Loop() {
				if err := ix.seal(gen, docs, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%d/full", n), func(b *testing.B) {
			for b.Loop() {
				s, err := fresh.ReadSeal(ix.dir.Seal(gen))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Check(dir, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
