package sigils

import "lore/internal/markdown"

// codeSpans is the code in an agent's output, in order: its fenced code
// blocks and inline code spans, as internal/markdown finds them with
// CommonMark's parser and the leniencies agents need — a fence may be
// indented any amount (fences in list items) or quoted ("> ```"), a
// fence that is never closed is not code (an agent that forgot to close
// one still means the sigils after it), and indented text is text.
func codeSpans(text string) []markdown.Code {
	return markdown.Parse([]byte(text)).Code()
}
