package gitx

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// signingError is a commit that could not be signed: git or its signing
// program failed (no key, no agent, no git). Update hands the change to
// Options.Defer.
type signingError struct{ msg string }

func (e *signingError) Error() string { return "lore could not sign the commit: " + e.msg }

// signedCommit has C git make the commit object, signed as git commit
// would sign it (user.signingKey or the committer's identity, gpg.format,
// gpg.program): git commit-tree -S with the tree lore built, the parents,
// the message, and lore's author and committer with their dates, so the
// commit is the one lore would have written plus its signature. The tree
// must be in the object database. The object git writes is fsynced here:
// git's default core.fsync leaves loose objects to the page cache.
func (r *Repo) signedCommit(tree Hash, parents []Hash, author, committer signature, message string) (Hash, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return ZeroHash, &signingError{"commit.gpgSign is set and lore signs through git, which is not installed"}
	}
	args := []string{"commit-tree", tree.String()}
	for _, p := range parents {
		args = append(args, "-p", p.String())
	}
	args = append(args, "-S")
	cmd := exec.Command(git, args...)
	cmd.Dir = r.WorkTree
	cmd.Env = r.signingEnviron(author, committer)
	cmd.Stdin = strings.NewReader(message)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.Join(strings.Fields(stderr.String()), " ")
		if msg == "" {
			msg = err.Error()
		}
		return ZeroHash, &signingError{"git commit-tree -S: " + msg}
	}
	out := strings.TrimSpace(stdout.String())
	if !plumbing.IsHash(out) {
		return ZeroHash, &signingError{fmt.Sprintf("git commit-tree -S printed %q", out)}
	}
	h := plumbing.NewHash(out)
	hex := h.String()
	if f, err := os.Open(filepath.Join(r.CommonDir, "objects", hex[:2], hex[2:])); err == nil {
		err = f.Sync()
		f.Close()
		if err != nil {
			return ZeroHash, fmt.Errorf("sync object %s: %w", hex, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) { // not loose: it was there already
		return ZeroHash, fmt.Errorf("sync object %s: %w", hex, err)
	}
	return h, nil
}

// signingEnviron is the environment git commit-tree runs in: what git
// and the signing programs read (configuration, keys, agents) as lore
// was given it, this repository, and lore's author and committer.
func (r *Repo) signingEnviron(author, committer signature) []string {
	keys := []string{"PATH", "HOME", "XDG_CONFIG_HOME", "GNUPGHOME", "GPG_TTY", "GPG_AGENT_INFO", "SSH_AUTH_SOCK", "DISPLAY",
		"LANG", "LC_ALL", "TMPDIR", "USER", "LOGNAME", "EMAIL",
		"GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"}
	if n, err := strconv.Atoi(r.getenv("GIT_CONFIG_COUNT")); err == nil {
		for i := range n {
			keys = append(keys, fmt.Sprintf("GIT_CONFIG_KEY_%d", i), fmt.Sprintf("GIT_CONFIG_VALUE_%d", i))
		}
	}
	var env []string
	for _, k := range keys {
		if v := r.getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	date := func(s signature) string { return "@" + strings.SplitN(s.String(), "> ", 2)[1] }
	return append(env,
		"GIT_DIR="+r.GitDir,
		"GIT_AUTHOR_NAME="+author.Name, "GIT_AUTHOR_EMAIL="+author.Email, "GIT_AUTHOR_DATE="+date(author),
		"GIT_COMMITTER_NAME="+committer.Name, "GIT_COMMITTER_EMAIL="+committer.Email, "GIT_COMMITTER_DATE="+date(committer))
}
