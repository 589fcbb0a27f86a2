// Package detach lets a process's caller go on while the process
// finishes its work: lore-index answers a search, then detaches (its
// standard output and error pointed at /dev/null, so that lore, which
// reads the answer to its end, stops waiting) and goes on indexing,
// having closed what it inherited beyond the standard three descriptors,
// so that nobody waiting on a pipe lore was handed waits for it; a
// resident lore-index detaches once it listens. It is
// a process concern, so it lives under cmd/, shared by lore-index and the
// tests that run lore-index in process.
package detach
