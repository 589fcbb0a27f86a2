// Package loop is what one turn of an agent loop does, as functions over
// an open mdstore.Store, for every front end (the CLI, the MCP server, a
// hook): Open opens the store as every command does (config.yaml's
// warnings, the merge driver registered in a fresh clone, the queue of
// changes made during a merge or rebase committed); Prime reads and ranks
// what an iteration is told, and counts what it shows in the usage log;
// Ingest records an iteration and what follows it (seed 002's summary of
// learnings when due, the end of the run); EndRun, PlanPrune and Status
// are the run's end, the usage log's judgement and the loop figures; Show
// reads one entry of any kind; and Run runs an agent for one task —
// prime, the agent's process with the signals the caller catches passed
// on, the files it changed, the iteration recorded — until done or seed
// 002's fourth consecutive failure, ending in an Outcome the caller maps
// to its exit status. Policy lives here, not in the front ends: they turn
// their input into a request, call one function, and render the result.
// What a step has to say beside its result goes to a Reporter;
// ErrorText words an error as lore says it to a person.
package loop
