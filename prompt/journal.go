package prompt

import (
	"fmt"
	"slices"
	"strings"

	"lore/internal/words"
	"lore/mdstore/entry"
)

// The Run Journal of a long run: the newest iteration in full, the run's
// other RecentJournal-1 newest shortened to their outcome and first
// lines, and its older iterations competing by relevance to the task
// (earlierInRun), shortened too; then other runs' relevant entries. A
// run's last five iterations in full were half of every prime from its
// tenth iteration on, and an iteration that built what the task is about
// fell out of sight once five others followed it (issue 37).

// shortNoteLines is how many lines of its notes a shortened iteration
// shows.
const shortNoteLines = 2

// earlierInRun ranks the run's iterations older than its RecentJournal
// newest (this, newest first) by their relevance to the task: as
// another run's entries rank (journalScore), plus one for each of the
// task's title and description words its notes and failure report hold.
// Those scoring nothing are left out.
func (kw keywords) earlierInRun(this []*entry.JournalEntry, t Task, rel map[string]float64) []*entry.JournalEntry {
	if len(this) <= RecentJournal {
		return nil
	}
	var list []scored[*entry.JournalEntry]
	for _, e := range this[RecentJournal:] {
		s, tie := kw.journalScore(e.TaskID, e.FeatureID, e.FilesModified, t, rel[e.Path])
		s += float64(kw.textHits(e))
		if s > 0 {
			list = append(list, scored[*entry.JournalEntry]{e, rank{score: s, tie: tie, time: momentOf(e.CreatedAt)}})
		}
	}
	return best(list)
}

// textHits is how many of the task's title and description words an
// iteration's notes and failure report hold, each counted once.
func (kw keywords) textHits(e *entry.JournalEntry) int {
	text := e.Notes
	if f := e.Failure; f != nil {
		text += "\n" + f.WhatTried + "\n" + f.WhyFailed
	}
	var seen []string // a task's title has a few words
	words.EachKeyword(text, func(w string) {
		if kw.in[w]&inText != 0 && !slices.Contains(seen, w) {
			seen = append(seen, w)
		}
	})
	return len(seen)
}

// journalGroup is where a pick sits in the Run Journal.
type journalGroup uint8

const (
	groupRecent  journalGroup = iota // the run's newest, oldest first
	groupEarlier                     // the run's older iterations relevant to the task
	groupOthers                      // other runs' relevant entries
)

type journalPick struct {
	e     entry.JournalEntry
	group journalGroup
	short bool // shortened to its outcome and first lines
}

// pick chooses the Run Journal in priority order: the newest entry of
// the run in full, its RecentJournal-1 next shortened, up to
// RelevantJournal of its older entries relevant to the task, shortened,
// and up to RelevantJournal of other runs, leaving out the entries
// already shown (Previous Attempts).
func (jr journalRanking) pick(shown map[string]bool) []journalPick {
	var out []journalPick
	take := func(list []*entry.JournalEntry, n int, group journalGroup) {
		for _, e := range list {
			if n == 0 {
				return
			}
			if len(shown) == 0 || !shown[Key(entry.KindJournal, e.Key())] {
				short := group == groupEarlier || group == groupRecent && len(out) > 0
				out = append(out, journalPick{*e, group, short})
				n--
			}
		}
	}
	take(jr.this, RecentJournal, groupRecent)
	take(jr.earlier, RelevantJournal, groupEarlier)
	take(jr.others, RelevantJournal, groupOthers)
	return out
}

// journalSection renders the picks that fit in limit, in priority order,
// each no longer than most characters: the run's recent iterations oldest
// first, then its earlier ones and other runs', most relevant first.
func (o outline) journalSection(picks []journalPick, limit, most int) part {
	if len(picks) == 0 {
		return part{}
	}
	notes := [...]string{groupEarlier: "\n_Earlier in this run:_\n", groupOthers: "\n_From other runs:_\n"}
	blocks := make([]string, len(picks))
	head := o.journalHead()
	fixed := runeLen(head)
	has := map[journalGroup]bool{}
	for i, p := range picks {
		blocks[i] = "\n" + o.journalBlock(p.e)
		if p.short || runeLen(blocks[i]) > most {
			blocks[i] = "\n" + o.shortJournalBlock(p.e, most-1)
		}
		if !has[p.group] {
			has[p.group] = true
			fixed += runeLen(notes[p.group])
		}
	}
	kept := fit(runeLens(blocks), fixed, limit)
	if len(kept) == 0 {
		return part{omitted: len(picks)}
	}
	var groups [3][]int
	for _, i := range kept {
		groups[picks[i].group] = append(groups[picks[i].group], i)
	}
	var b strings.Builder
	b.WriteString(head)
	for k := len(groups[groupRecent]) - 1; k >= 0; k-- { // oldest first
		b.WriteString(blocks[groups[groupRecent][k]])
	}
	for _, g := range []journalGroup{groupEarlier, groupOthers} {
		if len(groups[g]) > 0 {
			b.WriteString(notes[g])
			for _, i := range groups[g] {
				b.WriteString(blocks[i])
			}
		}
	}
	keys := make([]string, len(kept))
	for k, i := range kept {
		keys[k] = Key(entry.KindJournal, picks[i].e.Key())
	}
	return part{md: b.String(), shown: len(kept), omitted: len(picks) - len(kept), keys: keys}
}

// shortJournalBlock is an iteration shortened to its outcome, its task
// and the first lines of its notes (or why it failed), with the command
// that shows the rest when lines of its notes are left out, in at most
// limit characters when its heading and task fit in that. Its model,
// duration and files are left out.
func (o outline) shortJournalBlock(e entry.JournalEntry, limit int) string {
	var b strings.Builder
	b.WriteString(o.entry(iterationHeading(e)))
	if e.TaskID != "" {
		fmt.Fprintf(&b, "- **Task**: %s\n", e.TaskID)
	}
	notes, label := strings.TrimSpace(e.Notes), "Notes"
	if notes == "" && e.Failure != nil {
		notes, label = strings.Join(strings.Fields(e.Failure.WhyFailed), " "), "Why it failed"
	}
	var lines []string
	for _, l := range strings.Split(notes, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	rest := "  " + restLine(e.Key()) + "\n"
	lead := "- **" + label + "**: "
	room := limit - runeLen(b.String()) - runeLen(rest) - runeLen(lead)
	cost := func(l string) int { return runeLen(l) + 3 } // "  " and "\n"
	shown := firstLines(strings.Join(lines[:min(len(lines), shortNoteLines)], "\n"), room, cost)
	if shown != "" {
		b.WriteString(lead + strings.ReplaceAll(shown, "\n", "\n  ") + "\n")
	}
	if shown != strings.Join(lines, "\n") {
		b.WriteString(rest) // the notes' rest
	}
	return b.String()
}
