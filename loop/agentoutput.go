package loop

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"lore/agentout"
	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// Given says which of an iteration's figures its caller gave (a flag, or
// what lore run measured): what the agent's output format says never
// replaces them.
type Given struct {
	Model, Duration, Cost, Files bool
}

// readAgentOutput reads in.Output in its format (agentout; Auto tells it
// from the output): the text the agent said becomes the output ingest
// parses, and the format's model, duration, cost and files modified fill
// those the caller did not give. The files are those inside the
// repository, relative to its top, and not under .agent/; the others are
// left out and said so. It says in one notice what it read, and returns the
// format read.
func readAgentOutput(s *mdstore.Store, in *mdstore.IngestInput, f agentout.Format, given Given, r Reporter) agentout.Format {
	if f == agentout.Text || (f == agentout.Auto || f == "") && !agentout.StartsAsJSON(in.Output) {
		return agentout.Text // text is ingested as it came, with no copy of it made
	}
	out := agentout.Read([]byte(in.Output), f)
	if out.Format == agentout.Text {
		return out.Format
	}
	in.Output = out.Text
	var took []string
	if out.Model != "" && !given.Model {
		in.Model = out.Model
		took = append(took, "model "+out.Model)
	}
	if out.DurationSecs > 0 && !given.Duration {
		in.DurationSecs = math.Round(out.DurationSecs*1000) / 1000
		took = append(took, fmt.Sprintf("%g s", in.DurationSecs))
	}
	if out.CostUSD > 0 && !given.Cost {
		in.CostUSD = out.CostUSD
		took = append(took, fmt.Sprintf("$%.4f", out.CostUSD))
	}
	var outside []string
	if len(out.Files) > 0 && !given.Files {
		in.Files, outside = repositoryFiles(s, out.Cwd, out.Files)
		if n := len(in.Files); n > 0 {
			took = append(took, fmt.Sprintf("%d %s modified", n, words.Plural(n, "file", "files")))
		}
	}
	msg := fmt.Sprintf("read the agent's output as %s (%d %s)", out.Format.Describe(), out.Values, words.Plural(out.Values, "event", "events"))
	if len(took) > 0 {
		msg += ": " + strings.Join(took, ", ")
	}
	if out.Error != "" {
		msg += "; the agent's CLI reported an error: " + words.FirstLine(out.Error, 120)
	}
	if out.Unread > 0 {
		msg += fmt.Sprintf("; %d %s that %s not JSON kept as text", out.Unread, words.Plural(out.Unread, "line", "lines"), words.Plural(out.Unread, "is", "are"))
	}
	if n := len(outside); n > 0 {
		msg += fmt.Sprintf("; %d %s outside the repository left out of files modified: %s", n, words.Plural(n, "file", "files"), strings.Join(outside, ", "))
	}
	r.Notice(msg)
	return out.Format
}

// repositoryFiles maps the files an agent's output names into the
// store's repository (Store.RepoFile, the one rule of --files): a
// relative name is the agent's working directory's (cwd) when the output
// says it, else the repository's top. Those inside come relative to the
// top, each once, the store's .agent/ left out as lore run leaves it out;
// the others are outside, as written.
func repositoryFiles(s *mdstore.Store, cwd string, files []string) (inside, outside []string) {
	agentDir, _ := s.RepoFile(filepath.Join(s.Root(), entry.Dir))
	seen := map[string]bool{}
	for _, f := range files {
		name := f
		if !filepath.IsAbs(name) && filepath.IsAbs(cwd) {
			name = filepath.Join(cwd, name)
		}
		rel, ok := s.RepoFile(name)
		switch {
		case !ok || rel == "":
			outside = append(outside, f)
		case rel == agentDir || strings.HasPrefix(rel, agentDir+"/") || seen[rel]:
		default:
			seen[rel] = true
			inside = append(inside, rel)
		}
	}
	return inside, outside
}
