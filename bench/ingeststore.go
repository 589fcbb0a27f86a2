package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// benchIngestStore times `lore ingest` of one realistic agent output (a
// journal note, two knowledge entries, two learnings, a failure report and
// a failed task) in a store of n entries, against the same result by hand
// in an identical repository: copying the files lore wrote in that run and
// `git add -A .agent && git commit`. Both repositories are built from the
// same corpus (one generated, the other a copy of it) and then see the
// same changes, so the baseline does the same git work lore does: the same
// new and changed files, of the same sizes, in a repository of the same
// size.
func benchIngestStore(args []string) error {
	fs := flag.NewFlagSet("ingest-store", flag.ExitOnError)
	sizes := fs.String("sizes", "1000,100000", "entries in each store (comma-separated)")
	runsFlag := fs.String("runs", "9", "timed runs of each command per store: one number for every size, or one per size (comma-separated)")
	write := fs.String("write", "", "replace the ingest-store section of this Markdown file with the results")
	keep := fs.Bool("keep", false, "keep the generated repositories")
	fs.Parse(args)
	sizeList := strings.Split(*sizes, ",")
	runList := strings.Split(*runsFlag, ",")
	if len(runList) != 1 && len(runList) != len(sizeList) {
		return fmt.Errorf("-runs gives %d numbers for %d sizes", len(runList), len(sizeList))
	}
	runsOf := make([]int, len(sizeList))
	for i := range sizeList {
		r, err := strconv.Atoi(strings.TrimSpace(runList[i%len(runList)]))
		if err != nil || r < 1 || r+1 > ingestStories {
			return fmt.Errorf("bad -runs %q: each must be between 1 and %d (the outputs tell %d different stories, one of them for the warm-up)", runList[i%len(runList)], ingestStories-1, ingestStories)
		}
		runsOf[i] = r
	}

	work, err := os.MkdirTemp("", "lore-bench-ingest-store-")
	if err != nil {
		return err
	}
	if !*keep {
		defer os.RemoveAll(work)
	} else {
		fmt.Fprintln(os.Stderr, "keeping", work)
	}
	lore, err := buildLore(filepath.Join(work, "bin"))
	if err != nil {
		return err
	}
	var out strings.Builder
	fmt.Fprintf(&out, "Whole-process `lore ingest <output> --task T-n --duration 42` of one agent output (prose, a multi-line `<journal>` note with a code block, two `<knowledge>`, two `<learning>`, a `<failure-report>` with all five fields, `<task-failed>`; new titles and bodies each run) in a store of n entries (memories 10%%, knowledge 15%%, learnings 25%%, journal 50%%), against writing the same files into an identical repository and `git add -A .agent && git commit -q -m m`; paired runs, lore then git, after a warm-up pair; medians (%s, %d cores shared with other work, %s, git %s).\n\n",
		runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"), gitVersion())
	fmt.Fprintf(&out, "Command: `go run ./bench ingest-store -sizes %s -runs %s -write BENCHMARKS.md`\n\n", *sizes, *runsFlag)
	out.WriteString("| entries | pairs | lore ingest median | lore min | copy + git add + commit median | git min | lore / git |\n")
	out.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for si, s := range sizeList {
		runs := runsOf[si]
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("bad size %q", s)
		}
		start := time.Now()
		a, b := filepath.Join(work, fmt.Sprintf("lore-%d", n)), filepath.Join(work, fmt.Sprintf("git-%d", n))
		if _, err := generateTwins(a, b, n, lore); err != nil {
			return err
		}
		env := benchEnv(work)
		// lore's state warm: the search index and the entries cache exist.
		if _, err := timeRun(a, env, lore, "search", "x"); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "built two stores of %d entries in %s\n", n, time.Since(start).Round(time.Second))
		loreTimes, gitTimes, _, err := measureIngest(a, b, work, runs, env, lore, nil)
		if err != nil {
			return err
		}
		l, g := median(loreTimes), median(gitTimes)
		row := fmt.Sprintf("| %d | %d | %s | %s | %s | %s | %.2f× |\n", n, runs, ms(l), ms(minimum(loreTimes)), ms(g), ms(minimum(gitTimes)), float64(l)/float64(g))
		fmt.Fprint(os.Stderr, row)
		out.WriteString(row)
		if !*keep {
			os.RemoveAll(a)
			os.RemoveAll(b)
		}
	}
	out.WriteString("\nTarget (issue 18): ≤ 1.0× at 100k entries.\n")
	fmt.Print(out.String())
	if *write != "" {
		return replaceSection(*write, "ingest-store", out.String())
	}
	return nil
}

// generateTwins generates a store of n entries at a and an identical
// repository at b, a copy of it (files, objects and index alike; cheaper
// than generating it again), and prepares both as a clone would be.
func generateTwins(a, b string, n int, lore string) (corpus, error) {
	c, err := generateCorpus(a, n, int64(n))
	if err != nil {
		return corpus{}, err
	}
	if err := runIn(filepath.Dir(a), benchEnv(filepath.Dir(a)), "cp", "-a", a, b); err != nil {
		return corpus{}, err
	}
	for _, dir := range []string{a, b} {
		if err := prepareStore(dir, lore); err != nil {
			return corpus{}, err
		}
	}
	return c, nil
}

// measureIngest times lore ingest of realisticOutput(k) in the store a
// against copying the files it committed into b, its twin, and `git add
// -A .agent && git commit`, runs pairs after a warm-up pair (k = 0), and
// checks after each pair that a and b hold the same .agent/. Outputs and
// copies go under work. With prime, it times that prime right after each
// ingest too (the loop's next step), and again at once: after[0] and
// after[1].
func measureIngest(a, b, work string, runs int, env []string, lore string, prime []string) (loreTimes, gitTimes []time.Duration, after [2][]time.Duration, err error) {
	fail := func(err error) ([]time.Duration, []time.Duration, [2][]time.Duration, error) {
		return nil, nil, after, err
	}
	if runs+1 > ingestStories {
		return fail(fmt.Errorf("%d runs of ingest: the outputs tell %d different stories, one of them for the warm-up", runs, ingestStories))
	}
	name := filepath.Base(a)
	for i := -1; i < runs; i++ {
		k := i + 1 // the warm-up is run 0
		output := filepath.Join(work, fmt.Sprintf("output-%s-%d.txt", name, k))
		if err := os.WriteFile(output, []byte(realisticOutput(k)), 0o644); err != nil {
			return fail(err)
		}
		tLore, err := timeRun(a, env, lore, "ingest", output, "--task", fmt.Sprintf("T-%d", k), "--duration", "42")
		if err != nil {
			return fail(err)
		}
		var tPrimes [2]time.Duration
		for j := range tPrimes {
			if prime == nil {
				break
			}
			if tPrimes[j], err = timeRun(a, env, lore, prime...); err != nil {
				return fail(err)
			}
		}
		stage := filepath.Join(work, fmt.Sprintf("stage-%s-%d", name, k))
		changed, deleted, err := stageCommit(a, env, stage)
		if err != nil {
			return fail(err)
		}
		if changed != 5 || len(deleted) != 0 {
			return fail(fmt.Errorf("run %d: lore ingest wrote %d files and deleted %d; want 5 new ones (journal, 2 knowledge, 2 learnings)", k, changed, len(deleted)))
		}
		start := time.Now()
		for _, p := range deleted {
			if err := os.Remove(filepath.Join(b, p)); err != nil {
				return fail(err)
			}
		}
		if err := runIn(b, env, "cp", "-r", filepath.Join(stage, ".agent"), b); err != nil {
			return fail(err)
		}
		if err := runIn(b, env, "git", "add", "-A", ".agent"); err != nil {
			return fail(err)
		}
		if err := runIn(b, env, "git", "commit", "-q", "-m", "m"); err != nil {
			return fail(err)
		}
		tGit := time.Since(start)
		if err := sameTrees(a, b, env); err != nil {
			return fail(err)
		}
		os.RemoveAll(stage)
		os.Remove(output)
		if i >= 0 {
			loreTimes, gitTimes = append(loreTimes, tLore), append(gitTimes, tGit)
			if prime != nil {
				after[0], after[1] = append(after[0], tPrimes[0]), append(after[1], tPrimes[1])
			}
		}
		fmt.Fprintf(os.Stderr, "  %s, ingest run %d: lore %s, git %s, %d files\n", name, k, ms(tLore), ms(tGit), changed+len(deleted))
	}
	return loreTimes, gitTimes, after, nil
}

// prepareStore initialises lore in a generated store and packs the
// objects as a clone would have them.
func prepareStore(dir string, lore string) error {
	env := benchEnv(filepath.Dir(dir))
	for _, s := range [][]string{
		{"git", "config", "maintenance.auto", "false"},
		{lore, "init"},
		{"git", "repack", "-adq"},
		{"git", "prune-packed"},
		{"git", "status", "--porcelain"}, // refresh the index once, as a working copy would be
	} {
		if err := runIn(dir, env, s[0], s[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// stageCommit copies the files HEAD added or changed in dir under stage,
// at the same paths, and returns how many there are and the paths HEAD
// deleted.
func stageCommit(dir string, env []string, stage string) (changed int, deleted []string, err error) {
	files, deleted, err := headChanges(dir, env)
	if err != nil {
		return 0, nil, err
	}
	for path, content := range files {
		if !strings.HasPrefix(path, ".agent/") {
			return 0, nil, fmt.Errorf("lore changed %s, outside .agent/", path)
		}
		p := filepath.Join(stage, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return 0, nil, err
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			return 0, nil, err
		}
	}
	return len(files), deleted, nil
}

// headChanges returns the files HEAD added or changed in dir (path and
// content) and the paths it deleted: what lore committed last, to commit
// again by hand elsewhere.
func headChanges(dir string, env []string) (files map[string][]byte, deleted []string, err error) {
	cmd := exec.Command("git", "diff", "--name-status", "--no-renames", "-z", "HEAD~1", "HEAD")
	cmd.Dir, cmd.Env = dir, env
	list, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("git diff in %s: %v", dir, err)
	}
	files = map[string][]byte{}
	fields := strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		status, path := fields[i], fields[i+1]
		if status == "D" {
			deleted = append(deleted, path)
			continue
		}
		show := exec.Command("git", "show", "HEAD:"+path)
		show.Dir, show.Env = dir, env
		content, err := show.Output()
		if err != nil {
			return nil, nil, fmt.Errorf("git show HEAD:%s: %v", path, err)
		}
		files[path] = content
	}
	if len(files) == 0 && len(deleted) == 0 {
		return nil, nil, fmt.Errorf("lore committed nothing in %s", dir)
	}
	return files, deleted, nil
}

// sameTrees checks that the two repositories hold the same .agent/ after
// a run, so that the next run starts from identical stores.
func sameTrees(a, b string, env []string) error {
	var trees [2][]byte
	for i, dir := range []string{a, b} {
		cmd := exec.Command("git", "rev-parse", "HEAD:.agent")
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("git rev-parse HEAD:.agent in %s: %v", dir, err)
		}
		trees[i] = out
	}
	if !bytes.Equal(trees[0], trees[1]) {
		return fmt.Errorf("the two stores differ after the run: %s vs %s", bytes.TrimSpace(trees[0]), bytes.TrimSpace(trees[1]))
	}
	return nil
}

// ingestStories is how many runs realisticOutput tells apart.
const ingestStories = 7 * 5 * 3

// The pieces of realisticOutput. Run k takes area k%7, symptom k%5 and
// habit k%3: no two of the first 105 runs tell the same story, and each
// learning is made of three of these pieces, so that two runs' learnings
// share at most two of them — well under the 80% of words that makes a
// near-duplicate — and every run records new entries.
var (
	ingestAreas = []struct{ pkg, file, fn, test, feature, note, structure string }{
		{"billing", "billing/invoice.go", "Invoice.Finalize", "TestFinalizeProratesUpgrades", "prorated upgrades on annual plans",
			"In billing, amounts are integer cents and proration rounds half-even; comparing floats in assertions hides off-by-one-cent errors in annual plan upgrades.",
			"Invoice.Finalize mixes tax lookup, proration and persistence in one function of 180 lines; the proration belongs in a pure helper that takes the plan change and returns line items."},
		{"webhooks", "webhooks/dispatch.go", "Dispatcher.Deliver", "TestDeliverRetriesOn429", "retries for rate-limited webhook deliveries",
			"In webhooks, the dispatcher owns retries with exponential backoff and jitter; handlers must be idempotent because a delivery can arrive twice after a 429.",
			"Dispatcher.Deliver builds its own HTTP client and sleeps between attempts, so nothing about the retry policy can be tested without waiting; inject a clock and a transport."},
		{"auth", "auth/session.go", "Store.Refresh", "TestRefreshRotatesToken", "refresh-token rotation",
			"In auth, refresh tokens rotate on every use and the old one is revoked inside the same transaction, so concurrent refreshes from two browser tabs must be serialised.",
			"Store.Refresh reaches into the SQL layer directly instead of going through the token repository, which is why the rotation logic exists twice and the copies have drifted apart."},
		{"search", "search/query.go", "Parse", "TestParseQuotedPhrases", "quoted phrases in the search box",
			"In search, the query parser tokenises before it lowercases, so quoted phrases keep their case until the analyzer runs; escaping happens only in the lexer.",
			"Parse is a hand-written recursive descent parser whose lexer state leaks into the caller through package globals; a Lexer value passed down explicitly would make it reentrant."},
		{"export", "export/csv.go", "Writer.WriteRow", "TestWriteRowEscapesNewlines", "CSV export of multi-line notes",
			"In export, the CSV writer streams rows straight to the HTTP response; buffering a whole export in memory once brought down a pod for a large tenant.",
			"Writer.WriteRow formats dates, money and free text itself; moving the formatting into per-column encoders registered once keeps the writer a thin loop over encoding/csv."},
		{"scheduler", "scheduler/cron.go", "Next", "TestNextAcrossDST", "cron schedules across daylight-saving changes",
			"In scheduler, cron expressions are evaluated in the tenant's time zone and stored in UTC, so daylight-saving transitions skip or repeat an hour of jobs.",
			"Next calls time.Now and time.LoadLocation internally; taking the current instant and the location as arguments turns every daylight-saving case into a plain table test."},
		{"uploads", "uploads/multipart.go", "Handler.ServeHTTP", "TestLargeUploadStreams", "streaming of uploads over 100 MB",
			"In uploads, multipart bodies are streamed to object storage in 8 MB parts; reading a part into memory to compute its checksum defeats the streaming.",
			"Handler.ServeHTTP parses the multipart form, checks quotas and talks to object storage; the storage client should sit behind a small interface so tests need no bucket."},
	}
	ingestSymptoms = []struct{ what, why, category, trace, lessonCategory, lesson string }{
		{"the test passes alone but fails under -race with a data race on the shared client",
			"the fixture reuses one http.Client whose Transport the test mutates from two goroutines",
			"test_failure", "WARNING: DATA RACE\nWrite at 0x00c0001a2b40 by goroutine 31:\n  net/http.(*Transport).RoundTrip()\n      /usr/local/go/src/net/http/transport.go:548 +0x2c4",
			"testing_strategy", "Tests that share an http.Client or its Transport across subtests race as soon as one of them sets a timeout or a proxy; build the client inside each subtest and let the race detector prove it."},
		{"the integration suite times out after 10m waiting for the Postgres container",
			"the testcontainers image pins postgres:13, which the CI runners no longer pull",
			"dependency_error", "panic: test timed out after 10m0s\n\ngoroutine 12 [select]:\ngithub.com/testcontainers/testcontainers-go.(*DockerContainer).Start(0xc000312000)",
			"pitfall", "Pin container images by digest in integration tests, not by a floating major tag: registries retire old tags and the suite then hangs pulling the image until the ten-minute test timeout kills it."},
		{"the golden file differs only in the order of two map keys",
			"encoding/json sorts keys but the template ranges over a map and renders them in random order",
			"test_failure", "--- FAIL: TestRenderGolden (0.02s)\n    golden.go:41: output differs from testdata/invoice.golden:\n        -  \"amount\": 1200,\n        +  \"currency\": \"EUR\",",
			"testing_strategy", "Golden files must be rendered deterministically: sort map keys before a template ranges over them, and regenerate goldens with -update only after reading the diff line by line."},
		{"go vet reports a copied lock in the new helper",
			"the helper takes the config struct by value and the struct embeds a sync.Mutex",
			"build_error", "./config.go:88:14: call of apply copies lock value: Config contains sync.Mutex\nFAIL\tgithub.com/acme/app/internal/config [build failed]",
			"pitfall", "A struct that embeds sync.Mutex must only travel by pointer; go vet's copylocks check catches the copy, so run go vet on every package before pushing rather than waiting for CI."},
		{"the migration applies locally but fails on the staging snapshot",
			"staging still has rows with a NULL tenant_id that the new NOT NULL constraint rejects",
			"environment_error", "ERROR:  column \"tenant_id\" of relation \"events\" contains null values\nSQLSTATE 23502\nmigrate: 0042_events_tenant_not_null.up.sql failed",
			"pitfall", "Before adding a NOT NULL constraint, count the NULL rows on a staging snapshot and backfill them in a separate migration; the constraint migration then stays fast and reversible."},
	}
	ingestHabits = []struct{ tool, process string }{
		{"Reproducing it took go test -run with the exact test name, -count=1 to bypass the test cache, and -v to see the order in which the subtests ran.",
			"Writing the failing test first would have shown the problem before the refactor started, not after an hour of unrelated edits."},
		{"git bisect run with the failing test as its script found the commit that introduced it in six steps; exit status 125 skips commits that do not build.",
			"Splitting the work into a refactoring commit and a behaviour commit would have made the review smaller and the bisect exact."},
		{"Printing the Go version, TZ, locale and container image digest at the start of the CI job made the difference between the laptop and the runner obvious.",
			"A table-driven test with one row per edge case kept the new behaviour readable and made the missing case stand out in review."},
	}
)

// realisticOutput is what an agent might print at the end of an iteration
// that failed: prose, a journal note of several lines with a code block,
// two knowledge entries, two learnings, a full failure report and the
// task sigil. Run k's titles and bodies are its own (for k < 105).
func realisticOutput(k int) string {
	a := ingestAreas[k%len(ingestAreas)]
	s := ingestSymptoms[k%len(ingestSymptoms)]
	h := ingestHabits[k%len(ingestHabits)]
	task := fmt.Sprintf("T-%d", k)
	test := strings.TrimSuffix(a.file, ".go") + "_test.go"
	var b strings.Builder
	fmt.Fprintf(&b, "I picked up %s: add %s in the %s package.\n\n", task, a.feature, a.pkg)
	fmt.Fprintf(&b, "I read %s and its tests first. %s is where the change belongs; I added the new case there, kept the public signature, and wrote %s to cover it. The package's tests pass, but %s, so I am stopping here rather than papering over it.\n\n", a.file, a.fn, a.test, s.what)
	fmt.Fprintf(&b, "<journal>\nAttempt on %s (%s), run %d.\n\n", task, a.feature, k)
	fmt.Fprintf(&b, "- read %s and %s\n- changed %s to handle the new case; no API change\n- added %s\n- ran `go test ./%s/...`: passes; ran the full suite as CI does: fails\n\n", a.file, test, a.fn, a.test, a.pkg)
	fmt.Fprintf(&b, "The failure, as CI prints it:\n\n```\n%s\n```\n\nNext: %s.\n</journal>\n\n", s.trace, fixFor(s.category))
	fmt.Fprintf(&b, "<knowledge title=\"How %s in %s works (%s)\" tags=\"%s,architecture\">\n%s %s is called once per request and owns the transaction; helpers below it must not open their own. The feature flag for %s is read at start-up, so tests set it through the fixture, not the environment.\n</knowledge>\n\n",
		a.fn, a.pkg, task, a.pkg, a.note, a.fn, a.feature)
	fmt.Fprintf(&b, "<knowledge title=\"CI quirk %d: %s\" tags=\"ci,%s\">\nIn CI %s. The cause: %s. Until that is fixed, reproduce it locally with the same container image and `-count=1`; the test cache hides it otherwise.\n</knowledge>\n\n",
		k, s.category, strings.ReplaceAll(s.category, "_", "-"), s.what, s.why)
	fmt.Fprintf(&b, "<learning category=\"%s\" tags=\"%s,testing\">%s %s %s</learning>\n\n", s.lessonCategory, a.pkg, s.lesson, a.note, h.tool)
	fmt.Fprintf(&b, "<learning category=\"code_structure\" tags=\"%s,design\">%s This run failed because %s. %s</learning>\n\n", a.pkg, a.structure, s.why, h.process)
	fmt.Fprintf(&b, "<failure-report>\nwhat_tried: Implemented %s in %s and added %s; ran the package tests, then the full suite as CI does.\nwhy_failed: %s.\nerror_category: %s\nrelevant_files: %s, %s, .github/workflows/ci.yml\nstack_trace:\n%s\n</failure-report>\n\n",
		a.feature, a.fn, a.test, s.why, s.category, a.file, test, s.trace)
	fmt.Fprintf(&b, "<task-failed>%s</task-failed>\n", task)
	return b.String()
}

// printIngestOutput prints run k's output, to ingest or profile by hand:
// go run ./bench ingest-output 7 > out.txt
func printIngestOutput(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: go run ./bench ingest-output K")
	}
	k, err := strconv.Atoi(args[0])
	if err != nil || k < 0 {
		return fmt.Errorf("bad run number %q", args[0])
	}
	fmt.Print(realisticOutput(k))
	return nil
}

func fixFor(category string) string {
	switch category {
	case "dependency_error":
		return "pin the image by digest and rerun the integration suite"
	case "build_error":
		return "pass the struct by pointer and rerun go vet"
	case "environment_error":
		return "backfill the NULL rows in a separate migration before adding the constraint"
	}
	return "make the fixture deterministic and rerun with -race -count=3"
}
