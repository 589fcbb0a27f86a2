// Package mdstore is lore's domain core: the kinds of entries an agent
// remembers, their Markdown files under .agent/, and the Store that reads
// and changes them. Every change goes through one gitx transaction, so it
// becomes one commit that contains only the files it wrote.
//
// The files belong to the user. Parsers report problems as warnings with a
// line number and return every entry they could read; writers change only
// the bytes of the entry they add or remove and keep everything else (prose,
// other headings, damaged blocks) exactly as it was.
package mdstore
