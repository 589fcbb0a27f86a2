package secrets

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testdataLine is one line of a testdata file that is neither blank nor a
// comment.
type testdataLine struct {
	number int    // 1-based line in the file
	start  int    // byte offset of the line in the file
	text   string // without its newline
}

// readTestdata returns the file's contents and its lines that are neither
// blank nor comments.
func readTestdata(t testing.TB, name string) (string, []testdataLine) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	content := string(b)
	var lines []testdataLine
	offset := 0
	for i, text := range strings.SplitAfter(content, "\n") {
		start := offset
		offset += len(text)
		text = strings.TrimSuffix(text, "\n")
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		lines = append(lines, testdataLine{number: i + 1, start: start, text: text})
	}
	return content, lines
}

// TestCredentials checks each line of testdata/credentials.txt,
// "<rule-id> <text>", yields exactly that rule, at that line, on a secret
// that is a whole value, and that Redact removes it and keeps the rest of
// the line. The file is scanned whole, so Line is checked across lines.
func TestCredentials(t *testing.T) {
	content, lines := readTestdata(t, "credentials.txt")
	byLine := make(map[int][]Finding)
	for _, f := range Scan(content) {
		byLine[f.Line] = append(byLine[f.Line], f)
	}
	for _, l := range lines {
		wantRule, _, _ := strings.Cut(l.text, " ")
		got := byLine[l.number]
		if len(got) != 1 || got[0].Rule != wantRule {
			t.Errorf("line %d: got %v, want one %s finding\n\t%s", l.number, rulesOf(got), wantRule, l.text)
			continue
		}
		f := got[0]
		if f.Column != f.Start-l.start+1 {
			t.Errorf("line %d: Column %d, but Start %d is column %d", l.number, f.Column, f.Start, f.Start-l.start+1)
		}
		if f.Description == "" {
			t.Errorf("line %d: %s finding has no description", l.number, f.Rule)
		}
		col := f.Column - 1
		end := col + f.End - f.Start
		if end > len(l.text) {
			t.Errorf("line %d: secret runs past the line", l.number)
			continue
		}
		before, secret, after := l.text[:col], l.text[col:end], l.text[end:]
		if !endsValue(before, after) {
			t.Errorf("line %d: secret %q is not a whole value: %q before it, %q after", l.number, secret, lastByte(before), after)
		}

		redacted, findings := Redact(l.text)
		if len(findings) != 1 || findings[0].Rule != wantRule || findings[0].Line != 1 || findings[0].Column != f.Column {
			t.Errorf("line %d alone: Redact found %v", l.number, findings)
			continue
		}
		if want := before + "[REDACTED:" + wantRule + "]" + after; redacted != want {
			t.Errorf("line %d: Redact gave\n\t%s\nwant\n\t%s", l.number, redacted, want)
		}
		if again := Scan(redacted); len(again) != 0 {
			t.Errorf("line %d: redacted line still holds %v", l.number, rulesOf(again))
		}
	}
}

// TestCredentialBeforeATag checks that a secret written right before a
// tag, as agents write sigils ("<journal>used sk_live_…</journal>"), or
// before the punctuation that ends a sentence, a list item or a
// parenthesis, is found as it is at the end of a text: each line of
// testdata/credentials.txt whose secret is found when the line is cut
// where the secret ends is wrapped, so cut, in a <task-failed> tag, and
// followed by '.', ',', ')', ']' and '}'. A rule whose alphabet holds the
// character may take it into the secret (the generic rule takes the '.').
func TestCredentialBeforeATag(t *testing.T) {
	_, lines := readTestdata(t, "credentials.txt")
	wrappers := [][2]string{{"<task-failed>", "</task-failed>"}, {"", "."}, {"", ", and more"}, {"(", ")"}, {"[", "]"}, {"{", "}"}}
	for _, l := range lines {
		_, text, _ := strings.Cut(l.text, " ")
		found := Scan(text)
		if len(found) != 1 {
			continue // TestCredentials reports it
		}
		cut := text[:found[0].End]
		atEnd := Scan(cut)
		if len(atEnd) != 1 {
			continue // the rule wants more after the secret (user:password@host)
		}
		// As it is found at the end of a text: a quoted value cut before
		// its closing quote is another rule's (secret-assignment's).
		wantRule := atEnd[0].Rule
		secret := cut[atEnd[0].Start:atEnd[0].End]
		for _, w := range wrappers {
			wrapped := w[0] + cut + w[1]
			got := Scan(wrapped)
			if len(got) != 1 {
				t.Errorf("line %d: in %q found %s, want %s «%s»", l.number, wrapped, describe(wrapped, got), wantRule, secret)
				continue
			}
			g := wrapped[got[0].Start:got[0].End]
			exact := g == secret && got[0].Rule == wantRule
			// A longer match of a rule whose alphabet holds the
			// punctuation (a bearer token's '.') still covers the secret.
			covers := w[0] != "<task-failed>" && strings.HasPrefix(g, secret) && strings.HasPrefix(w[1], g[len(secret):])
			if !exact && !covers {
				t.Errorf("line %d: in %q found %s «%s», want %s «%s»", l.number, wrapped, got[0].Rule, g, wantRule, secret)
			}
		}
	}
}

// endsValue reports whether a secret between before and after stands alone
// as a value: it starts the text after the rule id, or follows a space,
// quote, operator or bracket, and it ends the line or is followed by one.
func endsValue(before, after string) bool {
	okBefore := strings.HasSuffix(before, " ") || strings.ContainsAny(lastByte(before), "\t\"'`=:(,>")
	okAfter := after == "" || strings.ContainsAny(after[:1], " \t\"'`;,)<\\@&")
	return okBefore && okAfter
}

func lastByte(s string) string {
	if s == "" {
		return ""
	}
	return s[len(s)-1:]
}

func rulesOf(findings []Finding) []string {
	var ids []string
	for _, f := range findings {
		ids = append(ids, f.Rule)
	}
	return ids
}

// TestEveryRuleHasACredential keeps testdata/credentials.txt complete.
func TestEveryRuleHasACredential(t *testing.T) {
	_, lines := readTestdata(t, "credentials.txt")
	covered := make(map[string]bool)
	for _, l := range lines {
		id, _, _ := strings.Cut(l.text, " ")
		covered[id] = true
	}
	for _, r := range rules {
		if !covered[r.id] {
			t.Errorf("rule %s has no line in testdata/credentials.txt", r.id)
		}
	}
}

// TestDocument checks positions in a document of several lines, with a
// private key that spans lines.
func TestDocument(t *testing.T) {
	const (
		pat = "ghp_Q3vW8kZr1TbX6nLp0YcJ5mHs2GdF9aEuRi7o"
		key = "-----BEGIN OPENSSH PRIVATE KEY-----\n" +
			"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" +
			"QyNTUxOQAAACDq7Rk2mZ4vX9pLc0aTq3bN8sWf1yHj6uKe5oGd2rBxQAAAAJjR5fQy0eX0\n" +
			"MgAAAAtzc2gtZWQyNTUxOQAAACDq7Rk2mZ4vX9pLc0aTq3bN8sWf1yHj6uKe5oGd2rBxQ\n" +
			"-----END OPENSSH PRIVATE KEY-----"
		akid = "AKIAZ4XQ7MBW2LRT6NYE"
		pwd  = "Vq7#mZ" // not a generic value: "#" ends it, so nothing is found
	)
	doc := "# Deploy notes\n" +
		"The CI reads\n" +
		"  GITHUB_TOKEN=" + pat + "\n" +
		"and the deploy key is\n" +
		key + "\n" +
		"Then " + akid + " and password=" + pwd + " too.\n"

	want := []Finding{
		{Rule: "github-pat", Line: 3, Column: 16, Start: strings.Index(doc, pat)},
		{Rule: "private-key", Line: 5, Column: 1, Start: strings.Index(doc, key)},
		{Rule: "aws-access-token", Line: 10, Column: 6, Start: strings.Index(doc, akid)},
	}
	want[0].End = want[0].Start + len(pat)
	want[1].End = want[1].Start + len(key)
	want[2].End = want[2].Start + len(akid)

	got := Scan(doc)
	if len(got) != len(want) {
		t.Fatalf("Scan found %v, want %v", got, want)
	}
	for i := range want {
		got[i].Description = ""
		if got[i] != want[i] {
			t.Errorf("finding %d: got %+v, want %+v", i, got[i], want[i])
		}
	}

	redacted, _ := Redact(doc)
	wantRedacted := "# Deploy notes\n" +
		"The CI reads\n" +
		"  GITHUB_TOKEN=[REDACTED:github-pat]\n" +
		"and the deploy key is\n" +
		"[REDACTED:private-key]\n" +
		"Then [REDACTED:aws-access-token] and password=" + pwd + " too.\n"
	if redacted != wantRedacted {
		t.Errorf("Redact gave\n%s\nwant\n%s", redacted, wantRedacted)
	}
}

// TestNamedRuleWinsOverGeneric checks that a named credential assigned to a
// password-like name is reported once, under its own rule.
func TestNamedRuleWinsOverGeneric(t *testing.T) {
	for _, c := range []struct{ text, rule string }{
		{"password = ghp_Q3vW8kZr1TbX6nLp0YcJ5mHs2GdF9aEuRi7o", "github-pat"},
		{`"api_key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc"`, "stripe-access-token"},
		{"AWS_SECRET_ACCESS_KEY=Zk3mQ9vT2xLp8RwB5nYc7HdJ1sFg4aUe6oKi0VbN", "aws-secret-access-key"},
		{"token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsb3JlLXRlc3QifQ.c2lnbmF0dXJlX29mX2xvcmVfdGVzdA", "jwt"},
	} {
		got := Scan(c.text)
		if len(got) != 1 || got[0].Rule != c.rule {
			t.Errorf("Scan(%q) = %v, want one %s", c.text, rulesOf(got), c.rule)
		}
	}
}

// TestNotSecrets checks that nothing is found in any line of
// testdata/not-secrets.txt, nor in the file as a whole.
func TestNotSecrets(t *testing.T) {
	content, lines := readTestdata(t, "not-secrets.txt")
	for _, l := range lines {
		if got := Scan(l.text); len(got) != 0 {
			t.Errorf("line %d: found %s in %q", l.number, describe(l.text, got), l.text)
		}
	}
	if got := Scan(content); len(got) != 0 {
		t.Errorf("whole file: found %s", describe(content, got))
	}
}

// TestProjectDocuments checks that lore's own design documents, README,
// docs/ and memory store hold nothing Scan would refuse.
func TestProjectDocuments(t *testing.T) {
	paths, err := filepath.Glob("testdata/seeds/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 5 {
		t.Errorf("testdata/seeds holds %d documents, want 5", len(paths))
	}
	paths = append(paths, "../README.md")
	for _, dir := range []string{filepath.Join("..", "docs"), filepath.Join("..", ".agent")} {
		err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				paths = append(paths, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
			continue
		}
		if got := Scan(string(b)); len(got) != 0 {
			t.Errorf("%s: found %s", path, describe(string(b), got))
		}
	}
}

// describe renders findings as "line:column rule «secret»" for failure
// messages.
func describe(text string, findings []Finding) string {
	var parts []string
	for _, f := range findings {
		parts = append(parts, fmt.Sprintf("%d:%d %s «%s»", f.Line, f.Column, f.Rule, text[f.Start:f.End]))
	}
	return strings.Join(parts, "; ")
}

// TestRuleTable checks what the scanner assumes of the rules.
func TestRuleTable(t *testing.T) {
	if len(rules) > 128 {
		t.Fatalf("%d rules; ruleSet holds 128", len(rules))
	}
	seen := make(map[string]bool)
	for _, r := range rules {
		if seen[r.id] {
			t.Errorf("rule %s appears twice", r.id)
		}
		seen[r.id] = true
		if r.description == "" {
			t.Errorf("rule %s has no description", r.id)
		}
		if len(r.keywords) == 0 {
			t.Errorf("rule %s has no keywords, so it would never run", r.id)
		}
		for _, k := range r.keywords {
			if len(k) < 2 || k != strings.ToLower(k) {
				t.Errorf("rule %s: keyword %q is shorter than 2 bytes or not lower case", r.id, k)
			}
		}
		// Compile everything, so that no rule panics the first time a user's
		// text holds its keyword.
		if r.pattern.compiled().MatchString("") {
			t.Errorf("rule %s matches the empty string", r.id)
		}
		r.compiledPlan()
		if r.searchInside && r.assignment == nil && !r.compiledPlan().windowed {
			t.Errorf("rule %s searches inside values, but is neither an assignment rule nor run on windows", r.id)
		}
		if r.assignment != nil {
			if !strings.HasPrefix(r.pattern.expr, "^(?i)") {
				t.Errorf("assignment rule %s does not begin with ^(?i)", r.id)
			}
			r.wholeTextForms()
		}
		for _, a := range append([]*allowlist{&globalAllowlist}, r.allow...) {
			for _, re := range []*lazyRegexp{a.secret, a.match, a.line} {
				if re != nil {
					re.compiled()
				}
			}
			for _, w := range a.stopwords {
				if len(w) < 3 || w != strings.ToLower(w) {
					t.Errorf("rule %s: stopword %q is shorter than 3 bytes or not lower case", r.id, w)
				}
			}
			if !slices.IsSorted(a.stopwords) {
				t.Errorf("rule %s: stopwords are not sorted", r.id)
			}
		}
	}
}
