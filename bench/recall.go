package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// benchRecall measures whether lore finds the right entry: a labelled
// store (-corpus: bench/recall/store, a Go web service's memory written
// as agents and people write it, bench/recall-pipeline/store, a data
// pipeline team's, bench/recall-questions/store, a mobile team's, or
// bench/recall-paraphrase/store, a clinic booking SaaS team's) and
// labelled queries (queries.json beside it) of
// several kinds. For each query it runs the whole process `lore search
// <query> --format json` (the best 10) once for each of -engines: index
// (through lore-index) and scan (LORE_INDEX=off, lore reads every file);
// with the index also `lore prime --title <query> --format json`; and it
// ranks the same entries with a grep baseline. It does so in the
// labelled store alone and inside a store of -sizes entries filled with
// -filler: realistic (distractors.go: prose about the other services of
// bench/recall's company in the words of software work, none of it an
// answer to a labelled query) or madeup (corpus.go: made-up words, which
// no query shares). Issues 17 and 39.
func benchRecall(args []string) error {
	fs := flag.NewFlagSet("recall", flag.ExitOnError)
	sizes := fs.String("sizes", "corpus,10000", "stores to measure (comma-separated): corpus is the labelled store alone, a number the labelled store inside that many entries")
	dir := fs.String("corpus", "bench/recall", "directory holding store/.agent and queries.json; -write replaces the section named after its last element (bench:recall, bench:recall-pipeline, bench:recall-questions, bench:recall-paraphrase)")
	engineList := fs.String("engines", "index,scan", "lore's engines to measure (comma-separated): index (lore search through lore-index) and scan (LORE_INDEX=off: lore reads every file); grep is always measured")
	write := fs.String("write", "", "replace this corpus's recall section of this Markdown file with the results")
	details := fs.String("details", "", "write every query's results (each engine's, grep's and prime's) to this JSON file")
	verbose := fs.Bool("v", false, "print each query a lore engine misses at 5")
	keep := fs.Bool("keep", false, "keep the generated repositories")
	filler := fs.String("filler", "realistic", "what fills the stores of -sizes around the labelled store: realistic (distractors.go: English notes on the other services of bench/recall's company, in the common words of software work) or madeup (corpus.go: made-up words and tags)")
	fs.Parse(args)

	var engines []string
	for _, e := range strings.Split(*engineList, ",") {
		switch e = strings.TrimSpace(e); e {
		case "index", "scan":
			engines = append(engines, e)
		default:
			return fmt.Errorf("-engines: %q is not index or scan", e)
		}
	}
	queries, err := readQueries(filepath.Join(*dir, "queries.json"))
	if err != nil {
		return err
	}
	store, err := filepath.Abs(filepath.Join(*dir, "store", ".agent"))
	if err != nil {
		return err
	}
	own, err := readEntries(filepath.Dir(store))
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, e := range own {
		known[e.id] = true
	}
	for _, q := range queries {
		for _, id := range q.Relevant {
			if !known[id] {
				return fmt.Errorf("query %q: relevant entry %s is not in the store", q.Query, id)
			}
		}
	}

	var fill func(dir string, n int, seed int64) error
	var fillerLabel string
	switch *filler {
	case "realistic":
		guard, err := newFillerGuard(store, queries)
		if err != nil {
			return err
		}
		fill = func(dir string, n int, seed int64) error { return generateRealistic(dir, n, seed, guard) }
		fillerLabel = "distractors.go: realistic filler, notes of every kind on the other services of bench/recall's company (a Go web shop) in the words of software work, none answering a labelled query; dated after the labelled store"
	case "madeup":
		fill = func(dir string, n int, seed int64) error {
			_, err := generateCorpus(dir, n, seed)
			return err
		}
		fillerLabel = "corpus.go: made-up words and tags, dated after the labelled store"
	default:
		return fmt.Errorf("-filler %q: realistic or madeup", *filler)
	}

	work, err := os.MkdirTemp("", "lore-bench-recall-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "keeping", work)
	} else {
		defer os.RemoveAll(work)
	}
	lore, err := buildLore(filepath.Join(work, "bin"))
	if err != nil {
		return err
	}

	section := filepath.Base(filepath.Clean(*dir))
	rel := filepath.ToSlash(filepath.Clean(*dir))
	var out strings.Builder
	counts := map[string]int{}
	runs := map[string]bool{}
	for _, e := range own {
		counts[e.kind]++
		if e.kind == "journal" {
			run, _, _ := strings.Cut(e.id, "/")
			runs[run] = true
		}
	}
	fmt.Fprintf(&out, "Labelled store %s/store: %d entries (%d memories, %d knowledge, %d learnings, %d journal entries in %d runs), described in %s/README.md; %d labelled queries in %s/queries.json (%s). %s, %d cores, %s.\n\n",
		rel, len(own), counts["memory"], counts["knowledge"], counts["learning"], counts["journal"], len(runs), rel, len(queries), rel, kindCounts(queries),
		runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"))
	command := "go run ./bench recall"
	if rel != "bench/recall" {
		command += " -corpus " + rel
	}
	command += fmt.Sprintf(" -sizes %s -filler %s", *sizes, *filler)
	if *engineList != "index,scan" {
		command += " -engines " + *engineList
	}
	fmt.Fprintf(&out, "Command: `%s -write BENCHMARKS.md`\n\n", command)
	out.WriteString("For each query, whole processes: `lore search --format json -- <query>` (its best 10), by lore's two engines: **index** (through lore-index, the default) and **scan** (`LORE_INDEX=off`: lore reads and ranks every file itself); and `lore prime --title=<query> --format json` with the index (the entries of every section, as `entries` lists them; no current run, default budgets). A query is a hit at k when any of its relevant entries is among the first k; MRR is the mean of 1/rank of the first relevant entry (0 past 10). \"prime shown\": a relevant entry is in prime's output. The **grep** baseline ranks every entry (a memory block of memories.md, or a whole file with its frontmatter) by the number of distinct query words — the query lowercased and split on every character that is not a letter or a digit — that occur in the entry's lowercased text as substrings (as `grep -i` finds them), ties broken by file order (paths in lexical order, memories in file order); entries with none are not ranked.\n\n")

	withPrime := slices.Contains(engines, "index")
	var all []queryResult
	for _, s := range strings.Split(*sizes, ",") {
		s = strings.TrimSpace(s)
		repo := filepath.Join(work, "store-"+s)
		start := time.Now()
		total := len(own)
		if s == "corpus" {
			err = ownStore(repo, store, lore)
		} else {
			n, perr := strconv.Atoi(s)
			if perr != nil || n <= len(own) {
				return fmt.Errorf("bad size %q (corpus, or more than the %d labelled entries)", s, len(own))
			}
			total = n
			err = mixedStore(repo, store, lore, n-len(own), own, fill)
		}
		if err != nil {
			return err
		}
		env := benchEnv(filepath.Dir(repo))
		envOf := map[string][]string{"index": env, "scan": append(slices.Clip(env), "LORE_INDEX=off")}
		if err := runIn(repo, env, lore, "index", "rebuild"); err != nil {
			return err
		}
		entries, err := readEntries(repo)
		if err != nil {
			return err
		}
		if len(entries) != total {
			return fmt.Errorf("store %s holds %d entries, want %d", s, len(entries), total)
		}
		fmt.Fprintf(os.Stderr, "recall: store of %d entries built in %s\n", total, time.Since(start).Round(time.Millisecond))
		var results []queryResult
		spent := map[string]time.Duration{}
		for i, q := range queries {
			r := queryResult{Query: q, Store: total, Ranked: map[string][]string{}}
			for _, e := range engines {
				t := time.Now()
				if r.Ranked[e], err = searchIDs(repo, envOf[e], lore, q.Query); err != nil {
					return err
				}
				spent[e] += time.Since(t)
			}
			if withPrime {
				if r.Prime, err = primeKeys(repo, env, lore, q.Query); err != nil {
					return err
				}
			}
			r.Ranked["grep"] = grepRank(entries, q.Query, 10)
			r.score()
			results = append(results, r)
			for _, e := range engines {
				if *verbose && (r.Rank[e] == 0 || r.Rank[e] > 5) {
					fmt.Fprintf(os.Stderr, "miss@5 %s [%s] %q: rank %d; lore: %s\n", e, q.Kind, q.Query, r.Rank[e], strings.Join(r.Ranked[e], " "))
				}
			}
			if (i+1)%50 == 0 {
				fmt.Fprintf(os.Stderr, "recall: %d of %d queries\n", i+1, len(queries))
			}
		}
		all = append(all, results...)
		label := fmt.Sprintf("%d entries: the labelled store alone", total)
		if s != "corpus" {
			label = fmt.Sprintf("%d entries: the labelled store inside %d generated ones (%s)", total, total-len(own), fillerLabel)
		}
		var took []string
		for _, e := range engines {
			took = append(took, fmt.Sprintf("%s %.0f ms", e, float64(spent[e].Milliseconds())/float64(len(queries))))
		}
		label += fmt.Sprintf("; one lore search took on average (whole process, 2 cores shared): %s", strings.Join(took, ", "))
		table := recallTable(label, results, engines, withPrime)
		fmt.Fprint(os.Stderr, table)
		out.WriteString(table)
	}
	if hasTargets(queries) {
		out.WriteString("Targets (issue 17, R@5 of lore search): exact ≥ 0.98, typo ≥ 0.95, word form ≥ 0.90, task ≥ 0.85, tag ≥ 0.98, paraphrase ≥ 0.60, error ≥ 0.95; overall at least 0.10 above grep's R@5; prime shows a relevant entry for ≥ 85% of queries, at 10k entries too.\n")
	}
	fmt.Print(out.String())
	if *details != "" {
		data, err := json.MarshalIndent(all, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*details, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	if *write != "" {
		return replaceSection(*write, section, out.String())
	}
	return nil
}

type recallQuery struct {
	Query    string   `json:"query"`
	Kind     string   `json:"kind"`
	Relevant []string `json:"relevant"`
}

// recallKinds are the query kinds in the order the tables list them: the
// first set's seven (issue 17), and question and identifier, which the
// second set adds (issue 39).
var recallKinds = []string{"exact", "question", "typo", "wordform", "identifier", "task", "tag", "paraphrase", "error"}

// recallTargets are issue 17's targets for lore's recall@5.
var recallTargets = map[string]string{"exact": "0.98", "typo": "0.95", "wordform": "0.90", "task": "0.85", "tag": "0.98", "paraphrase": "0.60", "error": "0.95"}

// hasTargets reports whether issue 17 set a target for every kind of qs.
func hasTargets(qs []recallQuery) bool {
	for _, q := range qs {
		if recallTargets[q.Kind] == "" {
			return false
		}
	}
	return true
}

func readQueries(path string) ([]recallQuery, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var qs []recallQuery
	if err := json.Unmarshal(data, &qs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	known := map[string]bool{}
	for _, k := range recallKinds {
		known[k] = true
	}
	for _, q := range qs {
		if !known[q.Kind] || q.Query == "" || len(q.Relevant) == 0 {
			return nil, fmt.Errorf("%s: bad query %+v", path, q)
		}
	}
	return qs, nil
}

// kindsOf lists the kinds that rs's queries have, in recallKinds' order.
func kindsOf(qs []recallQuery) []string {
	have := map[string]bool{}
	for _, q := range qs {
		have[q.Kind] = true
	}
	var kinds []string
	for _, k := range recallKinds {
		if have[k] {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

func kindCounts(qs []recallQuery) string {
	n := map[string]int{}
	for _, q := range qs {
		n[q.Kind]++
	}
	var parts []string
	for _, k := range kindsOf(qs) {
		parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
	}
	return strings.Join(parts, ", ")
}

// ownStore makes a repository holding the labelled store alone: git init,
// lore init, the store's files over it, one commit.
func ownStore(repo, store, lore string) error {
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return err
	}
	env := benchEnv(filepath.Dir(repo))
	for _, s := range [][]string{{"git", "init", "-q", "-b", "main"}, {"git", "config", "gc.auto", "0"}, {lore, "init"}} {
		if err := runIn(repo, env, s[0], s[1:]...); err != nil {
			return err
		}
	}
	if err := copyTree(store, filepath.Join(repo, ".agent"), false); err != nil {
		return err
	}
	return commitAll(repo, env, "labelled store")
}

// mixedStore makes a repository of filler entries written by fill
// (generateRealistic or generateCorpus, in a new repository, seeded with
// their number) with the labelled store added: its memories into the
// sections of memories.md, its other files beside the generated ones. An
// id of the labelled store that the generator also made is an error.
func mixedStore(repo, store, lore string, filler int, own []recallEntry, fill func(dir string, n int, seed int64) error) error {
	if err := fill(repo, filler, int64(filler)); err != nil {
		return err
	}
	env := benchEnv(filepath.Dir(repo))
	if err := runIn(repo, env, lore, "init"); err != nil {
		return err
	}
	generated, err := readEntries(repo)
	if err != nil {
		return err
	}
	ids := map[string]bool{}
	for _, e := range generated {
		ids[e.id] = true
	}
	for _, e := range own {
		if ids[e.id] {
			return fmt.Errorf("the generator made an entry with the labelled store's id %s", e.id)
		}
	}
	agent := filepath.Join(repo, ".agent")
	if err := copyTree(store, agent, true); err != nil {
		return err
	}
	genMem, err := os.ReadFile(filepath.Join(agent, "memories.md"))
	if err != nil {
		return err
	}
	ownMem, err := os.ReadFile(filepath.Join(store, "memories.md"))
	if err != nil {
		return err
	}
	merged, err := mergeMemories(string(genMem), string(ownMem))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(agent, "memories.md"), []byte(merged), 0o644); err != nil {
		return err
	}
	return commitAll(repo, env, "labelled store")
}

func commitAll(repo string, env []string, msg string) error {
	for _, s := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", msg}} {
		if err := runIn(repo, env, "git", s...); err != nil {
			return err
		}
	}
	return nil
}

// copyTree copies the files under src to dst. With skipMemories the
// memories file is left to the caller; a file that exists already is an
// error then (ids must not collide).
func copyTree(src, dst string, skipMemories bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if rel == "memories.md" && skipMemories {
			return nil
		}
		if skipMemories {
			if _, err := os.Lstat(target); err == nil {
				return fmt.Errorf("%s exists in the generated store", rel)
			}
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

var memorySection = regexp.MustCompile(`(?m)^## (Patterns|Decisions|Fixes|Context)\n`)

// mergeMemories puts the memories of each section of b after those of the
// same section of a; both are in seed 001's format with the four sections.
func mergeMemories(a, b string) (string, error) {
	split := func(s string) (map[string]string, error) {
		out := map[string]string{}
		locs := memorySection.FindAllStringSubmatchIndex(s, -1)
		if len(locs) != 4 {
			return nil, fmt.Errorf("memories.md: want the four sections, found %d", len(locs))
		}
		for i, l := range locs {
			end := len(s)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			out[s[l[2]:l[3]]] = strings.TrimRight(s[l[1]:end], "\n")
		}
		return out, nil
	}
	sa, err := split(a)
	if err != nil {
		return "", err
	}
	sb, err := split(b)
	if err != nil {
		return "", err
	}
	var w strings.Builder
	w.WriteString("# Memories\n")
	for _, name := range []string{"Patterns", "Decisions", "Fixes", "Context"} {
		fmt.Fprintf(&w, "\n## %s\n", name)
		for _, part := range []string{sa[name], sb[name]} {
			if part = strings.Trim(part, "\n"); part != "" {
				w.WriteString("\n" + part + "\n")
			}
		}
	}
	return w.String(), nil
}

// recallEntry is one entry of a store as the grep baseline sees it.
type recallEntry struct {
	kind, id string
	text     string // lowercased
}

var memoryHeading = regexp.MustCompile(`(?m)^#{1,3} `)

// readEntries lists the entries of the store under repo in file order:
// paths in lexical order (filepath.WalkDir's), the memories of
// memories.md in the order of the file, each with its text.
func readEntries(repo string) ([]recallEntry, error) {
	agent := filepath.Join(repo, ".agent")
	var out []recallEntry
	err := filepath.WalkDir(agent, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, _ := filepath.Rel(agent, filepath.Dir(p))
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := strings.ToLower(string(data))
		name := strings.TrimSuffix(filepath.Base(p), ".md")
		switch {
		case rel == "." && name == "memories":
			locs := memoryHeading.FindAllStringIndex(text, -1)
			for i, l := range locs {
				end := len(text)
				if i+1 < len(locs) {
					end = locs[i+1][0]
				}
				block := text[l[0]:end]
				if strings.HasPrefix(block, "### mem-") {
					id := strings.Fields(block)[1]
					out = append(out, recallEntry{"memory", id, block})
				}
			}
		case rel == "knowledge":
			out = append(out, recallEntry{"knowledge", name, text})
		case rel == "learnings":
			out = append(out, recallEntry{"learning", name, text})
		case strings.HasPrefix(rel, "journal"+string(filepath.Separator)):
			out = append(out, recallEntry{"journal", filepath.Base(rel) + "/" + name, text})
		}
		return nil
	})
	return out, err
}

// queryWords is the grep baseline's reading of a query: lowercased, split
// on every rune that is not a letter or a digit, each word once.
func queryWords(q string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// grepRank is the baseline: entries ranked by how many of the query's
// words occur in their text, ties in file order; the first limit ids.
func grepRank(entries []recallEntry, query string, limit int) []string {
	words := queryWords(query)
	type hit struct{ i, n int }
	var hits []hit
	for i, e := range entries {
		n := 0
		for _, w := range words {
			if strings.Contains(e.text, w) {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, hit{i, n})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].n > hits[b].n })
	var ids []string
	for _, h := range hits {
		if len(ids) == limit {
			break
		}
		ids = append(ids, entries[h.i].id)
	}
	return ids
}

// searchIDs runs lore search and returns the ids it ranked, best first.
func searchIDs(repo string, env []string, lore, query string) ([]string, error) {
	out, err := runOut(repo, env, lore, "search", "--format", "json", "--", query)
	if err != nil {
		return nil, err
	}
	var hits []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(out, &hits); err != nil {
		return nil, fmt.Errorf("lore search %q: %w\n%s", query, err, out)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids, nil
}

// primeKeys runs lore prime for a task titled query and returns the keys
// (prompt.Key: "memory:<id>", "knowledge:<slug>", "learning:<id>",
// "journal:<run>/<name>") of the entries its sections show.
func primeKeys(repo string, env []string, lore, query string) ([]string, error) {
	out, err := runOut(repo, env, lore, "prime", "--title="+query, "--format", "json", "--no-instructions")
	if err != nil {
		return nil, err
	}
	var p struct {
		Sections []struct {
			Entries []string `json:"entries"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(out, &p); err != nil {
		return nil, fmt.Errorf("lore prime %q: %w\n%s", query, err, out)
	}
	var keys []string
	for _, s := range p.Sections {
		keys = append(keys, s.Entries...)
	}
	return keys, nil
}

func runOut(dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

type queryResult struct {
	Query recallQuery `json:"query"`
	Store int         `json:"store"`
	// Ranked holds each engine's best 10 ids, best first: "index" and
	// "scan" (lore search with lore-index and without it) and "grep".
	Ranked map[string][]string `json:"ranked"`
	Prime  []string            `json:"prime,omitempty"`
	// Rank is the 1-based rank of the first relevant entry in each
	// engine's best 10, 0 when none is there.
	Rank map[string]int `json:"rank"`
	// Found is how many of the relevant entries are in each engine's
	// best 10.
	Found      map[string]int `json:"found"`
	PrimeShown bool           `json:"prime_shown"`
}

func countRelevant(ids []string, relevant map[string]bool) int {
	n := 0
	for _, id := range ids {
		if relevant[id] {
			n++
		}
	}
	return n
}

func firstRelevant(ids []string, relevant map[string]bool) int {
	for i, id := range ids {
		if relevant[id] {
			return i + 1
		}
	}
	return 0
}

func (r *queryResult) score() {
	relevant := map[string]bool{}
	for _, id := range r.Query.Relevant {
		relevant[id] = true
	}
	r.Rank, r.Found = map[string]int{}, map[string]int{}
	for e, ids := range r.Ranked {
		r.Rank[e] = firstRelevant(ids, relevant)
		r.Found[e] = countRelevant(ids, relevant)
	}
	for _, k := range r.Prime {
		if _, id, ok := strings.Cut(k, ":"); ok && relevant[id] {
			r.PrimeShown = true
		}
	}
}

// engineFigures sums one engine's results over a set of queries.
type engineFigures struct {
	r1, r5, r10, mrr float64
	// cover is the mean share of a query's relevant entries that are in
	// the best 10 (at most 10 of them count).
	cover float64
}

// recallFigures sums a set of query results, by engine.
type recallFigures struct {
	n      int
	engine map[string]engineFigures
	pri    float64
}

func sumRecall(rs []queryResult) recallFigures {
	f := recallFigures{engine: map[string]engineFigures{}}
	at := func(rank, k int) float64 {
		if rank > 0 && rank <= k {
			return 1
		}
		return 0
	}
	rr := func(rank int) float64 {
		if rank == 0 {
			return 0
		}
		return 1 / float64(rank)
	}
	for _, r := range rs {
		f.n++
		want := float64(min(len(r.Query.Relevant), 10))
		for e, rank := range r.Rank {
			g := f.engine[e]
			g.r1 += at(rank, 1)
			g.r5 += at(rank, 5)
			g.r10 += at(rank, 10)
			g.mrr += rr(rank)
			g.cover += float64(r.Found[e]) / want
			f.engine[e] = g
		}
		if r.PrimeShown {
			f.pri++
		}
	}
	if f.n > 0 {
		n := float64(f.n)
		for e, g := range f.engine {
			f.engine[e] = engineFigures{g.r1 / n, g.r5 / n, g.r10 / n, g.mrr / n, g.cover / n}
		}
		f.pri /= n
	}
	return f
}

// recallTable writes the tables of one store: R@1, R@5, R@10 and MRR of
// each engine and grep, per kind of query (with prime's "shown" and
// issue 17's target where there is one), then each engine's MRR against
// grep's and the share of relevant entries in its best 10.
func recallTable(label string, rs []queryResult, engines []string, withPrime bool) string {
	byKind := func(k string) []queryResult {
		var sub []queryResult
		for _, r := range rs {
			if r.Query.Kind == k {
				sub = append(sub, r)
			}
		}
		return sub
	}
	var qs []recallQuery
	for _, r := range rs {
		qs = append(qs, r.Query)
	}
	kinds := kindsOf(qs)
	cols := append(slices.Clip(engines), "grep")
	targets := hasTargets(qs)
	all := sumRecall(rs)
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**\n\n", label)
	b.WriteString("| queries | n |")
	align := "| --- | ---: |"
	for _, e := range cols {
		fmt.Fprintf(&b, " %s R@1 | %s R@5 | %s R@10 | %s MRR |", e, e, e, e)
		align += " ---: | ---: | ---: | ---: |"
	}
	if withPrime {
		b.WriteString(" prime shown |")
		align += " ---: |"
	}
	if targets {
		b.WriteString(" target R@5 |")
		align += " ---: |"
	}
	b.WriteString("\n" + align + "\n")
	row := func(name string, f recallFigures, target string) {
		fmt.Fprintf(&b, "| %s | %d |", name, f.n)
		for _, e := range cols {
			g := f.engine[e]
			fmt.Fprintf(&b, " %.2f | %.2f | %.2f | %.2f |", g.r1, g.r5, g.r10, g.mrr)
		}
		if withPrime {
			fmt.Fprintf(&b, " %.2f |", f.pri)
		}
		if targets {
			fmt.Fprintf(&b, " %s |", target)
		}
		b.WriteString("\n")
	}
	for _, k := range kinds {
		row(k, sumRecall(byKind(k)), "≥ "+recallTargets[k])
	}
	row("**overall**", all, fmt.Sprintf("grep + 0.10 = %.2f", all.engine["grep"].r5+0.10))
	b.WriteString("\nEach engine's MRR against grep's, and the share of each query's relevant entries (up to 10) that are among the best 10:\n\n")
	b.WriteString("| queries |")
	align = "| --- |"
	for _, e := range engines {
		fmt.Fprintf(&b, " %s MRR − grep MRR |", e)
		align += " ---: |"
	}
	for _, e := range cols {
		fmt.Fprintf(&b, " %s: relevant in top 10 |", e)
		align += " ---: |"
	}
	b.WriteString("\n" + align + "\n")
	row2 := func(name string, f recallFigures) {
		fmt.Fprintf(&b, "| %s |", name)
		for _, e := range engines {
			fmt.Fprintf(&b, " %+.2f |", f.engine[e].mrr-f.engine["grep"].mrr)
		}
		for _, e := range cols {
			fmt.Fprintf(&b, " %.2f |", f.engine[e].cover)
		}
		b.WriteString("\n")
	}
	for _, k := range kinds {
		row2(k, sumRecall(byKind(k)))
	}
	row2("**overall**", all)
	b.WriteString("\n")
	if slices.Contains(engines, "index") && slices.Contains(engines, "scan") {
		b.WriteString(engineAgreement(rs, kinds))
	}
	if withPrime {
		b.WriteString(primeBreakdown(rs))
	}
	return b.String()
}

// engineAgreement says how often the index and the scan answer a query
// alike (issue 39 asks for one scoring rule: the same top 5 for 95% of
// the queries): the same first hit, the same five best as a set, and in
// the same order.
func engineAgreement(rs []queryResult, kinds []string) string {
	var b strings.Builder
	b.WriteString("How often the index and the scan answer alike: the same best hit, the same best five (as a set), and in the same order:\n\n")
	b.WriteString("| queries | n | same best | same five | same five, same order |\n| --- | ---: | ---: | ---: | ---: |\n")
	row := func(name string, sub []queryResult) {
		var top1, set, order int
		for _, r := range sub {
			a, c := r.Ranked["index"], r.Ranked["scan"]
			a5, c5 := a[:min(5, len(a))], c[:min(5, len(c))]
			if len(a5) > 0 && len(c5) > 0 && a5[0] == c5[0] || len(a5) == 0 && len(c5) == 0 {
				top1++
			}
			sa, sc := slices.Sorted(slices.Values(a5)), slices.Sorted(slices.Values(c5))
			if slices.Equal(sa, sc) {
				set++
			}
			if slices.Equal(a5, c5) {
				order++
			}
		}
		n := float64(max(1, len(sub)))
		fmt.Fprintf(&b, "| %s | %d | %.2f | %.2f | %.2f |\n", name, len(sub), float64(top1)/n, float64(set)/n, float64(order)/n)
	}
	for _, k := range kinds {
		var sub []queryResult
		for _, r := range rs {
			if r.Query.Kind == k {
				sub = append(sub, r)
			}
		}
		row(k, sub)
	}
	row("**overall**", rs)
	b.WriteString("\n")
	return b.String()
}

// primeBreakdown says how much prime showed, and, for each kind of entry,
// how often prime showed a relevant entry of that kind to the queries
// that have one.
func primeBreakdown(rs []queryResult) string {
	kinds := []string{"memory", "knowledge", "learning", "journal"}
	shown := map[string]int{}
	have, hit := map[string]int{}, map[string]int{}
	relevant := 0
	for _, r := range rs {
		relevant += len(r.Query.Relevant)
		for _, k := range r.Prime {
			kind, _, _ := strings.Cut(k, ":")
			shown[kind]++
		}
		for _, kind := range kinds {
			want := map[string]bool{}
			for _, id := range r.Query.Relevant {
				if entryKind(id) == kind {
					want[kind+":"+id] = true
				}
			}
			if len(want) == 0 {
				continue
			}
			have[kind]++
			for _, k := range r.Prime {
				if want[k] {
					hit[kind]++
					break
				}
			}
		}
	}
	n := float64(len(rs))
	if n == 0 {
		return ""
	}
	var parts, by []string
	total := 0
	for _, kind := range kinds {
		total += shown[kind]
		parts = append(parts, fmt.Sprintf("%.1f %s", float64(shown[kind])/n, kind))
		if have[kind] > 0 {
			by = append(by, fmt.Sprintf("%s %d of %d (%.0f%%)", kind, hit[kind], have[kind], 100*float64(hit[kind])/float64(have[kind])))
		}
	}
	return fmt.Sprintf("Each query has %.1f relevant entries on average. Prime showed %.1f entries per query (%s). Queries with a relevant entry of a kind for which prime showed one of that kind: %s.\n\n",
		float64(relevant)/n, float64(total)/n, strings.Join(parts, ", "), strings.Join(by, ", "))
}

var learningID = regexp.MustCompile(`^l-[0-9a-f]{6}$`)

// entryKind tells an entry's kind by the shape of its id.
func entryKind(id string) string {
	switch {
	case strings.HasPrefix(id, "mem-"):
		return "memory"
	case strings.Contains(id, "/"):
		return "journal"
	case learningID.MatchString(id):
		return "learning"
	}
	return "knowledge"
}
