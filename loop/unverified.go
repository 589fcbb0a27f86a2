package loop

import (
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"lore/mdstore"
	"lore/mdstore/catalog"
	"lore/mdstore/entry"
	"lore/prompt"
	"lore/provenance"
	"lore/usagelog"
)

// unverified tells the entries prime marks as unverified (config.yaml's
// unverified_days): those that cite no file — git can check a cited one,
// and marks it stale when its code changed — written (or last updated)
// more than days ago, and not shown by a prime or lore show in this clone
// for as long: its usage log must have been recording for that long (a
// fresh clone cannot tell, and marks nothing). Showing one is a use: the
// mark is said once, then not until the entry lies unused again.
type unverified struct {
	days    int
	now     time.Time
	cutoff  string // the newest date written that is too old, YYYY-MM-DD
	report  *provenance.Report
	written map[string]string // by memory id: its created date
	c       *catalog.Catalog  // the knowledge's dates
	used    func() map[string]time.Time
	flagged map[string]bool // the answers given, by key
}

func newUnverified(s *mdstore.Store, days int, now time.Time, memories []entry.Memory, c *catalog.Catalog, report *provenance.Report) *unverified {
	if days <= 0 {
		return nil
	}
	u := &unverified{days: days, now: now, cutoff: now.UTC().AddDate(0, 0, -days).Format("2006-01-02"),
		report: report, c: c, written: map[string]string{}, flagged: map[string]bool{}}
	for _, m := range memories {
		u.written[m.ID] = m.Created
	}
	log := usagelog.Open(s.StateDir())
	u.used = sync.OnceValue(func() map[string]time.Time {
		stats, err := log.Read()
		if since := log.Since(stats); err != nil || since.IsZero() || since.After(u.before()) {
			return nil // the log has not watched this clone's primes for that long: it cannot tell
		}
		last := make(map[string]time.Time, len(stats))
		for _, st := range stats {
			last[st.Key] = st.Last
		}
		return last
	})
	return u
}

// is reports whether the entry of a memory id or store path is
// unverified.
func (u *unverified) is(key string) bool {
	if u == nil {
		return false
	}
	if f, ok := u.flagged[key]; ok {
		return f
	}
	f := u.judge(key)
	u.flagged[key] = f
	return f
}

func (u *unverified) judge(key string) bool {
	written, useKey, ok := u.writtenOf(key)
	if !ok || len(written) < 10 || written[:10] > u.cutoff {
		return false
	}
	used := u.used()
	if used == nil || u.report.Cites(key) {
		return false
	}
	last, ok := used[useKey]
	return !ok || last.Before(u.before())
}

// writtenOf is when the memory or knowledge entry of key was written (or
// last updated), and its key in the usage log; ok is false for any other.
func (u *unverified) writtenOf(key string) (written, useKey string, ok bool) {
	if strings.HasPrefix(key, "mem-") {
		return u.written[key], prompt.Key(entry.KindMemory, key), true
	}
	kind, i, found := u.c.Find(key)
	if !found || kind != entry.KindKnowledge {
		return "", "", false
	}
	h, _ := u.c.Head(kind, i)
	return max(h.CreatedAt, h.UpdatedAt), prompt.Key(kind, strings.TrimSuffix(path.Base(key), ".md")), true
}

// before is the start of the time an unverified entry was not shown in.
func (u *unverified) before() time.Time { return u.now.AddDate(0, 0, -u.days) }

// mark is the text prime writes under an unverified entry.
func (u *unverified) mark(key string) string {
	written, _, _ := u.writtenOf(key)
	return fmt.Sprintf("written %s, cites no file git could check, and not shown in %d days: check before relying on it", written[:min(len(written), 10)], u.days)
}
