package secrets

import (
	"strings"
	"testing"
)

// addSeeds seeds f with each line of the testdata files and with the files
// whole.
func addSeeds(f *testing.F) {
	for _, name := range []string{"credentials.txt", "not-secrets.txt"} {
		content, lines := readTestdata(f, name)
		f.Add(content)
		for _, l := range lines {
			f.Add(l.text)
		}
	}
}

func FuzzScan(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		checkFindings(t, text, Scan(text))
	})
}

func FuzzRedact(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		redacted, findings := Redact(text)
		checkFindings(t, text, findings)
		if len(findings) == 0 && redacted != text {
			t.Fatalf("Redact changed a text with no secret: %q", redacted)
		}
		if again := Scan(redacted); len(again) != 0 {
			t.Fatalf("Scan(Redact(%q)) = %s", text, describe(redacted, again))
		}
		if twice, _ := Redact(redacted); twice != redacted {
			t.Fatalf("Redact is not idempotent on %q:\n\tonce  %q\n\ttwice %q", text, redacted, twice)
		}
	})
}

// checkFindings checks that findings are in order, within text, do not
// overlap, and have lines and columns that agree with their offsets.
func checkFindings(t *testing.T, text string, findings []Finding) {
	t.Helper()
	ids := make(map[string]string)
	for _, r := range rules {
		ids[r.id] = r.description
	}
	prevEnd := 0
	for _, f := range findings {
		if f.Start < prevEnd || f.End <= f.Start || f.End > len(text) {
			t.Fatalf("finding %+v out of order or bounds (previous ended at %d, text has %d bytes)", f, prevEnd, len(text))
		}
		prevEnd = f.End
		if desc, ok := ids[f.Rule]; !ok || desc != f.Description {
			t.Fatalf("finding %+v: unknown rule or wrong description", f)
		}
		line := 1 + strings.Count(text[:f.Start], "\n")
		column := f.Start - strings.LastIndexByte(text[:f.Start], '\n')
		if f.Line != line || f.Column != column {
			t.Fatalf("finding %+v: at line %d, column %d", f, line, column)
		}
	}
}
