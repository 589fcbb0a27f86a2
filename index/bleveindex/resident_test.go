package bleveindex

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"lore/index"
)

// residentRun is a Resident run in this process for a test repository,
// with a clock and ticks the test moves.
type residentRun struct {
	r     *testRepo
	exe   string
	ticks chan time.Time
	done  chan error
	// served hears of each request the resident finished with.
	served chan struct{}
	mu     sync.Mutex
	now    time.Time
}

// startResident runs Resident for r's store with exe as its executable
// and returns once it listens; finishing, when set, is its Finishing.
func (r *testRepo) startResident(exe string, finishing ...func()) *residentRun {
	r.t.Helper()
	run := &residentRun{r: r, exe: exe, ticks: make(chan time.Time), done: make(chan error, 1), served: make(chan struct{}, 1), now: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)}
	listening := make(chan struct{})
	go func() {
		run.done <- Resident(index.StoreRequest(r.store, index.OpServe), ResidentOptions{Exe: exe, Ticks: run.ticks, Now: run.clock,
			Listening: func() { close(listening) }, Served: func() { run.served <- struct{}{} }, Finishing: onFinishing(finishing)})
	}()
	select {
	case <-listening:
	case err := <-run.done:
		r.t.Fatalf("the resident did not listen: %v", err)
	}
	r.t.Cleanup(func() {
		if run.gone() {
			return
		}
		if _, err := run.ask(index.OpStop, index.Query{}); err != nil {
			r.t.Errorf("stopping the resident: %v", err)
			return // it goes with the test binary
		}
		run.went()
	})
	return run
}

func (run *residentRun) clock() time.Time {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.now
}

// tick moves the clock by d and lets the resident look whether to go.
func (run *residentRun) tick(d time.Duration) {
	run.mu.Lock()
	run.now = run.now.Add(d)
	run.mu.Unlock()
	select {
	case run.ticks <- run.now:
	case <-run.done:
		run.done <- nil
	}
}

// gone says whether Resident returned, without waiting.
func (run *residentRun) gone() bool {
	select {
	case err := <-run.done:
		run.done <- err
		return true
	default:
		return false
	}
}

// went says whether the resident went after what the test did last: it
// either returns or takes another tick, the clock unmoved.
func (run *residentRun) went() bool {
	select {
	case run.ticks <- run.clock():
		return false
	case err := <-run.done:
		run.done <- err
		return true
	}
}

// ask sends a request of op to the resident, as lore running run.exe,
// and waits for the resident to finish with it.
func (run *residentRun) ask(op string, q index.Query) (index.Response, error) {
	req := index.StoreRequest(run.r.store, op)
	req.Query = q
	resp, err := index.AskResident(req.Dir, run.exe, req)
	if !errors.Is(err, index.ErrNoResident) {
		<-run.served
	}
	return resp, err
}

// search is the resident's answer to q, as hitSet.
func (run *residentRun) search(q index.Query) []string {
	run.r.t.Helper()
	resp, err := run.ask(index.OpSearch, q)
	if err == nil && resp.Error != "" {
		err = errors.New(resp.Error)
	}
	if err != nil {
		run.r.t.Fatal(err)
	}
	return hitSet(*resp.Result)
}

// TestResidentAnswersAsTheScanThroughEdits: a resident lore-index,
// which stamps no file of a small store unless the kernel told it of a
// change, answers as scanning the files does after every kind of edit:
// a file rewritten in place under the same size and mtime (which no
// directory's stamp shows), a file renamed over, a file removed, a new
// directory, memories.md rewritten, and an index rebuilt by another
// process.
func TestResidentAnswersAsTheScanThroughEdits(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.writeDamageStore()
	if _, err := r.index(Options{}).Refresh(); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := r.startResident(exe)
	rnd := rand.New(rand.NewPCG(39, 6))
	// Topics of the same length: a rewrite in place keeps the size.
	sameSize := map[string][]string{}
	for _, w := range damageTopics {
		sameSize[fmt.Sprint(len(w))] = append(sameSize[fmt.Sprint(len(w))], w)
	}
	topicOf := map[int]string{}
	for i := range 300 {
		topicOf[i] = damageTopics[i%len(damageTopics)]
	}
	next := 300
	check := func(round int, what string) {
		t.Helper()
		for _, topic := range damageTopics {
			q := index.Query{Text: topic, Limit: 1000}
			if got, want := run.search(q), r.scanAnswer(q); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("round %d, after %s: %q\nresident %d hits, scan %d:\n%s\n--\n%s", round, what, topic, len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
	check(0, "nothing")
	for round := 1; round <= 30; round++ {
		var what string
		switch round % 6 {
		case 0, 1, 2: // the edit the watch is for
			i := rnd.IntN(300)
			p := r.Path(fmt.Sprintf(".agent/knowledge/entry-%03d.md", i))
			st, err := os.Stat(p)
			if err != nil {
				continue
			}
			mates := sameSize[fmt.Sprint(len(topicOf[i]))]
			topic := mates[rnd.IntN(len(mates))]
			data, _ := os.ReadFile(p)
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt([]byte(strings.Replace(string(data), topicOf[i], topic, 1)), 0)
			f.Close()
			os.Chtimes(p, st.ModTime(), st.ModTime())
			topicOf[i], what = topic, "a rewrite in place"
		case 3:
			i := rnd.IntN(300)
			topic := damageTopics[rnd.IntN(len(damageTopics))]
			r.writeEntry(i, topic)
			topicOf[i], what = topic, "a file renamed over"
		case 4:
			os.Remove(r.Path(fmt.Sprintf(".agent/knowledge/entry-%03d.md", rnd.IntN(300))))
			what = "a file removed"
		case 5:
			dir := r.Path(fmt.Sprintf(".agent/journal/run-%d", round))
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "0001.md"), []byte(fmt.Sprintf("---\niteration: 1\n---\n\nRound %d met a %s.\n", round, damageTopics[round%len(damageTopics)])), 0o644)
			next++
			what = "a new directory"
		}
		check(round, what)
		if round == 10 {
			// Another process rebuilds the index: a new generation.
			if _, err := r.index(Options{}).Rebuild("asked for"); err != nil {
				t.Fatal(err)
			}
			check(round, "a rebuild by another process")
		}
	}
}

// TestResidentGoes: a resident lore-index goes when idle, when its socket
// is removed, when its executable is replaced and when asked; a second
// one for the same store goes at once; and it declines what it does not
// serve.
func TestResidentGoes(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.addMemory("the kestrel hovers over the build farm")
	exe := filepath.Join(t.TempDir(), "lore-index")
	if err := os.WriteFile(exe, []byte("a build of lore-index\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(index.Dir(r.store), index.SocketFile)

	run := r.startResident(exe)
	if st, err := os.Lstat(sock); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v, %v: want mode 0600", st, err)
	}
	if got := run.search(index.Query{Text: "kestrel"}); len(got) != 1 {
		t.Fatalf("hits %v", got)
	}
	// A second resident for the store goes at once, without an error.
	if err := Resident(index.StoreRequest(r.store, index.OpServe), ResidentOptions{Exe: exe, Ticks: make(chan time.Time)}); err != nil {
		t.Fatalf("a second resident: %v", err)
	}
	// Declined: another store, another lore-index, another request.
	other := index.StoreRequest(r.store, index.OpSearch)
	other.Root = t.TempDir()
	for what, req := range map[string]index.Request{"another store": other, "a status": index.StoreRequest(r.store, index.OpStatus)} {
		if _, err := index.AskResident(req.Dir, exe, req); err == nil || !strings.Contains(err.Error(), "declined") {
			t.Errorf("%s: %v, want declined", what, err)
		}
		<-run.served
	}
	req := index.StoreRequest(r.store, index.OpSearch)
	if _, err := index.AskResident(req.Dir, os.Args[0], req); err == nil || !strings.Contains(err.Error(), "another lore-index") {
		t.Errorf("another lore-index: %v, want declined", err)
	}
	<-run.served
	resp, err := run.ask(index.OpPing, index.Query{})
	if err != nil || resp.Resident == nil || resp.Resident.PID != os.Getpid() || resp.Resident.Requests != 1 {
		t.Fatalf("ping: %+v, %v", resp.Resident, err)
	}

	// Idle: not before index.ResidentIdle.
	run.tick(index.ResidentIdle - time.Second)
	if run.went() {
		t.Fatal("gone before it was idle long enough")
	}
	run.tick(time.Second)
	if !run.went() {
		t.Fatal("not gone when idle")
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is left behind: %v", err)
	}
	if _, err := index.AskResident(req.Dir, exe, req); !errors.Is(err, index.ErrNoResident) {
		t.Errorf("asked after it went: %v, want ErrNoResident", err)
	}

	// Its socket removed (the repository removed, say).
	run = r.startResident(exe)
	os.Remove(sock)
	run.tick(time.Second)
	if !run.went() {
		t.Fatal("not gone without its socket")
	}

	// Its executable replaced (installed again).
	run = r.startResident(exe)
	os.WriteFile(exe+".new", []byte("another build of lore-index\n"), 0o755)
	os.Rename(exe+".new", exe)
	run.tick(time.Second)
	if !run.went() {
		t.Fatal("not gone when its executable was replaced")
	}

	// Asked to stop.
	run = r.startResident(exe)
	if resp, err := run.ask(index.OpStop, index.Query{}); err != nil || resp.Resident == nil {
		t.Fatalf("stop: %+v, %v", resp, err)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is there when stop answers: %v", err)
	}
	if !run.went() {
		t.Fatal("not gone when stopped")
	}
}

func onFinishing(fs []func()) func() {
	if len(fs) == 0 {
		return nil
	}
	return fs[0]
}

// TestResidentDeclinesWhileItFinishes: a search that comes while the
// resident finishes an update after answering early is declined (lore
// runs lore-index for it), and the next one, after the update, is
// answered with it.
func TestResidentDeclinesWhileItFinishes(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.addMemory("the kestrel hovers over the build farm")
	if _, err := r.index(Options{}).Refresh(); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var run *residentRun
	var during error
	run = r.startResident(exe, func() {
		req := index.StoreRequest(r.store, index.OpSearch)
		req.Query = index.Query{Text: "kestrel"}
		_, during = index.AskResident(req.Dir, exe, req)
	})
	m := r.addMemory("the kestrel nests on the water tower") // a change: answered early
	if got := run.search(index.Query{Text: "kestrel"}); len(got) != 2 {
		t.Fatalf("hits %v, want both memories", got)
	}
	if during == nil || !strings.Contains(during.Error(), "declined: the resident lore-index is finishing an update") {
		t.Fatalf("a search while it finished: %v, want declined", during)
	}
	got := run.search(index.Query{Text: "water tower"})
	if len(got) != 1 || !strings.HasPrefix(got[0], m.ID+"|") {
		t.Fatalf("after the update: %v", got)
	}
}
