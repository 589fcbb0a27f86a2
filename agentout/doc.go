// Package agentout reads what an agent's CLI wrote as what it is: plain
// text, or the JSON of Claude Code (`claude -p --output-format json`, and
// `stream-json`), of Codex (`codex exec --json`) or of Gemini CLI (`gemini
// -p … --output-format json`). Read returns the text the agent said — the
// assistant's text blocks in order, or the final result when that is all
// there is — and what the format tells besides: the files its tool uses
// edited, the cost, the tokens, the duration, the model, and the error the
// CLI reported. The sigils of an iteration are parsed from that text, so
// that `<learning category="tool_usage">` is an attribute list again and
// not the JSON-escaped `category=\"tool_usage\"`.
//
// Detect tells the format from the first non-blank bytes: a JSON object
// (or array) whose shape is one of the formats; anything else is text, and
// text is returned byte for byte as it came.
//
// Reading never fails. A value that is not JSON — a line the CLI printed
// among its events, the cut-off last line of a CLI that crashed, stderr
// after stdout — is kept as text in its place; what did parse is kept too.
// Reading is linear in the input and holds no more than a few copies of
// it; a tool's input (a file's whole content in a Write) is scanned, not
// kept. The package uses the standard library only.
package agentout
