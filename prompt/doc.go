// Package prompt assembles what lore hands an agent before an iteration:
// the context block of `lore prime`. It decides what fits in a budget and
// renders it; it never cuts an entry in half or a UTF-8 character, and it
// says in one line what it left out.
package prompt
