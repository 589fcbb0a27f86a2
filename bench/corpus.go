package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// corpus describes a generated store: where it is and words to search for.
type corpus struct {
	dir     string
	entries int
	// word is a mid-frequency word, typo the same word with two letters
	// swapped, tag a common tag.
	word, typo, tag string
	// topic, when the store has one (generateCorpusAbout), is what most
	// of its entries are about: a tag of most knowledge entries and
	// learnings, and the feature of most journal entries.
	topic string
}

// Proportions of the generated entries by kind: a loop's store is mostly
// its journal (one entry per iteration) and the learnings it draws.
const (
	shareMemories  = 0.10
	shareKnowledge = 0.15
	shareLearnings = 0.25 // the rest is journal
	runLength      = 100  // journal entries per run
)

// fillerShares splits n generated entries by kind in the shares above.
func fillerShares(n int) (memories, knowledge, learnings, journal int) {
	memories = int(float64(n) * shareMemories)
	knowledge = int(float64(n) * shareKnowledge)
	learnings = int(float64(n) * shareLearnings)
	return memories, knowledge, learnings, n - memories - knowledge - learnings
}

// fillerTime is the time of a generator's i-th entry of a kind: seven
// minutes apart from the start of 2026, after the labelled store.
func fillerTime(i int) time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 7 * time.Minute)
}

// fillerWrite writes a generated file at a path under dir's .agent,
// making its directory first.
func fillerWrite(dir string) func(rel, content string) error {
	agent := filepath.Join(dir, ".agent")
	return func(rel, content string) error {
		p := filepath.Join(agent, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(content), 0o644)
	}
}

// wordList is a fixed vocabulary of made-up words (deterministic, a few
// thousand), drawn Zipf-like so that common words are common.
func wordList(r *rand.Rand, n int) []string {
	consonants := []string{"b", "c", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "st", "tr", "pl", "ch", "sh"}
	vowels := []string{"a", "e", "i", "o", "u", "ai", "ou", "ea"}
	seen := map[string]bool{}
	var words []string
	for len(words) < n {
		var b strings.Builder
		for s := 0; s < 2+r.Intn(2); s++ {
			b.WriteString(consonants[r.Intn(len(consonants))])
			b.WriteString(vowels[r.Intn(len(vowels))])
		}
		if r.Intn(2) == 0 {
			b.WriteString(consonants[r.Intn(len(consonants))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

type generator struct {
	r     *rand.Rand
	words []string
	wordZ *rand.Zipf
	tags  []string
	tagZ  *rand.Zipf
	// topic, unless "", is drawn for an entry with probability
	// topicShare (about): its tag, its feature.
	topic      string
	topicShare float64
}

// about says whether the next entry is about g's topic. A generator
// without one draws nothing, so that its stores stay as they were.
func (g *generator) about() bool { return g.topic != "" && g.r.Float64() < g.topicShare }

func (g *generator) text(minWords, maxWords int) string {
	n := minWords + g.r.Intn(maxWords-minWords+1)
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			if i%14 == 0 {
				b.WriteString(".\n")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(g.words[g.wordZ.Uint64()])
	}
	b.WriteString(".")
	return b.String()
}

// tagList is one to four tags, and the topic's for an entry about it.
func (g *generator) tagList() []string {
	n := 1 + g.r.Intn(4)
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		t := g.tags[g.tagZ.Uint64()]
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if g.about() {
		out = append(out, g.topic)
	}
	return out
}

func quoted(list []string) string { return "[" + strings.Join(list, ", ") + "]" }

// newGenerator returns generateCorpus's generator for seed: its made-up
// vocabulary, its tags and their Zipf draws.
func newGenerator(seed int64) *generator {
	r := rand.New(rand.NewSource(seed))
	words := wordList(r, 4000)
	g := &generator{r: r, words: words, wordZ: rand.NewZipf(r, 1.1, 2, uint64(len(words)-1))}
	for i := 0; i < 200; i++ {
		g.tags = append(g.tags, words[len(words)-1-i]+"-"+words[i*7%len(words)])
	}
	g.tagZ = rand.NewZipf(r, 1.2, 1, uint64(len(g.tags)-1))
	return g
}

// reseed keeps g's vocabulary and tags and draws from a new random
// stream: text in the words of generateCorpus(…, seed)'s store that is
// not any of its entries.
func (g *generator) reseed(seed int64) {
	g.r = rand.New(rand.NewSource(seed))
	g.wordZ = rand.NewZipf(g.r, 1.1, 2, uint64(len(g.words)-1))
	g.tagZ = rand.NewZipf(g.r, 1.2, 1, uint64(len(g.tags)-1))
}

// memoriesMarkdown is a memories.md of n memories in seed 001's format:
// four sections, memory i in section i%4, dated fillerTime(i).
func memoriesMarkdown(g *generator, n int) string {
	sections := []string{"Patterns", "Decisions", "Fixes", "Context"}
	var md strings.Builder
	md.WriteString("# Memories\n")
	for s, name := range sections {
		fmt.Fprintf(&md, "\n## %s\n", name)
		for i := s; i < n; i += len(sections) {
			t := fillerTime(i)
			fmt.Fprintf(&md, "\n### mem-%d-%04x\n> %s\n<!-- tags: %s | created: %s -->\n",
				t.Unix(), i%0x10000, strings.ReplaceAll(g.text(8, 40), "\n", " "), strings.Join(g.tagList(), ", "), t.Format("2006-01-02"))
		}
	}
	return md.String()
}

// generateCorpus writes a lore store of n entries into a new git
// repository at dir and commits it with C git.
func generateCorpus(dir string, n int, seed int64) (corpus, error) {
	return generateCorpusAbout(dir, n, seed, "", 0)
}

// generateCorpusAbout is generateCorpus with a topic that a share of the
// entries are about (0 to 1; none when topic is ""): each knowledge
// entry, learning and memory so drawn carries the topic as a tag, and
// each journal entry so drawn has it as its feature, so that a task of
// that feature, or whose title names it, matches that share of the store.
func generateCorpusAbout(dir string, n int, seed int64, topic string, share float64) (corpus, error) {
	g := newGenerator(seed)
	g.topic, g.topicShare = topic, share
	words := g.words
	at, write := fillerTime, fillerWrite(dir)
	memories, knowledge, learnings, journal := fillerShares(n)

	if err := write("memories.md", memoriesMarkdown(g, memories)); err != nil {
		return corpus{}, err
	}
	for i := 0; i < knowledge; i++ {
		title := strings.Join([]string{words[g.wordZ.Uint64()], words[g.wordZ.Uint64()], words[g.wordZ.Uint64()], fmt.Sprint(i)}, " ")
		slug := strings.ReplaceAll(title, " ", "-")
		err := write("knowledge/"+slug+".md", fmt.Sprintf("---\ntitle: %q\ntags: %s\ncreated_at: %q\n---\n\n%s\n",
			title, quoted(g.tagList()), at(i).Format(time.RFC3339), g.text(30, 300)))
		if err != nil {
			return corpus{}, err
		}
	}
	categories := []string{"strategy", "antipattern", "estimate", "convention"}
	for i := 0; i < learnings; i++ {
		err := write(fmt.Sprintf("learnings/l-%06x.md", i), fmt.Sprintf("---\nid: l-%06x\ncategory: %s\ntags: %s\ntask: \"task-%d\"\ncreated_at: %q\nstatus: active\n---\n\n%s\n",
			i, categories[i%len(categories)], quoted(g.tagList()), i%500, at(i).Format(time.RFC3339), g.text(20, 120)))
		if err != nil {
			return corpus{}, err
		}
	}
	outcomes := []string{"done", "done", "done", "failed", "retried"}
	for i := 0; i < journal; i++ {
		run := fmt.Sprintf("run-%08x", i/runLength)
		feature := ""
		if g.about() {
			feature = fmt.Sprintf("feature_id: %q\n", topic)
		}
		err := write(fmt.Sprintf("journal/%s/%04d.md", run, i%runLength+1), fmt.Sprintf(
			"---\nrun_id: %s\niteration: %d\ntask_id: \"task-%d\"\n%soutcome: %s\nmodel: \"sonnet\"\nduration_secs: %d\ncost_usd: 0.%02d\nfiles_modified: [src/%s.go]\ncreated_at: %q\n---\n\n%s\n",
			run, i%runLength+1, i%500, feature, outcomes[i%len(outcomes)], 30+i%600, i%100, words[i%len(words)], at(i).Format(time.RFC3339), g.text(20, 120)))
		if err != nil {
			return corpus{}, err
		}
	}
	if err := commitCorpus(dir); err != nil {
		return corpus{}, err
	}
	// A word of rank ~200 is in a few percent of the entries.
	word := words[200]
	typo := []byte(word)
	typo[1], typo[2] = typo[2], typo[1]
	return corpus{dir: dir, entries: n, word: word, typo: string(typo), tag: g.tags[2], topic: topic}, nil
}

// commitCorpus makes dir, a generated store, a git repository with one
// commit holding it.
func commitCorpus(dir string) error {
	env := benchEnv(filepath.Dir(dir))
	for _, s := range [][]string{
		{"init", "-q", "-b", "main"}, {"config", "gc.auto", "0"}, {"add", "-A"}, {"commit", "-q", "-m", "corpus"},
	} {
		if err := runIn(dir, env, "git", s...); err != nil {
			return err
		}
	}
	return nil
}

// benchCorpus writes one generated store, to look at or measure by hand:
// go run ./bench corpus -n 100000 DIR. With -filler realistic it writes
// the recall benchmark's realistic filler (distractors.go) instead of
// made-up words; -n 9693 is the one inside its 10,000-entry store.
func benchCorpus(args []string) error {
	fs := flag.NewFlagSet("corpus", flag.ExitOnError)
	n := fs.Int("n", 10000, "entries")
	filler := fs.String("filler", "madeup", "madeup (made-up words, the other benchmarks' stores) or realistic (the recall benchmark's distractors)")
	recall := fs.String("corpus", "bench/recall", "with -filler realistic: the recall benchmark's directory, whose labelled store and queries the filler must not answer")
	topic := fs.String("topic", "", "with -filler madeup: a topic that a share of the entries are about (a tag, a journal entry's feature), as the prime benchmark's stores have "+primeTopic)
	share := fs.Float64("topic-share", primeTopicShare, "with -topic: the share of the entries about it")
	fs.Parse(args)
	if fs.NArg() != 1 {
		return fmt.Errorf("usage: go run ./bench corpus [-n entries] [-filler madeup|realistic] [-topic WORD [-topic-share 0.9]] DIR")
	}
	start := time.Now()
	switch *filler {
	case "madeup":
		c, err := generateCorpusAbout(fs.Arg(0), *n, int64(*n), *topic, *share)
		if err != nil {
			return err
		}
		fmt.Printf("%d entries in %s (%s); a mid-frequency word: %s, with a typo: %s; a common tag: %s\n",
			c.entries, c.dir, time.Since(start).Round(time.Millisecond), c.word, c.typo, c.tag)
	case "realistic":
		guard, err := loadFillerGuard(*recall)
		if err != nil {
			return err
		}
		if err := generateRealistic(fs.Arg(0), *n, int64(*n), guard); err != nil {
			return err
		}
		fmt.Printf("%d realistic filler entries in %s (%s)\n", *n, fs.Arg(0), time.Since(start).Round(time.Millisecond))
	default:
		return fmt.Errorf("-filler %q: madeup or realistic", *filler)
	}
	return nil
}
