package gitx

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// identities returns the author and committer for a commit made at now,
// the way git chooses them: GIT_AUTHOR_* / GIT_COMMITTER_* from the
// environment, then author.* / committer.*, then user.*, then EMAIL, then a
// name and address made from the login and host names.
func (r *Repo) identities(now time.Time) (author, committer signature, err error) {
	pick := func(role string) (signature, error) {
		upper := strings.ToUpper(role)
		name := firstNonEmpty(r.getenv("GIT_"+upper+"_NAME"), r.configValue(role+".name"), r.configValue("user.name"))
		email := firstNonEmpty(r.getenv("GIT_"+upper+"_EMAIL"), r.configValue(role+".email"), r.configValue("user.email"), r.getenv("EMAIL"))
		if name == "" || email == "" {
			// Only now: the guess asks the system user database.
			guessName, guessEmail := guessIdentity(r.getenv)
			name, email = firstNonEmpty(name, guessName), firstNonEmpty(email, guessEmail)
		}
		when := now
		if raw := r.getenv("GIT_" + upper + "_DATE"); raw != "" {
			t, err := parseGitDate(raw)
			if err != nil {
				return signature{}, fmt.Errorf("GIT_%s_DATE: %w", upper, err)
			}
			when = t
		}
		return signature{Name: sanitizeIdent(name), Email: sanitizeIdent(email), When: when}, nil
	}
	if author, err = pick("author"); err != nil {
		return
	}
	committer, err = pick("committer")
	return
}

func (r *Repo) configValue(key string) string {
	v, _ := r.config.Get(key)
	return v
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// sanitizeIdent removes what would break an ident line, as git's
// strbuf_addstr_without_crud does.
func sanitizeIdent(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '<', '>', '\n', '\r', 0:
			return -1
		}
		return r
	}, s)
	return strings.Trim(s, " .,:;\"'\t")
}

// guessIdentity makes a name and address from the login and host names,
// used when nothing is configured. It reads the environment rather than
// the system user database, which would need cgo and NSS lookups.
func guessIdentity(getenv func(string) string) (name, email string) {
	login := firstNonEmpty(getenv("USER"), getenv("LOGNAME"), "lore")
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	if !strings.Contains(host, ".") {
		host += ".(none)"
	}
	return login, login + "@" + host
}

// parseGitDate accepts the date formats git documents for GIT_AUTHOR_DATE:
// "@<unix> <tz>" and "<unix> <tz>" (git's internal format), RFC 2822 and
// ISO 8601.
func parseGitDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	fields := strings.Fields(strings.TrimPrefix(s, "@"))
	if len(fields) >= 1 && len(fields) <= 2 {
		if sec, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			loc := time.UTC
			if len(fields) == 2 {
				z, err := parseZone(fields[1])
				if err != nil {
					return time.Time{}, err
				}
				loc = z
			}
			return time.Unix(sec, 0).In(loc), nil
		}
	}
	layouts := []string{
		time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05 -0700", "2006-01-02 15:04:05",
		time.RFC1123Z, "Mon, 2 Jan 2006 15:04:05 -0700", "Mon Jan 2 15:04:05 2006 -0700",
	}
	for _, layout := range layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("invalid date %q (use \"@<unix seconds> <+hhmm>\", RFC 2822 or ISO 8601)", s)
}

func parseZone(z string) (*time.Location, error) {
	if len(z) != 5 || (z[0] != '+' && z[0] != '-') {
		return nil, fmt.Errorf("invalid time zone %q", z)
	}
	hh, err1 := strconv.Atoi(z[1:3])
	mm, err2 := strconv.Atoi(z[3:5])
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("invalid time zone %q", z)
	}
	offset := hh*3600 + mm*60
	if z[0] == '-' {
		offset = -offset
	}
	return time.FixedZone("", offset), nil
}
