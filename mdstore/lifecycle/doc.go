// Package lifecycle is what happens to entries after they are written
// (seeds 002 and 004): a learning's status and its superseding, the
// summary of similar learnings, pruning, the extraction of a run's
// learnings and their promotion, lore's export and import (with the
// seed systems' stores an import reads), and the revert of one
// iteration (revert.go). Each change is planned, then applied, as
// restic's PlanPrune and Execute are: PlanPrune, PlanSummary,
// PlanPromotion, PlanExtraction, PlanImport and PlanRevert read the store and decide,
// changing nothing (a dry run prints the plan), and the plan's Apply makes
// it one commit through mdstore's write transaction, deciding again under
// the lock what depends on the store as the commit builds on it (a
// near-duplicate, a new id). Edits are frontmatter lines set in place
// (mdstore.OpFields), so what a person wrote in the file stays.
package lifecycle
