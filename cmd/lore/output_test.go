package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

func TestTerminalSafeShowsControlCharactersInsteadOfObeyingThem(t *testing.T) {
	var b bytes.Buffer
	w := &terminalSafe{w: &b}
	in := "title \x1b]0;pwned\x07 clear \x1b[2J back\b\r over \x7f csi \u009b31m tab\tend\n"
	if n, err := w.Write([]byte(in)); err != nil || n != len(in) {
		t.Fatalf("wrote %d, %v", n, err)
	}
	want := `title \x1b]0;pwned\x07 clear \x1b[2J back\x08\x0d over \x7f csi \x9b31m tab` + "\tend\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	p := newPrinter(&b, &b, true)
	p.out.Write([]byte(p.paint(ansiYellow, "mem-1-abcd") + " plain ✓\n"))
	if b.String() != "\x1b[33mmem-1-abcd\x1b[0m plain ✓\n" {
		t.Errorf("colours: %q", b.String())
	}
}

// An escape sequence in a memory is shown by list and show, never sent to
// the terminal as it is.
func TestListShowsEscapeSequencesOfContent(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	e, stdout, stderr := testEnv(dir)
	e.getenv = func(k string) string {
		switch k {
		case "HOME":
			return dir
		case "GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME":
			return "T"
		case "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL":
			return "t@example.com"
		case "LORE_INDEX_BUILD":
			return "wait"
		}
		return ""
	}
	if code := run([]string{"add", "set the title \x1b]0;pwned\x07 then \x1b[2J", "--format", "quiet"}, e); code != exitOK {
		t.Fatalf("add: %d\n%s", code, stderr)
	}
	id := strings.TrimSpace(stdout.String())
	for _, args := range [][]string{{"list"}, {"show", id}, {"search", "title"}} {
		stdout.Reset()
		if code := run(append(args, "--color", "always"), e); code != exitOK {
			t.Fatalf("%v: %d\n%s", args, code, stderr)
		}
		if strings.Contains(stdout.String(), "\x07") || strings.Contains(stdout.String(), "\x1b]") || strings.Contains(stdout.String(), "\x1b[2J") {
			t.Errorf("%v sent the content's escape sequences to the terminal: %q", args, stdout.String())
		}
		if !strings.Contains(stdout.String(), `\x1b`) && args[0] != "search" {
			t.Errorf("%v does not show the escape: %q", args, stdout.String())
		}
	}
}
