// Package prompt assembles what lore hands an agent before an iteration:
// the context block of `lore prime`. It decides what fits in a budget and
// renders it; it never cuts a UTF-8 character, shows an entry longer than
// a third of its section as its first lines and `lore show ID` (cap.go),
// never cuts one otherwise, and says in one line what it left out.
//
// Prime ranks the knowledge and learnings by their heads (catalog.Head:
// tags, times, a knowledge entry's length, a learning's seed-004 figures)
// and reads whole only the entries its sections examine: its work beyond
// ranking grows with what it shows, not with the store (Shortlist reads
// the heads of a large store's entries cache while the search index is
// asked).
//
// Near-duplicates (an agent writing the same thing down every iteration:
// more than 80% of their words shared, internal/neardup) are shown once,
// the newest, among the entries a section examines. A section takes its
// ranked entries in order and examines every one until it is full — its
// budget has no room for the next entry it keeps, or it keeps as many as
// it shows (MaxLearnings) — and the next 10 (nearDuplicateLookAhead);
// past those, only a knowledge entry its budget still has room for (a
// smaller one further down may fit) and the first MaxLearnings learnings
// of each seed-004 kind (the kinds take turns in the places shown). An
// entry examined that nearly duplicates one kept before it is not shown,
// and takes that entry's place when it is newer; a copy further down is
// not compared with anything. The left-out line counts the candidates
// not shown, near-duplicates merged only among those examined: "19
// learnings beyond the 5 prime shows" may count copies of those shown.
package prompt
