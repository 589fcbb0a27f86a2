// Package secrets finds credentials in text, so that lore never lets one
// reach git through its memory files.
//
// Package mdstore checks every field of what it is asked to write: `lore
// add`, `lore knowledge add`, `lore learning add` and `lore journal add`
// refuse a field holding a secret and name the rule that matched (Scan);
// `lore ingest` keeps what it records but replaces each secret with
// "[REDACTED:<rule>]" (Redact). `lore validate`, which the pre-commit hook
// runs, blocks files holding one, with "path:line" messages built from
// Finding.Line. And cmd/lore redacts any secret an error message would
// echo back to the terminal.
//
// # Where the rules come from
//
// Most rules are ported, as data, from the default configuration of gitleaks
// (github.com/gitleaks/gitleaks, config/gitleaks.toml; MIT licence,
// Copyright (c) 2019 Zachary Rice) as released in v8.30.1, the same file as
// at commit b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b. A ported rule keeps
// gitleaks' id, regular expression (gitleaks is written in Go, so its
// expressions are RE2), keywords, entropy threshold, allowlists and
// stopwords, and gitleaks' way of applying them: a rule runs only on text
// holding one of its keywords, compared without regard to case; its secret
// is the first non-empty capture group of a match, or the whole match; a
// secret whose Shannon entropy is not above the rule's threshold, or that an
// allowlist accepts, is not reported. gitleaks' global allowlist applies to
// every rule. Where a rule differs from gitleaks', a comment at the rule says
// how and why; one change applies to all of them: a secret may be followed
// by '<', so that a token right before a tag ("<journal>…sk_live_…</journal>")
// is found (rules.go).
//
// Seven rules are lore's own, for credentials that gitleaks' default set
// leaves to its generic rule or to its private-key rule, or misses:
// aws-secret-access-key, gcp-service-account-key,
// azure-storage-account-key, url-password (the password of
// scheme://user:password@host), authorization-header (Basic, Bearer and
// Token credentials wherever the header is written, not only in curl),
// django-secret-key and secret-assignment (a password, token or secret key
// whose value holds punctuation the generic rule's values cannot:
// DB_PASSWORD=Xv!hq…, an unquoted SECRET_KEY=…). lore adds to the generic
// rule's allowlists the placeholders people write for a secret (changeme,
// your_token, dummy…), and gives its own rules the same.
//
// lore changes two things in how the generic rule searches: a value may be
// followed by '&', as in a query string, and a value that is itself an
// assignment to a name holding a keyword is no value — in "the key:
// DB_PASSWORD=…" gitleaks takes "DB_PASSWORD=…" for the value of "key",
// which its stopwords then allow, and so misses the password; lore goes
// on inside the value and finds DB_PASSWORD's (searchInside, in search.go).
//
// # Cost
//
// lore is a command-line tool whose start-up is measured, so loading the
// package runs no code: the rules are a literal, and each expression is
// compiled the first time a text holds one of its rule's keywords. Text
// holding no keyword, which is most of what lore stores, is read once, with
// no allocation. Go's regexp has no DFA, so patterns that cannot begin with
// a literal are run only near their keywords; search.go says how.
package secrets
