// Rules derived from gitleaks (MIT licence); see doc.go.

package secrets

import (
	"regexp"
	"sync"
)

// A rule describes one kind of credential: how to find it and what not to
// report.
type rule struct {
	id          string
	description string
	// pattern finds the credential. The secret is its first non-empty
	// capture group, or the whole match if it has none (gitleaks' rule when
	// secretGroup is unset, as it is for every rule ported here).
	pattern lazyRegexp
	// entropy is the Shannon entropy (bits per byte) a secret must exceed;
	// 0 means no threshold.
	entropy float64
	// keywords are lower case; the pattern runs only on text holding one.
	// Every match holds one.
	keywords []string
	// before is the most bytes a match may begin ahead of the keyword it
	// holds: 0 for a token that begins with its keyword.
	before int
	// allow lists what is not a secret; a finding any of them accepts is
	// not reported.
	allow []*allowlist
	// assignment is set for rules that match "name = value".
	assignment *assignment
	// generic rules yield to any other rule whose secret overlaps theirs.
	generic bool
	// searchInside: a match whose value (group 1) is itself an assignment
	// to a name holding one of the keywords is no match, and the search
	// goes on in its value (assignsInside). Only for an assignment rule
	// or one run on windows.
	searchInside bool

	planOnce  sync.Once
	plan      searchPlan
	wholeOnce sync.Once
	whole     wholeTextForms
}

// An assignment rule matches "name = value", where name begins with one of
// the rule's keywords. gitleaks writes such a rule as
//
//	(?i)[\w.-]{0,50}?(?:NAMES)…value…
//
// which Go's regexp, having no literal to search for, tries at every byte
// of the text, at about 100 ns a byte. Here the pattern is that expression
// less the prefix, anchored with ^, and tried only at keywords an operator
// can follow, on a slice no longer than a match can be; the prefix is found
// by walking back from the keyword (see eachAssignment). The matches are
// gitleaks' (TestRulesMatchAsGitleaks checks this, and fuzzes it).
type assignment struct {
	// namePrefix is the most [\w.-] bytes the name may have before the
	// keyword: the 50 of gitleaks' [\w.-]{0,50}?.
	namePrefix int
	// operatorWithin is the most bytes from a keyword's start to the
	// operator's: the longest name, then the spaces and quotes allowed
	// before the operator.
	operatorWithin int
	// valueFrom is the most bytes from a keyword's start to the value's:
	// operatorWithin, the longest operator, and the spaces and quotes
	// allowed after it.
	valueFrom int
	// valueBytes are the bytes other than ASCII letters and digits that
	// the value may hold.
	valueBytes string
}

// An allowlist says which findings of a rule are not secrets, as one of
// gitleaks' [[rules.allowlists]] does: a finding is allowed if any of its
// parts accepts it.
type allowlist struct {
	secret *lazyRegexp // matched against the secret (gitleaks' default target)
	match  *lazyRegexp // matched against the whole match (regexTarget "match")
	line   *lazyRegexp // matched against the match's lines (regexTarget "line")
	// stopwords are lower case and sorted; a secret holding one is
	// allowed.
	stopwords []string
}

// lazyRegexp is a regular expression compiled on first use, so that loading
// the package costs nothing and a rule whose keywords never occur is never
// compiled.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

func (l *lazyRegexp) compiled() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

// The patterns are written out whole, not joined from pieces at run time,
// so that the table below is a literal the linker lays out and loading the
// package runs no code. Most follow gitleaks' generator
// (cmd/generate/config/utils/generate.go): a token with a known prefix is
// \b(TOKEN)(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$), the group being the secret and the
// tail the characters that may follow it.
//
// Changed from gitleaks, in every rule that has such a tail: '<', '>',
// '.', ',', ')', ']' and '}' may follow a secret. gitleaks' tail is
// [\x60'"\s;], so a token written right before a tag, as agents write them
// ("<journal>used sk_live_…</journal>") and as markup holds them
// ("<code>ghp_…</code>"), or at the end of a sentence, a list or a
// parenthesis ("the key is sk_live_…."), went unseen.

// rules is lore's rule set. Order matters only to break ties between
// findings of the same start and length: the earlier rule wins.
var rules = [...]*rule{
	// ---- AWS ----
	{
		id:          "aws-access-token",
		description: "AWS access key ID",
		pattern:     lazyRegexp{expr: `\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b`},
		entropy:     3,
		keywords:    []string{"a3t", "akia", "asia", "abia", "acca"},
		allow:       []*allowlist{{secret: &lazyRegexp{expr: `.+EXAMPLE$`}}},
	},
	{
		// lore's own: gitleaks' default set leaves secret access keys to its
		// generic rule, which does not name them. Written as gitleaks writes
		// its assignment rules: the name must say both "aws" and "secret",
		// or be secret_access_key / SecretAccessKey; the value is AWS's 40
		// characters of base64.
		id:          "aws-secret-access-key",
		description: "AWS secret access key",
		pattern: lazyRegexp{expr: `^(?i)(?:aws[\w.-]{0,20}?secret|secret[_.-]?access[_.-]?key)(?:[ \t\w.-]{0,20})[\s'"]{0,3}` +
			`(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([a-z0-9/+]{40})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		assignment: &assignment{namePrefix: 50, operatorWithin: 29 + 20 + 3, valueFrom: 29 + 20 + 3 + 4 + 5, valueBytes: "/+"},
		entropy:    4,
		keywords:   []string{"aws", "secret"},
		// AWS's documentation marks its sample keys with EXAMPLE, as
		// gitleaks' allowlist for access key ids expects.
		allow: []*allowlist{{secret: &lazyRegexp{expr: `EXAMPLE`}}},
	},

	// ---- Google Cloud ----
	{
		id:          "gcp-api-key",
		description: "Google Cloud API key",
		pattern:     lazyRegexp{expr: `\b(AIza[\w-]{35})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     4,
		keywords:    []string{"aiza"},
		// Public keys that appear in many open-source apps; gitleaks' list.
		allow: []*allowlist{{secret: &lazyRegexp{expr: `AIzaSyabcdefghijklmnopqrstuvwxyz1234567|` +
			`AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs|AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM|` +
			`AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU|AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0|` +
			`AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A|AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c|` +
			`AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4|AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY|` +
			`AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM|AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ|` +
			`AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g|AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU|` +
			`AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw|AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE|` +
			`AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY`}}},
	},
	{
		// lore's own: the "private_key" field of a service-account key file
		// (JSON, so its line breaks are written \n). gitleaks' private-key
		// rule finds the same bytes; this rule comes first so the finding
		// names where the key came from.
		id:          "gcp-service-account-key",
		description: "Google Cloud service account private key",
		pattern:     lazyRegexp{expr: `"private_key"\s*:\s*"(-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY-----[^"]{64,}?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY-----)`},
		keywords:    []string{"private_key"},
		before:      1,
	},

	// ---- Azure ----
	{
		// lore's own: the AccountKey of a storage connection string, or a
		// value assigned to a name with "azure" and "key" in it; a storage
		// key is 64 bytes of base64.
		id:          "azure-storage-account-key",
		description: "Azure storage account key",
		pattern: lazyRegexp{expr: `^(?i)(?:AccountKey|azure[\w.-]{0,30}?key[\w.-]{0,20}?)[ \t'"]{0,3}(?:=|:|=>|:=)[ \t'"]{0,5}` +
			`([a-z0-9+/]{86}==)(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		assignment: &assignment{operatorWithin: 58 + 3, valueFrom: 58 + 3 + 2 + 5, valueBytes: "+/="},
		entropy:    4,
		keywords:   []string{"accountkey", "azure"},
	},
	{
		id:          "azure-ad-client-secret",
		description: "Azure AD client secret",
		pattern:     lazyRegexp{expr: `(?:^|[\\'"\x60\s>=:(,)])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?:$|[\\'"\x60\s<>.,)\]}])`},
		entropy:     3,
		keywords:    []string{"q~"},
		before:      5,
	},

	// ---- GitHub ----
	{
		id:          "github-pat",
		description: "GitHub personal access token",
		pattern:     lazyRegexp{expr: `ghp_[0-9a-zA-Z]{36}`},
		entropy:     3,
		keywords:    []string{"ghp_"},
	},
	{
		id:          "github-fine-grained-pat",
		description: "GitHub fine-grained personal access token",
		pattern:     lazyRegexp{expr: `github_pat_\w{82}`},
		entropy:     3,
		keywords:    []string{"github_pat_"},
	},
	{
		id:          "github-oauth",
		description: "GitHub OAuth access token",
		pattern:     lazyRegexp{expr: `gho_[0-9a-zA-Z]{36}`},
		entropy:     3,
		keywords:    []string{"gho_"},
	},
	{
		id:          "github-app-token",
		description: "GitHub App token",
		pattern:     lazyRegexp{expr: `(?:ghu|ghs)_[0-9a-zA-Z]{36}`},
		entropy:     3,
		keywords:    []string{"ghu_", "ghs_"},
	},
	{
		id:          "github-refresh-token",
		description: "GitHub refresh token",
		pattern:     lazyRegexp{expr: `ghr_[0-9a-zA-Z]{36}`},
		entropy:     3,
		keywords:    []string{"ghr_"},
	},

	// ---- GitLab ----
	{
		id:          "gitlab-pat-routable",
		description: "GitLab personal access token (routable)",
		pattern:     lazyRegexp{expr: `\bglpat-[0-9a-zA-Z_-]{27,300}\.[0-9a-z]{2}[0-9a-z]{7}\b`},
		entropy:     4,
		keywords:    []string{"glpat-"},
	},
	{
		id:          "gitlab-pat",
		description: "GitLab personal access token",
		pattern:     lazyRegexp{expr: `glpat-[\w-]{20}`},
		entropy:     3,
		keywords:    []string{"glpat-"},
	},
	{
		id:          "gitlab-cicd-job-token",
		description: "GitLab CI/CD job token",
		pattern:     lazyRegexp{expr: `glcbt-[0-9a-zA-Z]{1,5}_[0-9a-zA-Z_-]{20}`},
		entropy:     3,
		keywords:    []string{"glcbt-"},
	},
	{
		id:          "gitlab-deploy-token",
		description: "GitLab deploy token",
		pattern:     lazyRegexp{expr: `gldt-[0-9a-zA-Z_\-]{20}`},
		entropy:     3,
		keywords:    []string{"gldt-"},
	},
	{
		id:          "gitlab-feature-flag-client-token",
		description: "GitLab feature flag client token",
		pattern:     lazyRegexp{expr: `glffct-[0-9a-zA-Z_\-]{20}`},
		entropy:     3,
		keywords:    []string{"glffct-"},
	},
	{
		id:          "gitlab-feed-token",
		description: "GitLab feed token",
		pattern:     lazyRegexp{expr: `glft-[0-9a-zA-Z_\-]{20}`},
		entropy:     3,
		keywords:    []string{"glft-"},
	},
	{
		id:          "gitlab-incoming-mail-token",
		description: "GitLab incoming mail token",
		pattern:     lazyRegexp{expr: `glimt-[0-9a-zA-Z_\-]{25}`},
		entropy:     3,
		keywords:    []string{"glimt-"},
	},
	{
		id:          "gitlab-kubernetes-agent-token",
		description: "GitLab Kubernetes agent token",
		pattern:     lazyRegexp{expr: `glagent-[0-9a-zA-Z_\-]{50}`},
		entropy:     3,
		keywords:    []string{"glagent-"},
	},
	{
		id:          "gitlab-oauth-app-secret",
		description: "GitLab OAuth application secret",
		pattern:     lazyRegexp{expr: `gloas-[0-9a-zA-Z_\-]{64}`},
		entropy:     3,
		keywords:    []string{"gloas-"},
	},
	{
		id:          "gitlab-ptt",
		description: "GitLab pipeline trigger token",
		pattern:     lazyRegexp{expr: `glptt-[0-9a-f]{40}`},
		entropy:     3,
		keywords:    []string{"glptt-"},
	},
	{
		id:          "gitlab-rrt",
		description: "GitLab runner registration token",
		pattern:     lazyRegexp{expr: `GR1348941[\w-]{20}`},
		entropy:     3,
		keywords:    []string{"gr1348941"},
	},
	{
		id:          "gitlab-runner-authentication-token-routable",
		description: "GitLab runner authentication token (routable)",
		pattern:     lazyRegexp{expr: `\bglrt-t\d_[0-9a-zA-Z_\-]{27,300}\.[0-9a-z]{2}[0-9a-z]{7}\b`},
		entropy:     4,
		keywords:    []string{"glrt-"},
	},
	{
		id:          "gitlab-runner-authentication-token",
		description: "GitLab runner authentication token",
		pattern:     lazyRegexp{expr: `glrt-[0-9a-zA-Z_\-]{20}`},
		entropy:     3,
		keywords:    []string{"glrt-"},
	},
	{
		id:          "gitlab-scim-token",
		description: "GitLab SCIM token",
		pattern:     lazyRegexp{expr: `glsoat-[0-9a-zA-Z_\-]{20}`},
		entropy:     3,
		keywords:    []string{"glsoat-"},
	},
	{
		// Changed from gitleaks: the cookie's value is a capture group, so
		// the finding is the session id, not "_gitlab_session=".
		id:          "gitlab-session-cookie",
		description: "GitLab session cookie",
		pattern:     lazyRegexp{expr: `_gitlab_session=([0-9a-z]{32})`},
		entropy:     3,
		keywords:    []string{"_gitlab_session="},
	},

	// ---- Slack ----
	{
		id:          "slack-bot-token",
		description: "Slack bot token",
		pattern:     lazyRegexp{expr: `xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*`},
		entropy:     3,
		keywords:    []string{"xoxb"},
	},
	{
		id:          "slack-user-token",
		description: "Slack user token",
		pattern:     lazyRegexp{expr: `xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}`},
		entropy:     2,
		keywords:    []string{"xoxp-", "xoxe-"},
	},
	{
		id:          "slack-app-token",
		description: "Slack app-level token",
		pattern:     lazyRegexp{expr: `(?i)xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`},
		entropy:     2,
		keywords:    []string{"xapp"},
	},
	{
		id:          "slack-config-access-token",
		description: "Slack configuration access token",
		pattern:     lazyRegexp{expr: `(?i)xoxe.xox[bp]-\d-[A-Z0-9]{163,166}`},
		entropy:     2,
		keywords:    []string{"xoxe.xoxb-", "xoxe.xoxp-"},
	},
	{
		id:          "slack-config-refresh-token",
		description: "Slack configuration refresh token",
		pattern:     lazyRegexp{expr: `(?i)xoxe-\d-[A-Z0-9]{146}`},
		entropy:     2,
		keywords:    []string{"xoxe-"},
	},
	{
		id:          "slack-legacy-bot-token",
		description: "Slack legacy bot token",
		pattern:     lazyRegexp{expr: `xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}`},
		entropy:     2,
		keywords:    []string{"xoxb"},
	},
	{
		id:          "slack-legacy-token",
		description: "Slack legacy token",
		pattern:     lazyRegexp{expr: `xox[os]-\d+-\d+-\d+-[a-fA-F\d]+`},
		entropy:     2,
		keywords:    []string{"xoxo", "xoxs"},
	},
	{
		id:          "slack-legacy-workspace-token",
		description: "Slack legacy workspace token",
		pattern:     lazyRegexp{expr: `xox[ar]-(?:\d-)?[0-9a-zA-Z]{8,48}`},
		entropy:     2,
		keywords:    []string{"xoxa", "xoxr"},
	},
	{
		id:          "slack-webhook-url",
		description: "Slack webhook URL",
		pattern:     lazyRegexp{expr: `(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}`},
		keywords:    []string{"hooks.slack.com"},
		before:      len("https://"),
	},

	// ---- AI providers ----
	{
		id:          "openai-api-key",
		description: "OpenAI API key",
		pattern: lazyRegexp{expr: `\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\b|` +
			`sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:  3,
		keywords: []string{"t3blbkfj"},
		before:   len("sk-svcacct-") + 74,
	},
	{
		id:          "anthropic-api-key",
		description: "Anthropic API key",
		pattern:     lazyRegexp{expr: `\b(sk-ant-api03-[a-zA-Z0-9_\-]{93}AA)(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		keywords:    []string{"sk-ant-api03"},
	},
	{
		id:          "anthropic-admin-api-key",
		description: "Anthropic admin API key",
		pattern:     lazyRegexp{expr: `\b(sk-ant-admin01-[a-zA-Z0-9_\-]{93}AA)(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		keywords:    []string{"sk-ant-admin01"},
	},
	{
		id:          "huggingface-access-token",
		description: "Hugging Face access token",
		pattern:     lazyRegexp{expr: `\b(hf_(?i:[a-z]{34}))(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     2,
		keywords:    []string{"hf_"},
	},
	{
		id:          "huggingface-organization-api-token",
		description: "Hugging Face organization API token",
		pattern:     lazyRegexp{expr: `\b(api_org_(?i:[a-z]{34}))(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     2,
		keywords:    []string{"api_org_"},
	},
	{
		id:          "perplexity-api-key",
		description: "Perplexity API key",
		pattern:     lazyRegexp{expr: `\b(pplx-[a-zA-Z0-9]{48})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$|\b)`},
		entropy:     4,
		keywords:    []string{"pplx-"},
	},

	// ---- Payments, packages, other developer services ----
	{
		id:          "stripe-access-token",
		description: "Stripe API key",
		pattern:     lazyRegexp{expr: `\b((?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     2,
		keywords:    []string{"sk_test", "sk_live", "sk_prod", "rk_test", "rk_live", "rk_prod"},
	},
	{
		id:          "npm-access-token",
		description: "npm access token",
		pattern:     lazyRegexp{expr: `(?i)\b(npm_[a-z0-9]{36})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     2,
		keywords:    []string{"npm_"},
	},
	{
		id:          "pypi-upload-token",
		description: "PyPI upload token",
		pattern:     lazyRegexp{expr: `pypi-AgEIcHlwaS5vcmc[\w-]{50,1000}`},
		entropy:     3,
		keywords:    []string{"pypi-ageichlwas5vcmc"},
	},
	{
		id:          "rubygems-api-token",
		description: "RubyGems API token",
		pattern:     lazyRegexp{expr: `\b(rubygems_[a-f0-9]{48})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     2,
		keywords:    []string{"rubygems_"},
	},
	{
		id:          "sendgrid-api-token",
		description: "SendGrid API key",
		pattern:     lazyRegexp{expr: `\b(SG\.(?i)[a-z0-9=_\-\.]{66})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     2,
		keywords:    []string{"sg."},
	},
	{
		id:          "digitalocean-pat",
		description: "DigitalOcean personal access token",
		pattern:     lazyRegexp{expr: `\b(dop_v1_[a-f0-9]{64})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     3,
		keywords:    []string{"dop_v1_"},
	},
	{
		id:          "heroku-api-key-v2",
		description: "Heroku API key",
		pattern:     lazyRegexp{expr: `\b((HRKU-AA[0-9a-zA-Z_-]{58}))(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     4,
		keywords:    []string{"hrku-aa"},
	},
	{
		id:          "databricks-api-token",
		description: "Databricks API token",
		pattern:     lazyRegexp{expr: `\b(dapi[a-f0-9]{32}(?:-\d)?)(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     3,
		keywords:    []string{"dapi"},
	},
	{
		id:          "shopify-access-token",
		description: "Shopify access token",
		pattern:     lazyRegexp{expr: `shpat_[a-fA-F0-9]{32}`},
		entropy:     2,
		keywords:    []string{"shpat_"},
	},
	{
		id:          "linear-api-key",
		description: "Linear API key",
		pattern:     lazyRegexp{expr: `lin_api_(?i)[a-z0-9]{40}`},
		entropy:     2,
		keywords:    []string{"lin_api_"},
	},
	{
		id:          "doppler-api-token",
		description: "Doppler API token",
		pattern:     lazyRegexp{expr: `dp\.pt\.(?i)[a-z0-9]{43}`},
		entropy:     2,
		keywords:    []string{"dp.pt."},
	},
	{
		id:          "postman-api-token",
		description: "Postman API key",
		pattern:     lazyRegexp{expr: `\b(PMAK-(?i)[a-f0-9]{24}\-[a-f0-9]{34})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     3,
		keywords:    []string{"pmak-"},
	},
	{
		id:          "pulumi-api-token",
		description: "Pulumi access token",
		pattern:     lazyRegexp{expr: `\b(pul-[a-f0-9]{40})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     2,
		keywords:    []string{"pul-"},
	},
	{
		id:          "sentry-user-token",
		description: "Sentry user auth token",
		pattern:     lazyRegexp{expr: `\b(sntryu_[a-f0-9]{64})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     3.5,
		keywords:    []string{"sntryu_"},
	},
	{
		id:          "grafana-service-account-token",
		description: "Grafana service account token",
		pattern:     lazyRegexp{expr: `(?i)\b(glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     3,
		keywords:    []string{"glsa_"},
	},
	{
		// Changed from gitleaks: only the current "hvs." format. gitleaks
		// also matches the legacy "s." + 24 characters, keyed on "s.",
		// which occurs in nearly every English text.
		id:          "vault-service-token",
		description: "HashiCorp Vault service token",
		pattern:     lazyRegexp{expr: `\b(hvs\.[\w-]{90,120})(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     3.5,
		keywords:    []string{"hvs."},
	},
	{
		id:          "age-secret-key",
		description: "age encryption secret key",
		pattern:     lazyRegexp{expr: `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`},
		keywords:    []string{"age-secret-key-1"},
	},

	// ---- Keys and tokens of no one vendor ----
	{
		// The whole block, armour lines included, is the secret.
		id:          "private-key",
		description: "private key",
		pattern:     lazyRegexp{expr: `(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S-]{64,}?KEY(?: BLOCK)?-----`},
		keywords:    []string{"-----begin"},
	},
	{
		// Changed from gitleaks: keyed on "eyj" rather than "ey". A token's
		// header is base64 of a JSON object, `{"`, which always encodes to
		// "eyJ"; "ey" alone is in "key" and "they", which would run this
		// rule on most English text.
		id:          "jwt",
		description: "JSON Web Token",
		pattern:     lazyRegexp{expr: `\b(ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9\/\\_-]{17,}\.(?:[a-zA-Z0-9\/\\_-]{10,}={0,2})?)(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:     3,
		keywords:    []string{"eyj"},
	},
	{
		// lore's own: the password of a URL's user information, in any
		// scheme: postgres://app:S3cr3t@db:5432/app, redis://:S3cr3t@cache,
		// https://deploy:S3cr3t@example.com. A URL with a user alone
		// (https://user@host) has none; a placeholder (:password@,
		// :***@, :${DB_PASSWORD}@) or a default that setup guides print
		// (postgres:postgres, guest:guest) is allowed. The user ends at
		// the first ':' and the password may hold more, as RFC 3986
		// allows, and '#', which people leave unencoded in a DSN. The scheme is ASCII, so a match begins at most 20
		// bytes before "://".
		id:          "url-password",
		description: "password in a URL",
		pattern:     lazyRegexp{expr: `\b[a-zA-Z][a-zA-Z0-9+.-]{1,19}://[^\s:@/?#'"\x60<>]{0,128}:([^\s@/?'"\x60<>]{3,256})@[^\s:@/?#'"\x60<>]`},
		keywords:    []string{"://"},
		before:      20,
		allow: []*allowlist{
			{secret: &lazyRegexp{expr: `^(?:(?i:admin|changeit|default|guest|mysql|pass|passwd|password|postgres|pwd|redis|root|secret|test|user|username)|` +
				`\$\{?\w+\}?|\$\(.*\)|%\(?\w*\)?s|\{\{.*\}\}|\{\w*\}|\[\w*\])$`}},
			&lorePlaceholders,
		},
	},
	{
		// lore's own: the credentials of an HTTP Authorization header,
		// wherever one is written: a request ("Authorization: Bearer …"),
		// a curl -H, a dictionary or a call in code ("Authorization":
		// "Basic …", Header.Set("Authorization", "Token …")). gitleaks'
		// curl-auth-header finds them in curl commands only. A reference
		// (Bearer $TOKEN, Bearer ${token}, Bearer <token>) has no
		// credential; a placeholder (YOUR_TOKEN, ACCESS_TOKEN, xxxx) and
		// the examples of RFC 7617 and of many guides (Aladdin:open
		// sesame, user:pass, username:password) are allowed.
		id:          "authorization-header",
		description: "credentials in an HTTP Authorization header",
		pattern: lazyRegexp{expr: `(?i)\bauthorization['"\x60]?[ \t]*(?:[:=,]|=>)[ \t]*['"\x60]?` +
			`(?:basic[ \t]+([a-z0-9+/]{8}[a-z0-9+/]*={0,3})|(?:bearer|token)[ \t]+([\w~.+/-]{8}[\w~.+/-]*={0,3}))(?:[\x60'"\s;<>.,)\]}]|\\[nr]|$)`},
		entropy:  2.75,
		keywords: []string{"authorization"},
		allow: []*allowlist{
			{secret: &lazyRegexp{expr: `^(?:[A-Z_]+|[a-z_-]+|QWxhZGRpbjpvcGVuIHNlc2FtZQ==|dXNlcjpwYXNz|dXNlcm5hbWU6cGFzc3dvcmQ=)$`}},
			&lorePlaceholders,
		},
	},
	{
		// The user and password given to curl with -u or --user, on the
		// command's line or up to five continued lines later.
		// Changed from gitleaks: the expression begins with "curl", not
		// "\bcurl\b", so that Go's regexp searches for the literal
		// rather than trying every byte of a text that holds it; the
		// runs before -u are lazy, as in gitleaks' curl-auth-header, so
		// that of two curl commands a few lines apart the first one's
		// user is found too (greedy, the match ran on to the second's,
		// and the first was found only once that was redacted); and '<'
		// may follow the secret, as in the other rules.
		id:          "curl-auth-user",
		description: "user and password given to curl",
		pattern: lazyRegexp{expr: `curl\b(?:.*?|.*?(?:[\r\n]{1,2}.*?){1,5})[ \t\n\r](?:-u|--user)(?:=|[ \t]{0,5})` +
			`("(:[^"]{3,}|[^:"]{3,}:|[^:"]{3,}:[^"]{3,})"|'([^:']{3,}:[^']{3,})'|((?:"[^"]{3,}"|'[^']{3,}'|[\w$@.-]+):(?:"[^"]{3,}"|'[^']{3,}'|[\w${}@.-]+)))(?:[\s<>.,)\]}]|\z)`},
		entropy:  2,
		keywords: []string{"curl"},
		allow: []*allowlist{{secret: &lazyRegexp{expr: `[^:]+:(?:change(?:it|me)|pass(?:word)?|pwd|test|token|\*+|x+)|` +
			`['"]?<[^>]+>['"]?:['"]?<[^>]+>|<[^:]+:[^>]+>['"]?|` +
			`[^:]+:\[[^]]+]|` +
			`['"]?[^:]+['"]?:['"]?\$(?:\d|\w+|\{(?:\d|\w+)})['"]?|` +
			`\$\([^)]+\):\$\([^)]+\)|` +
			`['"]?\$?{{[^}]+}}['"]?:['"]?\$?{{[^}]+}}['"]?`}}},
	},
	{
		// lore's own: Django's SECRET_KEY setting (or Flask's
		// app.config['SECRET_KEY']) given as a quoted string. Django's
		// keys hold punctuation (!@#$%^&*(-_=+)) that the generic rule's
		// values may not, so it missed them; gitleaks' later
		// django-insecure-secret-key finds only the development keys
		// that begin "django-insecure-". Words alone ('change-me',
		// 'dev-secret-key') are not keys.
		id:          "django-secret-key",
		description: "Django secret key",
		pattern:     lazyRegexp{expr: `SECRET_KEY['"\]]{0,2}[ \t]*(?::[ \t]*\w+[ \t]*)?=[ \t]*[bru]?(?:"([^"\s]{8,250})"|'([^'\s]{8,250})')`},
		entropy:     3,
		keywords:    []string{"secret_key"},
		allow: []*allowlist{
			{secret: &lazyRegexp{expr: `^[a-zA-Z_.-]+$`}},
			&lorePlaceholders,
		},
	},
	{
		// lore's own: a password, token or secret key assigned a value
		// with punctuation in it (DB_PASSWORD=Xv!hqC#5…, API_TOKEN: "a8%K…",
		// an unquoted SECRET_KEY=k3v9x!q7m#…), which the generic rule's
		// values ([\w.=-], or base64) cannot hold and so missed. It finds
		// the assignment wherever it stands, after prose too ("the key:
		// DB_PASSWORD=…"). It leaves to the generic rule every value the
		// generic rule's alphabet can hold, and takes only values that
		// have a letter, a digit and a mark besides: what people choose
		// as passwords and what key generators make. Code is not a
		// value: a call or an index (getpass(), os.environ[…]), a
		// reference ($DB_PASSWORD, ${…}, %(…)s, {{…}}), a URL or an
		// address, a pattern (^…); nor are names that say the value is
		// about a secret rather than one (token_hash, password_file,
		// secret_name).
		id:          "secret-assignment",
		description: "password, token or secret key with punctuation in it",
		pattern: lazyRegexp{expr: `(?i)(?:passw(?:or)?d|pwd|secret|token|api[_.-]?key|private[_.-]?key|access[_.-]?key)[\w.-]{0,20}['"\]]{0,2}[ \t]{0,5}(?::=|=|:)[ \t]{0,5}['"\x60]?` +
			`([^\s'"\x60<>\\]{7,149}[^\s'"\x60<>\\.,;)\]}])[.,;)\]}]{0,3}(?:[\s'"\x60<>\\]|$)`},
		entropy:      3,
		keywords:     []string{"passw", "pwd", "secret", "token", "key"},
		before:       len("private_"),
		searchInside: true,
		allow: []*allowlist{
			{secret: &lazyRegexp{expr: `^(?:[\w.=+/-]*|[^0-9]*|[^A-Za-z]*)$|` + // the generic rule's, or no digit, or no letter
				`^(?:[$%@#]?[{(\[]|\$\w|\^|[&*]?[A-Za-z_][\w.]*[({\[])|` + // a reference, a template, a pattern, a call, an index or a literal
				`://|^(?:urn|javascript|data|mailto|tel):|^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$|` + // a URL, a URN, an address
				`&\w+=`}}, // a query string: the generic rule's, up to its '&'

			{match: &lazyRegexp{expr: `^(?i:[a-z_.-]*?(?:hash|digest|len|length|size|name|file|path|dir|id|url|uri|type|format|fmt|pattern|regexp?|prompt|field|policy|count|ttl|expiry|expires|header|env|var))['"\]]{0,2}[ \t]*(?::=|=|:)`}},
			&lorePlaceholders,
		},
	},
	{
		// Changed from gitleaks: "pwd" is among the names; the pattern is
		// in assignment form (see assignment); a value may be followed by
		// '&', as in a query string (?access_token=…&scope=…); a value
		// that is itself an assignment is searched (searchInside); and a
		// fourth allowlist, lore's, accepts placeholders and references to
		// the environment.
		id:          "generic-api-key",
		description: "generic API key or password",
		pattern: lazyRegexp{expr: `^(?i)(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|pwd|secret|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}` +
			`(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\x60'"\s;<>.,)\]}&]|\\[nr]|$)`},
		assignment:   &assignment{namePrefix: 50, operatorWithin: 10 + 20 + 3, valueFrom: 10 + 20 + 3 + 4 + 5, valueBytes: "_.=+/-"},
		searchInside: true,
		entropy:      3.5,
		keywords:     []string{"access", "api", "auth", "key", "credential", "creds", "passwd", "password", "pwd", "secret", "token"},
		allow: []*allowlist{
			{secret: &lazyRegexp{expr: `^[a-zA-Z_.-]+$`}},
			{match: &lazyRegexp{expr: `(?i)(?:access(?:ibility|or)|access[_.-]?id|random[_.-]?access|api[_.-]?(?:id|name|version)|rapid|capital|` +
				`[a-z0-9-]*?api[a-z0-9-]*?:jar:|author|X-MS-Exchange-Organization-Auth|Authentication-Results|(?:credentials?[_.-]?id|withCredentials)|` +
				`(?:bucket|foreign|hot|idx|natural|primary|pub(?:lic)?|schema|sequence)[_.-]?key|(?:turkey)|` +
				`key[_.-]?(?:alias|board|code|frame|id|length|mesh|name|pair|press(?:ed)?|ring|selector|signature|size|stone|storetype|word|up|down|left|right)|` +
				`key[_.-]?vault[_.-]?(?:id|name)|keyVaultToStoreSecrets|key(?:store|tab)[_.-]?(?:file|path)|issuerkeyhash|(?-i:[DdMm]onkey|[DM]ONKEY)|keying|` +
				`(?:secret)[_.-]?(?:length|name|size)|UserSecretsId|(?:csrf)[_.-]?token|(?:io\.jsonwebtoken[ \t]?:[ \t]?[\w-]+)|` +
				`(?:api|credentials|token)[_.-]?(?:endpoint|ur[il])|public[_.-]?token|(?:key|token)[_.-]?file|` +
				`(?-i:(?:[A-Z_]+=\n[A-Z_]+=|[a-z_]+=\n[a-z_]+=)(?:\n|\z))|(?-i:(?:[A-Z.]+=\n[A-Z.]+=|[a-z.]+=\n[a-z.]+=)(?:\n|\z)))`},
				stopwords: genericStopwords},
			// gitleaks' line allowlist, one expression split in two so that
			// each begins with a literal Go's regexp can search for.
			{line: &lazyRegexp{expr: `--mount=type=secret,`}},
			{line: &lazyRegexp{expr: `import[ \t]+{[ \t\w,]+}[ \t]+from[ \t]+['"][^'"]+['"]`}},
			&lorePlaceholders,
		},
		generic: true,
	},
}

// lorePlaceholders is lore's addition to the generic rule's allowlists:
// words that mark a value as a stand-in (changeme, your_token_here,
// dummy, 0123456789abcdef…); a reference to the environment whose name holds a digit
// (process.env.API_KEY_V2, os.environ, ENV[...]; gitleaks' letters-only
// allowlist catches the rest); a lower-case path such as config/keys/prod2,
// which the value pattern's base64 branch can match; and an identifier in
// code that names a credential, such as testRSA2048PrivateKey in
// "cert.PrivateKey = testRSA2048PrivateKey", which gitleaks reports — but
// not a password with such a word followed by a digit (Hunter2Secret99).
var lorePlaceholders = allowlist{
	secret: &lazyRegexp{expr: `^(?:(?:process\.env|import\.meta\.env|os\.environ|os\.getenv|System\.getenv|ENV)\b|` +
		`[a-z0-9]+(?:/[a-z0-9]+)+$)|` +
		`[A-Za-z0-9](?:Key|Token|Secret|Passw(?:or)?d|Credential)s?(?:[A-Z_.]|$)`},
	stopwords: []string{"12345678", "abcdefgh", "changeme", "dummy", "example", "placeholder", "redacted", "xxxx", "your"},
}
