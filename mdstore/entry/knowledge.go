package entry

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"lore/mdstore/entry/yamlfm"

	"gopkg.in/yaml.v3"
)

// Knowledge is a reusable insight: .agent/knowledge/<slug>.md with
// frontmatter title, tags, feature, created_at (seed 000), and optional
// updated_at and sources.
type Knowledge struct {
	Slug      string   `json:"slug"` // the file name without .md: the entry's id
	Title     string   `json:"title"`
	Tags      []string `json:"tags"`
	Feature   string   `json:"feature,omitempty"`
	CreatedAt string   `json:"created_at,omitempty"`
	UpdatedAt string   `json:"updated_at,omitempty"`
	Sources   []Source `json:"sources,omitempty"`
	Body      string   `json:"body"`
	Path      string   `json:"path"` // store path, .agent/knowledge/<slug>.md
}

// Source is a file a knowledge entry is about, with the blob hash it had
// when the entry was written (prime flags entries whose files changed).
type Source struct {
	Path string `json:"path"`
	Blob string `json:"blob,omitempty"`
}

// MaxKnowledgeWords caps a knowledge body (seed 000: ~500 words).
const MaxKnowledgeWords = 500

// MaxSlugLength caps the file name made from a title (seed 000).
const MaxSlugLength = 80

// Slugify makes a file name from a title: lowercase, every run of
// characters that are not letters or digits becomes one '-', trimmed, at
// most 80 characters. "Rust's testing: a guide!" → "rust-s-testing-a-guide".
func Slugify(title string) string {
	var b strings.Builder
	dash := false
	n := 0
	for _, r := range strings.ToLower(title) {
		if n == MaxSlugLength {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
				n++
				if n == MaxSlugLength {
					break
				}
			}
			dash = false
			b.WriteRune(r)
			n++
			continue
		}
		dash = true
	}
	return strings.Trim(b.String(), "-")
}

// truncateWords keeps the first max words of body, cut where the word
// ends so the rest of the text keeps its line breaks, and appends
// " [truncated]" when something was cut.
func truncateWords(body string, max int) string {
	words := 0
	inWord := false
	for i, r := range body {
		if unicode.IsSpace(r) {
			if inWord && words == max {
				return strings.TrimRight(body[:i], " \t\n") + " [truncated]"
			}
			inWord = false
			continue
		}
		if !inWord {
			words++
			inWord = true
		}
	}
	return body
}

// NewKnowledge is what a caller provides to add knowledge.
type NewKnowledge struct {
	Title   string
	Tags    []string
	Feature string
	Body    string
	Sources []Source
}

// normalize checks a knowledge entry to add: no secret in any field
// (check), a title to name the file after, tags, a body cut to
// MaxKnowledgeWords.
func (in NewKnowledge) Normalize(check *SecretCheck) (NewKnowledge, error) {
	if err := check.Texts(in.TextFields()...); err != nil {
		return in, err
	}
	in.Title = strings.Join(strings.Fields(in.Title), " ")
	if in.Title == "" {
		return in, &InputError{Field: "title", Msg: "a knowledge entry needs a title"}
	}
	if !utf8.ValidString(in.Title) {
		return in, &InputError{Field: "title", Msg: "title is not valid UTF-8"}
	}
	if Slugify(in.Title) == "" {
		return in, &InputError{Field: "title", Msg: fmt.Sprintf("title %q has no letters or digits to name the file after", in.Title)}
	}
	tags, err := InputTags(in.Tags)
	if err != nil {
		return in, err
	}
	if len(tags) == 0 {
		return in, &InputError{Field: "tags", Msg: "a knowledge entry needs at least one tag"}
	}
	in.Tags = tags
	in.Feature = strings.TrimSpace(in.Feature)
	if in.Body, err = NormalizeText("body", in.Body); err != nil {
		return in, err
	}
	in.Body = truncateWords(in.Body, MaxKnowledgeWords)
	file := RenderKnowledge(Knowledge{Title: in.Title, Tags: in.Tags, Feature: in.Feature, Body: in.Body, Sources: in.Sources})
	return in, tooLarge("knowledge entry", file, "title", in.Title, "body", in.Body, "tags", strings.Join(in.Tags, ", "), "feature", in.Feature)
}

// parseKnowledge reads one knowledge file. A file with a problem is an
// error naming the file and line.
func ParseKnowledge(data []byte, path string) (Knowledge, error) {
	d, err := parseFrontmatter(data, path)
	if err != nil {
		return Knowledge{}, err
	}
	k := Knowledge{Path: path, Slug: strings.TrimSuffix(path[strings.LastIndexByte(path, '/')+1:], ".md")}
	k.Title = d.Str("title", true)
	k.Tags = docTags(d, "tags", true, true)
	k.Feature = d.Str("feature", false)
	k.CreatedAt = d.Timestamp("created_at", false)
	k.UpdatedAt = d.Timestamp("updated_at", false)
	if n, ok := d.Field("sources"); ok && n.Kind == yaml.SequenceNode {
		for _, item := range n.Content {
			switch {
			case item.Kind == yaml.ScalarNode: // a bare path
				k.Sources = append(k.Sources, Source{Path: item.Value})
			case item.Kind == yaml.MappingNode: // {path, blob}
				var s Source
				for i := 0; i+1 < len(item.Content); i += 2 {
					switch item.Content[i].Value {
					case "path":
						s.Path = item.Content[i+1].Value
					case "blob":
						s.Blob = item.Content[i+1].Value
					}
				}
				if s.Path == "" {
					d.Problem(item.Line, "sources: an entry has no path")
				}
				k.Sources = append(k.Sources, s)
			default:
				d.Problem(item.Line, "sources must be a list of paths or {path, blob} mappings")
			}
		}
	}
	k.Body = strings.TrimSpace(d.Body())
	if k.Body == "" {
		d.Problems = append(d.Problems, yamlfm.Problem{Line: 1, Message: "knowledge entry has no body"})
	}
	if err := docErr(d, path); err != nil {
		return Knowledge{}, err
	}
	if k.Tags == nil {
		k.Tags = []string{}
	}
	return k, nil
}

// RenderKnowledge writes a knowledge file in seed 000's format.
func RenderKnowledge(k Knowledge) []byte {
	w := yamlfm.NewWriter()
	w.Str("title", k.Title)
	w.List("tags", k.Tags, true)
	w.Str("feature", k.Feature)
	w.Str("created_at", k.CreatedAt)
	w.Str("updated_at", k.UpdatedAt)
	if len(k.Sources) > 0 {
		w.Raw("sources:\n")
		for _, s := range k.Sources {
			if s.Blob == "" {
				w.Raw("  - path: " + yamlfm.Quote(s.Path) + "\n")
			} else {
				w.Raw("  - path: " + yamlfm.Quote(s.Path) + "\n    blob: " + s.Blob + "\n")
			}
		}
	}
	return w.Done(k.Body)
}

// KnowledgeAction says what adding knowledge did.
type KnowledgeAction string

const (
	KnowledgeCreated   KnowledgeAction = "created"   // a new file
	KnowledgeReplaced  KnowledgeAction = "replaced"  // same title: body replaced, tags merged
	KnowledgeUpdated   KnowledgeAction = "updated"   // similar entry: body replaced, tags merged
	KnowledgeUnchanged KnowledgeAction = "unchanged" // the same entry was already there
)

// findKnowledgeDuplicate applies seed 000's rules: an exact title match
// (ignoring case) first; then an entry with more than 50% tag overlap
// (measured over the smaller tag set) whose title contains the new title
// or is contained in it. It returns the index in existing, or -1.
// byTitle maps each lower-case title to its first position in existing.
func FindKnowledgeDuplicate(existing []Knowledge, byTitle map[string]int, title string, tags []string) (int, KnowledgeAction) {
	if i, ok := byTitle[strings.ToLower(title)]; ok {
		return i, KnowledgeReplaced
	}
	lowerTitle := strings.ToLower(title)
	for i, k := range existing {
		other := strings.ToLower(k.Title)
		if !strings.Contains(other, lowerTitle) && !strings.Contains(lowerTitle, other) {
			continue
		}
		if TagOverlap(k.Tags, tags) > 0.5 {
			return i, KnowledgeUpdated
		}
	}
	return -1, KnowledgeCreated
}

// tagOverlap is |a ∩ b| / min(|a|, |b|).
func TagOverlap(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	set := map[string]bool{}
	for _, t := range a {
		set[strings.ToLower(t)] = true
	}
	common := 0
	seen := map[string]bool{}
	for _, t := range b {
		t = strings.ToLower(t)
		if set[t] && !seen[t] {
			common++
			seen[t] = true
		}
	}
	return float64(common) / float64(min(len(a), len(b)))
}

// mergeTags keeps existing tags in their order and appends new ones.
func MergeTags(existing, added []string) []string {
	out := append([]string{}, existing...)
	seen := map[string]bool{}
	for _, t := range existing {
		seen[t] = true
	}
	for _, t := range added {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// SortKnowledge orders entries by title, then path: any of them sorts
// as it does among all (a delta's entries among its base's).
func SortKnowledge(ks []Knowledge) {
	slices.SortStableFunc(ks, func(a, b Knowledge) int { return KnowledgeOrder(&a, &b) })
}

// KnowledgeOrder compares two knowledge entries in SortKnowledge's order:
// by title, ignoring case, then by path.
func KnowledgeOrder(a, b *Knowledge) int {
	if c := strings.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title)); c != 0 {
		return c
	}
	return strings.Compare(a.Path, b.Path)
}
