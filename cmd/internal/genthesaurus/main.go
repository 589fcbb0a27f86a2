// Command genthesaurus writes related.txt, the thesaurus package's table, from the
// WordNet 3.0 database (Debian's wordnet-base: /usr/share/wordnet):
//
//	go generate ./internal/thesaurus   (runs: go run lore/cmd/internal/genthesaurus /usr/share/wordnet)
//
// For each word of four or more ASCII letters that has at most two senses
// in all parts of speech together, the other such words of its senses as a
// noun, a verb or an adjective, each once; lines sorted by word.
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxSenses is how many senses a word may have and still have related
// words. The synonyms of a word of one or two senses ("physician":
// doctor, medico) mean what it means; those of a word of many
// mostly mean something else ("ready": cook, make, prepare; "find":
// discovery, breakthrough), and made the labelled queries that hold such
// words worse.
const maxSenses = 2

// parts are WordNet's parts of speech, and synonymParts those whose
// synonyms are looked for: not adverbs, whose synonyms carry no topic
// ("before": earlier, ahead; "instead": rather) — they made two labelled
// questions worse and helped none.
var (
	parts        = []string{"noun", "verb", "adj", "adv"}
	synonymParts = []string{"noun", "verb", "adj"}
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen WORDNET-DICT-DIR")
		os.Exit(2)
	}
	related, err := build(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	w := bufio.NewWriter(os.Stdout)
	words := make([]string, 0, len(related))
	for k := range related {
		words = append(words, k)
	}
	slices.Sort(words)
	for _, k := range words {
		fmt.Fprintf(w, "%s\t%s\n", k, strings.Join(related[k], " "))
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// build reads dir's data.* (the synsets' words) and index.* (each word's
// synsets, most frequent first) files.
func build(dir string) (map[string][]string, error) {
	related := map[string][]string{}
	sensesOf := map[string]int{}
	for _, part := range parts {
		err := eachLine(filepath.Join(dir, "index."+part), func(f []string) error {
			var n int
			if _, err := fmt.Sscan(f[2], &n); err != nil {
				return fmt.Errorf("bad index line %q", f[0])
			}
			sensesOf[f[0]] += n
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, part := range synonymParts {
		synsets := map[string][]string{} // by offset
		err := eachLine(filepath.Join(dir, "data."+part), func(f []string) error {
			var n int
			if _, err := fmt.Sscanf(f[3], "%x", &n); err != nil || len(f) < 4+2*n {
				return fmt.Errorf("bad synset %q", f[0])
			}
			for i := range n {
				w := strings.ToLower(f[4+2*i])
				if j := strings.IndexByte(w, '('); j >= 0 { // adjective markers: (a), (p), (ip)
					w = w[:j]
				}
				synsets[f[0]] = append(synsets[f[0]], w)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		err = eachLine(filepath.Join(dir, "index."+part), func(f []string) error {
			word := f[0]
			var synCount, ptrCount int
			if _, err := fmt.Sscan(f[2], &synCount); err != nil {
				return fmt.Errorf("bad index line %q", word)
			}
			if _, err := fmt.Sscan(f[3], &ptrCount); err != nil || len(f) < 6+ptrCount+synCount {
				return fmt.Errorf("bad index line %q", word)
			}
			if !plain(word) || sensesOf[word] > maxSenses {
				return nil
			}
			for _, off := range f[6+ptrCount : 6+ptrCount+synCount] {
				for _, r := range synsets[off] {
					if r != word && plain(r) && !slices.Contains(related[word], r) {
						related[word] = append(related[word], r)
					}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return related, nil
}

// plain says whether w is a word of four or more lowercase ASCII letters:
// no phrase ("give_up"), no abbreviation of three.
func plain(w string) bool {
	if len(w) < 4 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// eachLine calls fn with the space-separated fields of each line of the
// file at path but its licence header (lines starting with two spaces).
func eachLine(path string, fn func(fields []string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.HasPrefix(text, "  ") || text == "" {
			continue
		}
		if err := fn(strings.Fields(text)); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	return sc.Err()
}
