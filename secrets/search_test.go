package secrets

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// gitleaksForms holds, by rule index, each pattern as gitleaks would run
// it: over the whole text, unanchored, the name prefix of an assignment
// rule written into the expression.
var gitleaksForms = sync.OnceValue(func() []*regexp.Regexp {
	forms := make([]*regexp.Regexp, len(rules))
	for i, r := range rules {
		expr := r.pattern.expr
		if r.assignment != nil {
			expr = r.wholeTextExpr()
		}
		forms[i] = regexp.MustCompile(expr)
	}
	return forms
})

// checkMatchesAsGitleaks checks that each rule matches text exactly where
// its gitleaks form does, groups included.
func checkMatchesAsGitleaks(t *testing.T, text string) {
	t.Helper()
	hits := keywordHits(text)
	for i, r := range rules {
		var got [][]int
		r.eachMatch(text, i, hits, func(m []int) { got = append(got, slices.Clone(m)) })
		want := gitleaksMatches(i, text)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s on %q:\n\tgot  %v\n\twant %v", r.id, text, got, want)
		}
	}
}

// gitleaksMatches returns the matches of rule i's gitleaks form in text,
// as gitleaks finds them, but for lore's one change to the rules that
// search inside values: a match whose value is itself an assignment
// (assignsInside) is no match, and the search goes on from its value.
func gitleaksMatches(i int, text string) [][]int {
	re, r := gitleaksForms()[i], rules[i]
	if !r.searchInside {
		return re.FindAllStringSubmatchIndex(text, -1)
	}
	after := regexp.MustCompile(afterByteExpr(re.String()))
	var found [][]int
	for pos := 0; pos <= len(text); {
		var m []int
		if pos == 0 {
			m = re.FindStringSubmatchIndex(text)
		} else if m = after.FindStringSubmatchIndex(text[pos-1:]); m != nil {
			m = shift(m[2:], pos-1)
		}
		if m == nil {
			break
		}
		if r.assignsInside(text, m) {
			pos = m[2]
			continue
		}
		found = append(found, m)
		pos = max(m[1], pos+1)
	}
	return found
}

// TestRulesMatchAsGitleaks checks the windowed and keyword-anchored
// searches against each pattern run over the whole text.
func TestRulesMatchAsGitleaks(t *testing.T) {
	for _, name := range []string{"credentials.txt", "not-secrets.txt"} {
		content, lines := readTestdata(t, name)
		checkMatchesAsGitleaks(t, content)
		for _, l := range lines {
			checkMatchesAsGitleaks(t, l.text)
		}
	}
	for _, text := range matchEdgeCases {
		checkMatchesAsGitleaks(t, text)
	}
}

func FuzzRulesMatchAsGitleaks(f *testing.F) {
	addSeeds(f)
	for _, text := range matchEdgeCases {
		f.Add(text)
	}
	f.Fuzz(checkMatchesAsGitleaks)
}

// matchEdgeCases probe the name prefix of assignment rules, matches that
// follow each other closely, windows that meet, names split over lines,
// values at the end of the text, runes that fold to longer ones, and
// assignments dense enough to turn to gitleaks' form midway.
var matchEdgeCases = []string{
	strings.Repeat("key=", 500),
	strings.Repeat("k=1 api_key=Zq8Lm2Xv0Tb7Kp4N ", 60),
	strings.Repeat("aws_secret=Zk3mQ9vT2xLp8RwB5nYc7HdJ1sFg4aUe6oKi0VbN\n", 40),
	"a.b-c_d.e-f_g.h-i_j.k-l_m.n-o_p.q-r_s.t-u_v.w-x_y.z-0_1.2-3_4.5-6_api_key = Zq8Lm2Xv0Tb7Kp4N",
	strings.Repeat("x", 60) + "_token = Zq8Lm2Xv0Tb7Kp4N",
	"token_aaaaaaaaaaaaaaaaaaaaaaaa_key = Zq8Lm2Xv0Tb7Kp4N",
	"key=Zq8Lm2Xv0Tb7Kp4N key=Rt5Yh1Ue9Wq3Io6P,key=Ab1Cd2Ef3Gh4Ij5K",
	"secret_key=Zq8Lm2Xv0Tb7Kp4Nsecret_token=Rt5Yh1Ue9Wq3Io6P",
	"password:\n\n  'Zq8Lm2Xv0Tb7Kp4N'",
	"the key: DB_PASSWORD=Zq8Lm2Xv0Tb7Kp4N and the token: API_TOKEN=Rt5Yh1Ue9Wq3Io6P",
	"key=token=secret=Zq8Lm2Xv0Tb7Kp4N key=a=Zq8Lm2Xv0Tb7Kp4N auth: sha256=9f86d081884c7d659a2f",
	strings.Repeat("key: api_key=Zq8Lm2Xv0Tb7Kp4N ", 80),
	"password: DB_PASSWORD==Zq8Lm2Xv0Tb7Kp4N",
	"auth =>\t`Zq8Lm2Xv0Tb7Kp4N`;",
	"api_key = " + strings.Repeat("Ab9+/", 40),
	"api_key = " + strings.Repeat("Ab9_.", 40),
	"api_key = " + strings.Repeat("Ab9_.", 29) + "\\n",
	"AWS_SECRET_ACCESS_KEY=Zk3mQ9vT2xLp8RwB5nYc7HdJ1sFg4aUe6oKi0VbN",
	"my_aws_app_secret_key: Zk3mQ9vT2xLp8RwB5nYc7HdJ1sFg4aUe6oKi0VbNx",
	"azure_storage_key = \"" + strings.Repeat("Ab9+/", 17) + "A==\"",
	"AccountKey=" + strings.Repeat("Ab9+/", 17) + "A==",
	"xAKIAZ4XQ7MBW2LRT6NYE AKIAZ4XQ7MBW2LRT6NYEAKIAZ4XQ7MBW2LRT6NYE AKIAZ4XQ7MBW2LRT6NYE",
	"hf_QvWkZrTbXnLpYcJmHsGdFaEuRiopLkJhGfDs_hf_QvWkZrTbXnLpYcJmHsGdFaEuRiopLkJhGfDs",
	"é" + "hf_QvWkZrTbXnLpYcJmHsGdFaEuRiopLkJhGfDs",
	"xoxe.xoxp-1-" + strings.Repeat("\u212a", 165),
	"secret=abc1Q~" + strings.Repeat("Ab9_~", 7) + " q~ q~ abc1Q~" + strings.Repeat("Ab9_~", 7),
	"https://hooks.slack.com/services/" + strings.Repeat("T0B1z", 9) + "hooks.slack.com/triggers/" + strings.Repeat("T0B1z", 9),
	"sk-proj-" + strings.Repeat("Ab9_-", 15) + "T3BlbkFJ" + strings.Repeat("Ab9_-", 15) + " T3BlbkFJ",
}
