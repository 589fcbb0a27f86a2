package gitx

import "strings"

// Trailers are the trailers of a commit message, by key: the values of
// its "Key: value" lines, in order. lore writes them as its messages'
// last paragraph (mdstore.CommitMessage) and reads them back with this,
// the one reader.
type Trailers map[string][]string

// ParseTrailers reads the trailers of message as git does: its last
// paragraph, when every line of it is "Key: value" with a key of no
// spaces; a message whose last paragraph is anything else (a body, the
// subject alone) has none.
func ParseTrailers(message string) Trailers {
	message = strings.TrimRight(message, "\n")
	i := strings.LastIndex(message, "\n\n")
	if i < 0 {
		return nil // a subject alone
	}
	out := Trailers{}
	for _, line := range strings.Split(message[i+2:], "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil
		}
		out[k] = append(out[k], strings.TrimSpace(v))
	}
	return out
}

// Last is the last value of key, "" for none.
func (t Trailers) Last(key string) string {
	if vs := t[key]; len(vs) > 0 {
		return vs[len(vs)-1]
	}
	return ""
}
