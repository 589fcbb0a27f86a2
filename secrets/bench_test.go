package secrets

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// plainText is a typical memory: a sentence about code that holds none of
// the rules' keywords.
const plainText = "The index is rebuilt from the markdown files whenever their " +
	"modification times differ from the ones recorded in the bolt database; " +
	"search then runs against bleve, and results are ranked by recency and by " +
	"how often a memory was recalled in earlier sessions of this repository, " +
	"so stale notes sink without being deleted."

func BenchmarkScanPlainText(b *testing.B) {
	if keywordHits(plainText) != nil {
		b.Fatal("plainText holds a keyword")
	}
	benchmarkScan(b, plainText)
}

func BenchmarkScanWithSecret(b *testing.B) {
	benchmarkScan(b, plainText+" The CI reads GITHUB_TOKEN=ghp_Q3vW8kZr1TbX6nLp0YcJ5mHs2GdF9aEuRi7o from its settings.")
}

// BenchmarkScanDocument64KiB scans 64 KiB of one of lore's design
// documents, which hold many keywords ("token", "key", "secret"…) and no
// secret.
func BenchmarkScanDocument64KiB(b *testing.B) {
	doc, err := os.ReadFile("testdata/seeds/002_5c1ffab54e52e9c8.txt")
	if err != nil {
		b.Fatal(err)
	}
	benchmarkScan(b, string(doc[:64<<10]))
}

// BenchmarkScanRandom1MiB scans 1 MiB of random printable ASCII in lines,
// which holds the short keywords ("key", "api", "pwd"…) by chance.
func BenchmarkScanRandom1MiB(b *testing.B) {
	benchmarkScan(b, randomText(1<<20))
}

// BenchmarkScanHostile1MiB scans 1 MiB built to make the patterns work:
// assignments to secret-like names, key armour with no end, token prefixes
// with no token.
func BenchmarkScanHostile1MiB(b *testing.B) {
	var s strings.Builder
	pieces := []string{
		"api_key = ", "password: '", "token=", "-----BEGIN PRIVATE KEY-----\n",
		"ghp_", "xoxb-1234567890-", "eyJhbGciOiJI.", "AKIA", "sk-ant-api03-", "AccountKey=",
		"aaaaaaaaaa", "0123456789", "\n",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for s.Len() < 1<<20 {
		s.WriteString(pieces[r.IntN(len(pieces))])
	}
	benchmarkScan(b, s.String())
}

// BenchmarkScanDenseAssignments1MiB scans 1 MiB of "api_key=xY1": an
// assignment every 11 bytes, none complete, each read up to 150 bytes far.
// This is the costliest input known; gitleaks' own expression for the
// generic rule takes about as long over it.
func BenchmarkScanDenseAssignments1MiB(b *testing.B) {
	benchmarkScan(b, strings.Repeat("api_key=xY1", (1<<20)/11))
}

func benchmarkScan(b *testing.B, text string) {
	Scan(text) // compile what this text needs outside the timing
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Scan(text)
	}
}

// randomText returns n bytes of printable ASCII in lines of up to 120.
func randomText(n int) string {
	r := rand.New(rand.NewPCG(7, 11))
	b := make([]byte, n)
	for i := range b {
		if r.IntN(80) == 0 {
			b[i] = '\n'
		} else {
			b[i] = byte(' ' + r.IntN('~'-' '+1))
		}
	}
	return string(b)
}
