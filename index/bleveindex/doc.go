// Package bleveindex is lore's search index: a bleve (scorch) index in an
// index directory under <git-dir>/lore/index (package fresh owns its
// layout, the manifest of what it holds and the check of what changed),
// never committed, brought up to date before every search. It is linked
// only into lore-index, which Serve runs: one index.Request in, one
// index.Response out. It uses scorch directly rather than bleve's
// top-level package, which would add another 7 ms and 16 MB.
//
// # Schema
//
// Keyword fields kind, type, tag, eid, run, task, outcome, file and
// created (UTC RFC 3339, with doc values to sort by); text fields title,
// tags, content (title, tag words and content together, so that one fuzzy
// automaton per query word finds a typo's near words in every field —
// building it is the costly part of a fuzzy query) and stems (the
// content's English stems); and _doc, the stored JSON of the document,
// which is what a hit shows. A search first reads, for each query word,
// how many entries hold it and its stem (one dictionary lookup per field
// and segment), which decides whether it is common and whether it may be a
// typo (index.QueryWords). Text is analyzed straight into term frequencies
// with the words of package internal/words. A query's text is ranked by
// index.Scorer, the rule Scan follows too (rank): the postings of each
// query word's clauses, with their term frequencies and norms, walked
// side by side in document order; filters are a searcher advanced
// alongside, and the learnings not shown the few documents of their
// statuses. Ties break by creation time, then id, as in Scan: those are
// read for the hits kept (the limit's best, and any as good as the last).
//
// # Generations and locks
//
// A rebuild writes a new generation (offline, on every core: see
// builder) and switches the index directory's
// current file to it, so readers of the old one are never disturbed; a
// wrong format, a damaged current file or manifest, or a damaged
// generation trigger one. Writers hold write.lock (flock: a crash leaves
// no stale lock); readers open scorch read-only, whose bolt file lock makes
// them wait for a writer. Every wait is bounded by Options.Timeout; past
// it the caller gets ErrBusy and answers by scanning instead. Once a
// writer has sealed a generation it removes the segment files the seal
// does not hold (fresh.Seal.RemoveUnsealed): bleve leaves those a merge
// replaced behind when it is closed, so the index on disk is what it
// holds.
//
// # Damage
//
// bleve does not check what it reads: when a segment of the latest
// snapshot does not open, scorch logs a line and falls back, silently, on
// an older snapshot or on none — an empty index that answers "No entries
// match." — and a segment that opens but holds other bytes answers
// wrongly; bolt panics, or faults, on a damaged root.bolt. So a
// generation is believed only as its seal says (fresh.Seal): every open
// (openChecked) compares the stamps of the files bleve reads with the
// seal's (~31 µs at 1k and 10k entries: BENCHMARKS.md), reads the bytes
// of a file whose stamp changed and compares their CRC-32C, and then checks
// that bleve loaded the sealed snapshot (its segments, their documents,
// the total); `lore index status` and `refresh` read every byte. A writer
// checks before it opens (scorch's own goroutines, which a writer starts,
// would crash on damaged data), removes the seal, and writes it again
// once it has closed the generation and bleve has opened it again with
// every document the writer left. A reader that finds a generation not as
// sealed looks again holding the write lock (a writer may be between
// closing and sealing, or a rebuild between switching generations and
// removing the old one); if it still is not, the generation is rebuilt,
// and the search answers from the new one, saying why it was rebuilt, or,
// when that fails too, by scanning. Every call into bleve is guarded
// (guard): a panic, or a fault on a mapped file, is an error; a search
// that fails on a generation that passed its check removes the seal, so
// that the next search rebuilds it. bleve's log lines go to the trace,
// never to lore's stderr (Serve).
//
// # Updating after changes: answer first, finish after
//
// The changed entries a search can find (index.MayMatch: passing its
// filters and holding one of its words or a near miss — decided without an
// edit distance for most words, by length and by the set of letters) go
// into a first batch, which also deletes the old versions of all the other
// changed entries, so that no search sees an entry as it was. The batch
// returns as soon as it can be searched (scorch's unsafe_batch, with a
// persisted callback and the error callback routed back to it); the search
// runs on the writer and lore-index writes its answer (Response.Working)
// and detaches (ServeOptions.Detach), so lore, which reads the answer to
// its end and does not wait for the process, goes on. Then the second
// batch indexes the other changed entries, scorch writes both to disk,
// small segments are merged, and the next manifest, written aside
// meanwhile, is put in place by a rename — never before the batches are on
// disk, so a crash leaves the old manifest and the changes are indexed
// again. All that time the process holds write.lock: the next search finds
// the same changes against the old manifest, waits for the lock, sees the
// manifest replaced and finds nothing left. An error after the answer goes
// to the directory's last-error file; the next search says it, status
// shows it, a successful update removes it. At 100 changed entries the
// answer comes after the first batch (~5 entries for a mid-frequency
// word): 1.6× an unchanged search instead of 2.2× at 1k entries.
//
// Each update writes one segment, and each segment slows every search (at
// 100k entries ~5 ms each: a fuzzy query walks every segment's
// dictionary). Past four segments the small ones are merged, in tiers of
// four (bleve's tiered plan with a floor of 100 documents); a segment of
// more than a quarter of the index never takes part, so an update never
// rewrites the whole index.
//
// On this project's VM a first touch of a page costs ~11 µs, and indexing
// 100 files touches ~8 MB of fresh heap: a check that finds 16 files
// changed prefaults ~80 KiB for each file it expects to find changed with
// one madvise(MADV_POPULATE_WRITE) on another core (fresh.Prefault). A
// trace (ServeOptions.Trace, LORE_TRACE for lore-index) appends each
// phase's time, memory allocated and collections to a file — also after
// lore was let go. Tried and dropped: building the batch in two parts on
// two cores (no faster, twice the segments), and running the check in lore
// while lore-index starts (the check and bleve's start-up then compete for
// two cores, and the documents cross a pipe).
package bleveindex
