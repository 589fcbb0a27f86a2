// Package index is lore's search: the documents an entry becomes, the
// query a search asks, the ranking rules every searcher follows, and the
// policy that decides how a search is answered (Searcher). It does not
// itself link bleve, so that the lean lore binary can use it.
//
// The bleve index lives in a second binary, lore-index (package
// index/bleveindex), because linking bleve adds 10–15 ms to the start of
// every process, which lore's write commands cannot afford. lore runs it
// with one JSON Request on its stdin and reads one Response from its
// stdout (Helper, protocol version checked). Searcher starts it while the
// store is opened, and when it is missing, busy or fails, scans the files
// with Scan instead and says so (Answer.Notices).
//
// Both searchers follow the same rules, and score by one of them
// (Scorer, over what each finds of a document's words: field, frequency,
// field length, near words), so they answer alike: words are runs of
// letters and digits (package internal/words), lowercased, without
// English stop words; a query word matches exactly, or by its English
// stem, or — only when no entry holds it and it has four letters or more
// (a typo) — within Fuzziness edits (swaps count one, as in bleve's
// Levenshtein automaton); a title or tag word weighs a quarter more than
// a content word, exactly or fuzzily, a fuzzy match half an exact one; a
// word written joined or split where the store writes the other form
// meets it (compound.go). A word that more than 15% of the entries hold
// is common (QueryWords): when a query has rare words, an entry must
// match one of them, and its score is multiplied by the share of the rare
// words it matched, the common words adding theirs; a query of common
// words alone finds what matches any of them, unless it is Strict
// (Relevance's). Package indextest is the conformance suite both pass;
// bleveindex's conformance tests check they answer the labelled sets of
// go run ./bench recall, and random stores, alike. And both read the same
// files: LoadDocs (what Scan searches) and index/fresh (what the index
// holds) read the store as mdstore does — regular files only, through no
// symbolic link, each at most its mdstore.ReadLimit, a SkillLink read
// where it points — so the index and the scan find the same entries.
package index
