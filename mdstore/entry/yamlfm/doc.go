// Package yamlfm reads and writes the YAML frontmatter of lore's files:
// a Doc is a file's frontmatter read field by field, keeping each field's
// line (through yaml.v3's nodes, or, for the few "key: value" lines lore
// itself writes, the fast path of fast.go, which makes the nodes yaml.v3
// would), and collecting what is wrong with its fields as Problems rather
// than stopping at the first; a Writer renders frontmatter in the seeds'
// style (strings double-quoted, lists in flow style); Quote and FlowItem
// are its quoting, ErrorLine reads yaml.v3's errors.
//
// It knows no kind of entry: package entry says which fields each kind
// has and what they mean, and turns a Doc's problems into its FileError.
package yamlfm
