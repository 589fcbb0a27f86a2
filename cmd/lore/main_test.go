package main

import (
	"bytes"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"lore/cmd/internal/detach"
	"lore/index/bleveindex"
	"lore/internal/fsx"
	"lore/internal/loretest"
	"lore/progressdb"
)

func TestMain(m *testing.M) {
	testscript.Main(tests{m}, map[string]func(){
		"lore": func() { os.Exit(run(os.Args[1:], systemEnv())) },
		"lore-index": func() {
			exe, _ := os.Executable()
			if err := bleveindex.Serve(os.Stdin, os.Stdout, os.Stderr, bleveindex.ServeOptions{Detach: detach.Detach, Trace: os.Getenv("LORE_TRACE"), Exe: exe}); err != nil {
				os.Exit(1)
			}
			os.Exit(0)
		},
		"lore-sqlite": func() {
			if len(os.Args) != 2 {
				os.Exit(2)
			}
			if err := progressdb.WriteExport(os.Stdout, os.Args[1]); err != nil {
				fmt.Fprintln(os.Stderr, "lore-sqlite:", err)
				os.Exit(1)
			}
			os.Exit(0)
		},
		// sqlite-exec DB FILE… runs the SQL of each file on the database
		// DB (made if missing): how a script makes a progress.db.
		"sqlite-exec": func() {
			db, err := sql.Open("sqlite", os.Args[1])
			for _, f := range os.Args[2:] {
				var text []byte
				if err == nil {
					text, err = os.ReadFile(f)
				}
				if err == nil {
					_, err = db.Exec(string(text))
				}
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "sqlite-exec:", err)
				os.Exit(1)
			}
			db.Close()
			os.Exit(0)
		},
	})
}

// tests runs cmd/lore's tests, with the heap watched (watchHeap), and
// twice as many at a time as there are processors unless -test.parallel
// says otherwise: most of them wait on the processes they start (lore,
// lore-index, git) and on the disk, not on the processor.
type tests struct{ m *testing.M }

func (r tests) Run() int {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
	go watchHeap(3 << 30)
	return r.m.Run()
}

// TestScripts runs cmd/lore/testdata/script/*.txtar: the real lore binary
// next to real git, which checks what lore did.
func TestScripts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       loretest.Updating(), // go test -update rewrites the cmp files
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			gitconfig := "[user]\n\tname = Script Person\n\temail = script@example.com\n[init]\n\tdefaultBranch = main\n"
			if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
				return err
			}
			// Scripts work in $WORK/repo so that fixtures and HOME stay
			// outside the repository lore writes to.
			if err := os.MkdirAll(filepath.Join(env.WorkDir, "repo"), 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("NO_COLOR", "")
			// The index build a first search starts is waited for: it would
			// write into $WORK while testscript removes it.
			env.Setenv("LORE_INDEX_BUILD", "wait")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// envstdout NAME sets $NAME to the last command's trimmed stdout.
			"envstdout": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: envstdout NAME")
				}
				ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
			},
			// indexbuilt waits until the search index a first search left
			// building in the background is built: lore-index holds the
			// index's write lock, which lore took before it exited, until
			// it is.
			"indexbuilt": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 0 {
					ts.Fatalf("usage: indexbuilt")
				}
				unlock, err := fsx.Lock(ts.MkAbs(".git/lore/index/write.lock"), true, time.Minute)
				ts.Check(err)
				unlock()
			},
			// bigfile FILE BYTES [TEXT] writes TEXT (default "word ")
			// over and over into FILE until it holds BYTES bytes: inputs
			// too large for a txtar.
			"bigfile": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 || len(args) > 3 {
					ts.Fatalf("usage: bigfile FILE BYTES [TEXT]")
				}
				n, err := strconv.Atoi(args[1])
				ts.Check(err)
				text := "word "
				if len(args) == 3 {
					text = args[2]
				}
				data := bytes.Repeat([]byte(text), n/len(text)+1)[:n]
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
			},
			// expand FROM TO writes file FROM to TO with $NAME and ${NAME}
			// replaced by the variables' values: a fixture that names
			// files by their absolute path.
			"expand": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: expand FROM TO")
				}
				ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o644))
			},
		},
	})
}
