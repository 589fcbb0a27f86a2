package usagelog

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestMain lets the test binary act as another lore process recording
// uses: USAGE_APPEND=dir:n records n uses of "shared" and exits. After
// every pauseEvery uses it writes a line to stdout and waits for one on
// stdin: the test rewrites the log meanwhile.
func TestMain(m *testing.M) {
	if v := os.Getenv("USAGE_APPEND"); v != "" {
		dir, count := filepath.Split(v)
		n, _ := strconv.Atoi(count)
		l := Open(filepath.Clean(dir))
		in := bufio.NewReader(os.Stdin)
		for i := range n {
			if err := l.Record(time.Unix(int64(1000+i), 0), []string{"shared", fmt.Sprintf("p%d-%d", os.Getpid(), i)}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if (i+1)%pauseEvery == 0 {
				fmt.Println(i + 1)
				if _, err := in.ReadString('\n'); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const pauseEvery = 40

func TestRecordAndRead(t *testing.T) {
	l := Open(filepath.Join(t.TempDir(), "lore"))
	if stats, err := l.Read(); err != nil || len(stats) != 0 {
		t.Fatalf("empty log: %v, %v", stats, err)
	}
	t1 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l.Record(t1, []string{"memory:mem-1", "knowledge:setts"})
	l.Record(t1.Add(time.Hour), []string{"memory:mem-1", "journal:run 1/0001"})
	l.Record(t1.Add(time.Minute), nil)
	// A line cut short by a crash is ignored.
	f, _ := os.OpenFile(l.path(), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("17")
	f.Close()
	stats, err := l.Read()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint([]Stat{
		{"journal:run_1/0001", 1, t1.Add(time.Hour)},
		{"memory:mem-1", 2, t1.Add(time.Hour)},
		{"knowledge:setts", 1, t1},
	})
	if fmt.Sprint(stats) != want {
		t.Fatalf("got  %v\nwant %s", stats, want)
	}
}

// Past MaxLogSize the log is rewritten one line per key, counts kept.
func TestCompaction(t *testing.T) {
	defer func(n int64) { MaxLogSize = n }(MaxLogSize)
	MaxLogSize = 200
	l := Open(t.TempDir())
	for i := range 50 {
		if err := l.Record(time.Unix(int64(i), 0), []string{"a", "b"}); err != nil {
			t.Fatal(err)
		}
	}
	info, _ := os.Stat(l.path())
	if info.Size() > MaxLogSize {
		t.Fatalf("log of %d bytes, want compacted", info.Size())
	}
	stats, _ := l.Read()
	if len(stats) != 2 || stats[0].Count != 50 || stats[1].Count != 50 || stats[0].Last.Unix() != 49 {
		t.Fatalf("after compaction: %v", stats)
	}
}

// Processes recording at once, through rewrites: no use is lost.
func TestConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	const procs, uses = 4, 200
	// Rewrites happen meanwhile: the log passes MaxLogSize in the children
	// only at the default size, so the test rewrites it, each time a
	// child has recorded pauseEvery uses (while the others record) and
	// before it goes on.
	l := Open(dir)
	var mu sync.Mutex
	rewrites := 0
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "USAGE_APPEND="+filepath.Join(dir, strconv.Itoa(uses)))
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			out := bufio.NewScanner(stdout)
			for out.Scan() {
				mu.Lock()
				err := l.compact()
				rewrites++
				mu.Unlock()
				if err != nil {
					errs <- err
					break
				}
				fmt.Fprintln(stdin, "go on")
			}
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if rewrites != procs*uses/pauseEvery {
		t.Fatalf("%d rewrites, want %d", rewrites, procs*uses/pauseEvery)
	}
	stats, err := l.Read()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, s := range stats {
		if s.Key == "shared" && s.Count != procs*uses {
			t.Fatalf("shared used %d times, want %d", s.Count, procs*uses)
		}
		total += s.Count
	}
	if total != 2*procs*uses || len(stats) != procs*uses+1 {
		t.Fatalf("%d uses of %d keys, want %d of %d", total, len(stats), 2*procs*uses, procs*uses+1)
	}
}
