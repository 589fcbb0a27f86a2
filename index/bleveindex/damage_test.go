package bleveindex

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"lore/index"
	"lore/index/fresh"
	"lore/internal/loretest"
)

// serveEnv makes this test binary serve one request as lore-index does
// (TestMain), so that tests can search through index.Searcher — lore's
// own path, with lore-index a process of its own.
const serveEnv = "LORE_TEST_SERVE_INDEX"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		if err := Serve(os.Stdin, os.Stdout, os.Stderr, ServeOptions{Trace: os.Getenv("LORE_TRACE")}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	// The tests that open damaged indexes directly (not through Serve)
	// would have bleve log to the test's output.
	log.SetOutput(io.Discard)
	os.Exit(m.Run())
}

var (
	damageRounds = flag.Int("damage.rounds", loretest.Rounds(20, 60), "rounds of TestRandomDamageIsNeverBelieved (20, 60 with LORE_TEST_LONG=1)")
	damageSeed   = flag.Uint64("damage.seed", 15, "seed of TestRandomDamageIsNeverBelieved")
)

// helperEnv is the environment of a Searcher whose lore-index is this
// test binary.
func (r *testRepo) helperEnv() func(string) string {
	r.t.Helper()
	exe, err := os.Executable()
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Setenv(serveEnv, "1") // inherited by the helper process
	return func(k string) string {
		if k == "LORE_INDEX" {
			return exe
		}
		return r.Getenv(k)
	}
}

// bleveLogLine is how a line of Go's standard logger starts, which is how
// bleve and scorch say what they met: none of it is lore's to print.
var bleveLogLine = regexp.MustCompile(`(?m)^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d `)

// hitSet is what a person reads of an answer: each hit's id, title and
// content, in a stable order (the scan and the index may order ties
// differently).
func hitSet(res index.Result) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.EntryID+"|"+h.Title+"|"+h.Content)
	}
	sort.Strings(out)
	return out
}

// damageTopics are the words entries are about: each entry holds one.
var damageTopics = strings.Fields("zeppelin walrus kestrel gondola osprey lantern quartz bagpipe turnip xylophone")

// writeDamageStore writes 300 knowledge entries and 40 memories, each about
// one topic.
func (r *testRepo) writeDamageStore() {
	for i := 0; i < 300; i++ {
		r.writeEntry(i, damageTopics[i%len(damageTopics)])
	}
	var b strings.Builder
	b.WriteString("# Memories\n\n## Patterns\n\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "### mem-17373720%02d-%04x\n> A memory about the %s, number %d.\n<!-- tags: misc | created: 2025-01-20 -->\n\n",
			i, i, damageTopics[(i*3)%len(damageTopics)], i)
	}
	b.WriteString("## Decisions\n\n## Fixes\n\n## Context\n")
	r.Write(".agent/memories.md", b.String())
}

// writeEntry saves knowledge entry i about topic the way editors do: a new
// file renamed over the old one.
func (r *testRepo) writeEntry(i int, topic string) {
	r.t.Helper()
	p := r.Path(fmt.Sprintf(".agent/knowledge/entry-%03d.md", i))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	text := fmt.Sprintf("---\ntitle: \"Entry %d\"\ntags: [\"misc\"]\n---\n\nPlain words about the %s.\n", i, topic)
	if err := os.WriteFile(p+".tmp", []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Rename(p+".tmp", p); err != nil {
		r.t.Fatal(err)
	}
}

// scanAnswer is what scanning the files answers: the oracle.
func (r *testRepo) scanAnswer(q index.Query) []string {
	r.t.Helper()
	docs, _, err := index.LoadDocs(r.Dir)
	if err != nil {
		r.t.Fatal(err)
	}
	res, err := index.NewScan(docs...).Search(q)
	if err != nil {
		r.t.Fatal(err)
	}
	return hitSet(res)
}

// rawAnswers searches the live generation for every topic as bleve alone
// answers, without any check of lore's; ok is false when bleve cannot open
// or search it (or panics, or faults).
func (r *testRepo) rawAnswers(dir string) (answers map[string][]string, ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			answers, ok = nil, false
		}
	}()
	gen, err := New(r.Dir, dir, Options{}).dir.Current()
	if err != nil {
		return nil, false
	}
	x, err := openScorch(filepath.Join(dir, gen), false, time.Second)
	if err != nil {
		return nil, false
	}
	defer x.Close()
	answers = map[string][]string{}
	for _, topic := range damageTopics {
		res, err := x.Search(index.Query{Text: topic})
		if err != nil {
			return nil, false
		}
		answers[topic] = hitSet(res)
	}
	return answers, true
}

// damage does one random harm to the index directory dir and says what.
// olds are earlier versions of the index's files, by name, for putting a
// file back as it was (bleve opens it, but it holds other entries).
func damage(rnd *rand.Rand, dir string, olds map[string][]byte) string {
	var files, dirs []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || p == dir:
		case d.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
		return nil
	})
	// Most harm goes to the files bleve reads.
	var scorchFiles []string
	for _, f := range files {
		if name := filepath.Base(f); name == "root.bolt" || strings.HasSuffix(name, ".zap") {
			scorchFiles = append(scorchFiles, f)
		}
	}
	pick := func(list []string) string { return list[rnd.IntN(len(list))] }
	var f string
	switch n := rnd.IntN(10); {
	case n < 6 && len(scorchFiles) > 0:
		f = pick(scorchFiles)
	case n < 9 && len(files) > 0:
		f = pick(files)
	case n == 9 && rnd.IntN(3) == 0:
		os.RemoveAll(filepath.Dir(dir)) // .git/lore, as a person might
		return "delete " + filepath.Dir(dir)
	case len(dirs) > 0:
		d := pick(dirs)
		os.RemoveAll(d)
		return "delete " + d
	default:
		return "nothing to harm"
	}
	info, err := os.Stat(f)
	if err != nil {
		return "nothing to harm"
	}
	size := info.Size()
	rel := strings.TrimPrefix(f, dir+"/")
	switch op := rnd.IntN(6); {
	case op == 0 && size > 0:
		n := rnd.Int64N(size)
		os.Truncate(f, n)
		return fmt.Sprintf("truncate %s to %d of %d bytes", rel, n, size)
	case op == 1 && size > 0:
		fh, err := os.OpenFile(f, os.O_RDWR, 0)
		if err != nil {
			return "nothing to harm"
		}
		defer fh.Close()
		off := rnd.Int64N(size)
		b := make([]byte, min(1+rnd.Int64N(16), size-off))
		fh.ReadAt(b, off)
		for i := range b {
			b[i] ^= byte(1 + rnd.IntN(255)) // every byte changes
		}
		fh.WriteAt(b, off)
		return fmt.Sprintf("overwrite %d bytes of %s at %d", len(b), rel, off)
	case op == 2:
		garbage := make([]byte, rnd.IntN(int(size)+64))
		for i := range garbage {
			garbage[i] = byte(rnd.IntN(256))
		}
		os.WriteFile(f, garbage, 0o644)
		return fmt.Sprintf("replace %s with %d bytes of garbage", rel, len(garbage))
	case op == 3 && olds[filepath.Base(f)] != nil && !bytes.Equal(olds[filepath.Base(f)], mustRead(f)):
		os.WriteFile(f, olds[filepath.Base(f)], 0o644)
		return "put back an older " + rel
	case op == 4:
		os.WriteFile(filepath.Join(filepath.Dir(f), fmt.Sprintf("junk-%d", rnd.IntN(1000))), []byte("junk"), 0o644)
		return "junk beside " + rel
	}
	os.Remove(f)
	return "delete " + rel
}

func mustRead(p string) []byte {
	data, _ := os.ReadFile(p)
	return data
}

// Issue 15: a damaged index — a segment truncated, overwritten, deleted,
// replaced with garbage or with an older version of itself, root.bolt
// damaged, files or the whole directory gone — is never believed. Each
// round changes an entry now and then, does one random harm to the index,
// asks lore-index for the status, then searches through index.Searcher as
// lore does: every answer is the scan's (the index was sound, or lore
// noticed and rebuilt or bypassed it) or an error, never a wrong answer;
// a status that says fresh is an index whose every answer is right; and
// lore-index prints nothing of bleve's on stderr. It runs 20 rounds, 60
// with LORE_TEST_LONG=1 (or -damage.rounds). Before the seal, the
// 60 rounds of seed 15 gave 25 wrong answers (most "No entries match."),
// 29 statuses that said fresh of an index that answered wrongly, a status
// that panicked (a fault, without the test's SetPanicOnFault) and bleve's
// log lines on stderr in 21 rounds.
func TestRandomDamageIsNeverBelieved(t *testing.T) {
	if testing.Short() {
		t.Skip("runs lore-index some hundred times")
	}
	r := newTestRepo(t)
	r.writeDamageStore()
	getenv := r.helperEnv()
	dir := index.Dir(r.store)
	rnd := rand.New(rand.NewPCG(*damageSeed, 0))
	olds := map[string][]byte{}
	var wrong, failed, statusWrong, statusFailed int
	for round := 0; round < *damageRounds; round++ {
		if rnd.IntN(3) == 0 {
			r.writeEntry(rnd.IntN(300), damageTopics[rnd.IntN(len(damageTopics))])
		}
		// Keep some of the index's files as they are now, to put back
		// later.
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && rnd.IntN(4) == 0 {
				if data, err := os.ReadFile(p); err == nil {
					olds[filepath.Base(p)] = data
				}
			}
			return nil
		})
		harm := damage(rnd, dir, olds)

		// What lore index status asks lore-index (in this process: the
		// search below starts one), a panic or a fault an error.
		st, err := func() (st index.Status, err error) {
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v", p)
				}
			}()
			return r.index(Options{Timeout: 5 * time.Second}).Status()
		}()
		switch {
		case err != nil:
			statusFailed++
			t.Errorf("round %d (%s): status: %v", round, harm, err)
		case st.Fresh:
			raw, ok := r.rawAnswers(dir)
			for _, topic := range damageTopics {
				if want := r.scanAnswer(index.Query{Text: topic}); !ok || !slices.Equal(raw[topic], want) {
					statusWrong++
					t.Errorf("round %d (%s): status says fresh, but the index answers %q with %d hits (opened: %v), the files with %d",
						round, harm, topic, len(raw[topic]), ok, len(want))
					break
				}
			}
		}

		topic := damageTopics[rnd.IntN(len(damageTopics))]
		q := index.Query{Text: topic}
		var stderr bytes.Buffer
		sr := index.NewSearcher(getenv, &stderr)
		a, err := sr.Search(r.store, q)
		sr.Close()
		if err != nil {
			failed++
			t.Logf("round %d (%s): search failed: %v", round, harm, err)
		} else if got, want := hitSet(a.Result), r.scanAnswer(q); !slices.Equal(got, want) {
			wrong++
			t.Errorf("round %d (%s): %q answered with %d hits, the files hold %d; notices %q", round, harm, topic, len(got), len(want), a.Notices)
		}
		if bleveLogLine.MatchString(stderr.String()) || strings.Contains(stderr.String(), "panic") {
			t.Errorf("round %d (%s): lore-index printed on stderr:\n%s", round, harm, stderr.String())
		}
	}
	t.Logf("%d rounds: %d wrong answers, %d failed searches, %d statuses said fresh of a wrong index, %d failed", *damageRounds, wrong, failed, statusWrong, statusFailed)
}

// liveGen is the live generation's name and directory.
func liveGen(t *testing.T, ix *Index) (gen, dir string) {
	t.Helper()
	gen, err := ix.dir.Current()
	if err != nil {
		t.Fatal(err)
	}
	return gen, ix.dir.Generation(gen)
}

// zaps are the segment files of generation directory dir.
func zaps(t *testing.T, dir string) []string {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(dir, "*.zap"))
	if err != nil || len(found) == 0 {
		t.Fatalf("no segment in %s (%v)", dir, err)
	}
	return found
}

// Each kind of damage, one at a time: status says the index is damaged
// and why, the next search rebuilds it (saying why) and answers right,
// and so does a refresh.
func TestDamageIsFoundByStatusSearchAndRefresh(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.writeDamageStore()
	q := index.Query{Text: "kestrel"}
	want := r.scanAnswer(q)
	putBack := 0
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, ix *Index)
		why    string
	}{
		{"a segment truncated", func(t *testing.T, ix *Index) {
			_, dir := liveGen(t, ix)
			os.Truncate(zaps(t, dir)[0], 1000)
		}, "000000000002.zap changed since lore wrote it"},
		{"a segment deleted", func(t *testing.T, ix *Index) {
			_, dir := liveGen(t, ix)
			os.Remove(zaps(t, dir)[0])
		}, "000000000002.zap is missing"},
		{"root.bolt overwritten", func(t *testing.T, ix *Index) {
			_, dir := liveGen(t, ix)
			f, _ := os.OpenFile(filepath.Join(dir, "root.bolt"), os.O_WRONLY, 0)
			f.WriteAt(bytes.Repeat([]byte{0xff}, 64), 4096)
			f.Close()
		}, "root.bolt changed since lore wrote it"},
		{"a segment put back as another generation had it", func(t *testing.T, ix *Index) {
			// bleve opens it, and it holds what the entries were. Each
			// step changes the entry anew: a rebuild of the same entries
			// may write the same bytes, and putting those back is no
			// damage (it failed so once, on a busy machine).
			_, dir := liveGen(t, ix)
			old := mustRead(zaps(t, dir)[0])
			putBack++
			r.writeEntry(7, fmt.Sprintf("kestrel, seen %d times", putBack))
			if _, err := ix.Rebuild("asked for"); err != nil {
				t.Fatal(err)
			}
			_, dir = liveGen(t, ix)
			os.WriteFile(zaps(t, dir)[0], old, 0o644)
			want = r.scanAnswer(q)
		}, "000000000002.zap changed since lore wrote it"},
		{"no seal (a writer died)", func(t *testing.T, ix *Index) {
			gen, _ := liveGen(t, ix)
			os.Remove(ix.dir.Seal(gen))
		}, "it is not sealed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ix := r.index(Options{})
			if _, err := ix.Rebuild("asked for"); err != nil {
				t.Fatal(err)
			}
			for _, step := range []string{"search", "refresh"} {
				c.damage(t, ix)
				st, err := ix.Status()
				if err != nil || st.Fresh || !strings.HasPrefix(st.Damaged, c.why) {
					t.Fatalf("%s: status %+v, %v; want damaged: %s", step, st, err, c.why)
				}
				var rep index.Report
				if step == "search" {
					var res index.Result
					res, rep, err = ix.Search(q)
					if got := hitSet(res); err != nil || !slices.Equal(got, want) {
						t.Fatalf("search of a damaged index: %d hits, %v; want %d", len(got), err, len(want))
					}
				} else {
					rep, err = ix.Refresh()
				}
				if err != nil || !rep.Rebuilt || !strings.HasPrefix(rep.Reason, "the index was damaged: "+c.why) {
					t.Fatalf("%s: report %+v, %v; want a rebuild because %s", step, rep, err, c.why)
				}
				if st, err := ix.Status(); err != nil || !st.Fresh || st.Damaged != "" {
					t.Fatalf("status after the %s: %+v, %v", step, st, err)
				}
			}
		})
	}
}

// A writer does not build on a damaged index: the search that finds a
// changed entry finds the damage first, and rebuilds.
func TestAWriterDoesNotBuildOnADamagedIndex(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.writeDamageStore()
	ix := r.index(Options{})
	ids(t, ix, "osprey")
	_, dir := liveGen(t, ix)
	os.Remove(zaps(t, dir)[0]) // bleve would open an empty index and add to it
	r.writeEntry(3, "osprey")
	q := index.Query{Text: "osprey"}
	res, rep, err := ix.Search(q)
	if err != nil || !rep.Rebuilt || !strings.Contains(rep.Reason, "is missing") {
		t.Fatalf("report %+v, %v; want a rebuild of the damaged index", rep, err)
	}
	if got, want := hitSet(res), r.scanAnswer(q); !slices.Equal(got, want) {
		t.Fatalf("%d hits, want %d", len(got), len(want))
	}
}

// Files copied or touched hold what lore wrote: the index is not rebuilt,
// and the seal learns their new stamps, so that the next search does not
// read them again.
func TestATouchedIndexIsNotRebuilt(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.writeDamageStore()
	ix := r.index(Options{})
	ids(t, ix, "turnip")
	gen, dir := liveGen(t, ix)
	earlier := time.Now().Add(-time.Hour)
	for _, p := range append(zaps(t, dir), filepath.Join(dir, "root.bolt")) {
		os.Chtimes(p, earlier, earlier)
	}
	before, _ := os.ReadFile(ix.dir.Seal(gen))
	q := index.Query{Text: "turnip"}
	res, rep, err := ix.Search(q)
	if err != nil || rep.Rebuilt {
		t.Fatalf("search of a touched index: report %+v, %v; want no rebuild", rep, err)
	}
	if got, want := hitSet(res), r.scanAnswer(q); !slices.Equal(got, want) {
		t.Fatalf("%d hits, want %d", len(got), len(want))
	}
	if now, _ := liveGenName(ix); now != gen {
		t.Fatalf("generation %s, was %s", now, gen)
	}
	after, _ := os.ReadFile(ix.dir.Seal(gen))
	if bytes.Equal(before, after) {
		t.Fatal("the seal still holds the stamps from before the touch")
	}
	s, err := fresh.ReadSeal(ix.dir.Seal(gen))
	if err != nil {
		t.Fatal(err)
	}
	if restamped, err := s.Check(dir, false); err != nil || restamped {
		t.Fatalf("check after the search: %v, restamped %v", err, restamped)
	}
}

func liveGenName(ix *Index) (string, error) { return ix.dir.Current() }

// bolt and zap panic, or fault, on bytes they do not expect: an error,
// never a crash.
func TestBleveFailuresAreErrors(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.writeDamageStore()
	ix := r.index(Options{})
	ids(t, ix, "quartz")
	_, dir := liveGen(t, ix)
	bolt := filepath.Join(dir, "root.bolt")
	data := mustRead(bolt)
	failed := 0
	for n := 4096; n < len(data); n += 4096 {
		os.WriteFile(bolt, data[:n], 0o644)
		if x, err := openScorch(dir, false, time.Second); err != nil {
			failed++
		} else {
			x.Search(index.Query{Text: "quartz"}) // must not panic either
			x.Close()
		}
	}
	if failed == 0 {
		t.Fatal("no truncation of root.bolt failed to open")
	}
}

// Serve sends the standard logger, which bleve writes to, to the trace
// and never to stderr.
func TestServeKeepsBleveQuiet(t *testing.T) {
	r := newTestRepo(t)
	r.writeDamageStore()
	defer log.SetOutput(io.Discard)
	traceFile := filepath.Join(t.TempDir(), "trace")
	req := index.StoreRequest(r.store, index.OpStatus)
	req.Protocol = index.Protocol
	in, _ := json.Marshal(req)
	var stdout, stderr bytes.Buffer
	if err := Serve(bytes.NewReader(in), &stdout, &stderr, ServeOptions{Trace: traceFile}); err != nil {
		t.Fatal(err)
	}
	log.Printf("unable to load snapshot, continuing")
	if stderr.Len() != 0 {
		t.Fatalf("stderr: %q", stderr.String())
	}
	if got := string(mustRead(traceFile)); !strings.Contains(got, "bleve: unable to load snapshot, continuing\n") {
		t.Fatalf("trace:\n%s", got)
	}
}
