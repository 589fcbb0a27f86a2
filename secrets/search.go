package secrets

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// How a rule's pattern is run over a text. Go's regexp has no DFA: where a
// pattern begins with no literal it can search for, it steps a machine
// through every byte, at 20 to 100 ns a byte. So a pattern runs over the
// whole text only when it begins with a literal, or when its matches have
// no bound on their length; otherwise it runs only on the windows of text
// where a match can lie, around its keywords. Either way its matches are
// those of the pattern run over the whole text (TestRulesMatchAsGitleaks
// checks this, and FuzzRulesMatchAsGitleaks fuzzes it).

// A searchPlan is what a rule needs, beyond its pattern, to be run on
// windows: built when the pattern is first compiled.
type searchPlan struct {
	windowed bool
	// maxLen is the most bytes a match can span.
	maxLen int
	// afterByte is the pattern, as group 1, behind one byte of context and
	// any run of text: run on text[pos-1:], it finds the first match at or
	// after pos, seeing text[pos-1] as \b and ^ would in the whole text.
	afterByte *regexp.Regexp
}

// compiledPlan compiles r's pattern and returns its plan.
func (r *rule) compiledPlan() *searchPlan {
	r.planOnce.Do(func() {
		re := r.pattern.compiled()
		if r.assignment != nil {
			return
		}
		if prefix, _ := re.LiteralPrefix(); prefix != "" {
			return
		}
		maxLen, bounded := maxMatchLen(re)
		if !bounded {
			return
		}
		r.plan = searchPlan{
			windowed:  true,
			maxLen:    maxLen,
			afterByte: regexp.MustCompile(afterByteExpr(r.pattern.expr)),
		}
	})
	return &r.plan
}

// afterByteExpr returns the expression that finds expr's first match after
// one byte of context (see searchPlan.afterByte).
func afterByteExpr(expr string) string {
	return `^(?s:.)(?s:.)*?(` + expr + `)`
}

// wholeTextForms are an assignment rule's pattern as gitleaks writes it,
// for text too dense with keywords to try each.
type wholeTextForms struct {
	unanchored *regexp.Regexp // gitleaks' expression
	afterByte  *regexp.Regexp // as searchPlan.afterByte
}

// wholeTextExpr returns an assignment rule's pattern as gitleaks writes it:
// unanchored, the name prefix written into the expression.
func (r *rule) wholeTextExpr() string {
	rest, _ := strings.CutPrefix(r.pattern.expr, "^(?i)")
	prefix := ""
	if n := r.assignment.namePrefix; n > 0 {
		prefix = `[\w.-]{0,` + strconv.Itoa(n) + `}?`
	}
	return "(?i)" + prefix + rest
}

func (r *rule) wholeTextForms() *wholeTextForms {
	r.wholeOnce.Do(func() {
		expr := r.wholeTextExpr()
		r.whole = wholeTextForms{
			unanchored: regexp.MustCompile(expr),
			afterByte:  regexp.MustCompile(afterByteExpr(expr)),
		}
	})
	return &r.whole
}

// eachMatch calls yield with the submatch indexes of each match of r's
// pattern in text, leftmost first and not overlapping; index is r's place
// in rules, hits the text's keywords.
func (r *rule) eachMatch(text string, index int, hits []keywordHit, yield func(m []int)) {
	plan := r.compiledPlan()
	switch {
	case r.assignment != nil:
		r.eachAssignment(text, index, hits, yield)
	case plan.windowed:
		r.eachWindowMatch(text, index, hits, plan, yield)
	default:
		for _, m := range r.pattern.compiled().FindAllStringSubmatchIndex(text, -1) {
			yield(m)
		}
	}
}

// eachWindowMatch is eachMatch on windows: a match holds a keyword at k, so
// it lies within [k-before, k+maxLen]. Overlapping windows are merged, so a
// match never straddles two.
func (r *rule) eachWindowMatch(text string, index int, hits []keywordHit, plan *searchPlan, yield func(m []int)) {
	start, end := -1, -1
	for _, h := range hits {
		if !h.rules.has(index) {
			continue
		}
		k := h.pos
		lo, hi := max(0, k-r.before), min(len(text), k+plan.maxLen)
		if start >= 0 && lo <= end {
			end = max(end, hi)
			continue
		}
		if start >= 0 {
			r.searchWindow(text, start, end, plan, yield)
		}
		start, end = lo, hi
	}
	if start >= 0 {
		r.searchWindow(text, start, end, plan, yield)
	}
}

// searchWindow yields the matches of r's pattern that lie in
// text[start:end]. It reads one byte either side of the window, so that \b
// sees what it would in the whole text; $ cannot hold at the byte after
// the window, for no match reaches it.
func (r *rule) searchWindow(text string, start, end int, plan *searchPlan, yield func(m []int)) {
	limit := min(len(text), end+1)
	for pos := start; pos < end; {
		var m []int
		if pos == 0 {
			m = r.pattern.compiled().FindStringSubmatchIndex(text[:limit])
		} else {
			m = plan.afterByte.FindStringSubmatchIndex(text[pos-1 : limit])
			if m != nil {
				m = shift(m[2:], pos-1) // group 1 is the pattern
			}
		}
		if m == nil {
			return
		}
		if r.assignsInside(text, m) {
			pos = m[2] // the value's start
			continue
		}
		yield(m)
		pos = max(m[1], pos+1)
	}
}

// eachAssignment is eachMatch for an assignment rule: it runs the anchored
// pattern at each occurrence of a keyword, where gitleaks' unanchored form
// would find its matches. Each try costs a few microseconds; where tries
// are so dense that one pass of gitleaks' form over the rest of the text
// costs less ("key=key=key=…"), it makes that pass instead.
func (r *rule) eachAssignment(text string, index int, hits []keywordHit, yield func(m []int)) {
	re := r.pattern.compiled()
	a := r.assignment
	prevEnd, runEnd, tries := 0, 0, 0
	for _, h := range hits {
		k := h.pos
		if k < prevEnd || !h.rules.has(index) || !a.mayAssign(text, k) {
			continue
		}
		if tries++; tries > denseTries && tries*denseTries > len(text) {
			r.eachWholeTextMatch(text, prevEnd, yield)
			return
		}
		// Try a slice that holds any value of gitleaks' bounded form
		// first: Go's regexp runs its backtracker, much the quicker, on
		// short input. A match that reaches the slice's end may be cut
		// short by it, so it is tried again on all the slice can be.
		limit := a.matchLimit(text, k, &runEnd)
		short := min(limit, k+a.valueFrom+shortValue)
		m := re.FindStringSubmatchIndex(text[k:short])
		if m != nil && m[1] == short-k && short < limit {
			m = re.FindStringSubmatchIndex(text[k:limit])
		}
		if m == nil {
			continue
		}
		shift(m, k)
		if r.assignsInside(text, m) {
			continue // the keywords inside the value are tried next
		}
		// gitleaks' [\w.-]{0,50}? prefix: the leftmost start wins.
		for m[0] > prevEnd && k-m[0] < a.namePrefix && isNameByte(text[m[0]-1]) {
			m[0]--
		}
		yield(m)
		prevEnd = m[1]
	}
}

// denseTries: an assignment rule tries more than one keyword in this many
// bytes of text before it turns to gitleaks' form.
const denseTries = 32

// eachWholeTextMatch yields the matches of r's gitleaks form in text[pos:],
// as gitleaks' search would find them having reached pos.
func (r *rule) eachWholeTextMatch(text string, pos int, yield func(m []int)) {
	forms := r.wholeTextForms()
	for pos < len(text) {
		var m []int
		if pos == 0 {
			m = forms.unanchored.FindStringSubmatchIndex(text)
		} else if m = forms.afterByte.FindStringSubmatchIndex(text[pos-1:]); m != nil {
			m = shift(m[2:], pos-1) // group 1 is the pattern
		}
		if m == nil {
			return
		}
		if r.assignsInside(text, m) {
			pos = m[2] // the value's start
			continue
		}
		yield(m)
		pos = max(m[1], pos+1)
	}
}

// assignsInside reports whether r searches inside values and the value
// (group 1) of its match m is itself an assignment to a name holding one
// of r's keywords: "the key: DB_PASSWORD=…" matches "key" with the value
// "DB_PASSWORD=…", which the generic rule's stopwords then allow, hiding
// the password. Changed from gitleaks, which goes on after such a match:
// here the match is no match, and the search goes on inside its value,
// where it finds DB_PASSWORD's.
func (r *rule) assignsInside(text string, m []int) bool {
	if !r.searchInside || len(m) < 4 || m[2] < 0 {
		return false
	}
	v := text[m[2]:m[3]]
	eq := strings.IndexByte(v, '=')
	if eq <= 0 || eq+1 == len(v) || v[eq+1] == '=' || !isNameStart(v[0]) {
		return false // no '=', or padding ("…=="), or no name before it
	}
	name := v[:eq]
	for i := range len(name) {
		if !isNameByte(name[i]) {
			return false
		}
	}
	for i := range len(name) {
		for _, k := range r.keywords {
			if hasPrefixFold(name[i:], k) {
				return true
			}
		}
	}
	return false
}

func isNameStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

// shortValue bounds the value and what follows it in an assignment's first
// try: gitleaks' values are at most 150 bytes, or unbounded base64.
const shortValue = 160

// mayAssign reports whether an operator can follow the name that begins
// at k: one of = > : | ? , within operatorWithin bytes, with only name
// bytes, spaces and quotes before it. The pattern cannot match where this
// fails, and most keywords in prose ("the key insight") fail it.
func (a *assignment) mayAssign(text string, k int) bool {
	end := min(len(text), k+a.operatorWithin+1)
	for i := k; i < end; i++ {
		switch c := text[i]; {
		case strings.IndexByte("=>:|?,", c) >= 0:
			return true
		case !isNameByte(c) && strings.IndexByte(" \t\n\r\f'\"", c) < 0:
			return false
		}
	}
	return false
}

// matchLimit returns where a match beginning at the keyword at k must end:
// the value starts within valueFrom bytes and runs over value bytes, and at
// most two bytes follow it. So that $ in the pattern holds only at the end
// of text, the limit is never right after a value byte, unless the text
// ends there. runEnd is the end of the last run of value bytes measured,
// kept by the caller so that no run is read twice.
func (a *assignment) matchLimit(text string, k int, runEnd *int) int {
	end := k + a.valueFrom
	if end < *runEnd {
		end = *runEnd // end lies in the run measured last
	} else {
		for end < len(text) && a.isValueByte(text[end]) {
			end++
		}
		*runEnd = end
	}
	return min(end+3, len(text))
}

func (a *assignment) isValueByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte(a.valueBytes, c) >= 0
}

// isNameByte reports whether c is in [\w.-].
func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '.' || c == '-'
}

// maxMatchLen returns the most bytes a match of re can span, and false if
// there is no bound.
func maxMatchLen(re *regexp.Regexp) (int, bool) {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return 0, false // re compiled, so this does not happen
	}
	return maxLen(parsed)
}

// maxLen returns the most bytes a string matched by re can have, and false
// if there is no bound. Under case folding a letter may match a longer
// rune: k matches the Kelvin sign, three bytes.
func maxLen(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += foldedRuneLen(r, re.Flags&syntax.FoldCase != 0)
		}
		return n, true
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0, true
		}
		return utf8.RuneLen(min(re.Rune[len(re.Rune)-1], unicode.MaxRune)), true
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		n, ok := maxLen(re.Sub[0])
		return 0, ok && n == 0
	case syntax.OpRepeat:
		n, ok := maxLen(re.Sub[0])
		if re.Max < 0 {
			return 0, ok && n == 0
		}
		return n * re.Max, ok
	case syntax.OpConcat:
		total := 0
		for _, sub := range re.Sub {
			n, ok := maxLen(sub)
			if !ok {
				return 0, false
			}
			total += n
		}
		return total, true
	case syntax.OpAlternate:
		most := 0
		for _, sub := range re.Sub {
			n, ok := maxLen(sub)
			if !ok {
				return 0, false
			}
			most = max(most, n)
		}
		return most, true
	default: // empty-width assertions, empty match, no match
		return 0, true
	}
}

// foldedRuneLen returns the length in UTF-8 of r, or with folding of the
// longest rune that folds to it.
func foldedRuneLen(r rune, fold bool) int {
	n := utf8.RuneLen(r)
	if !fold {
		return n
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		n = max(n, utf8.RuneLen(f))
	}
	return n
}

// shift moves the offsets of a match found in a slice of the text that
// starts at by to offsets in the whole text (unmatched groups stay -1).
func shift(m []int, by int) []int {
	for i := range m {
		if m[i] >= 0 {
			m[i] += by
		}
	}
	return m
}
