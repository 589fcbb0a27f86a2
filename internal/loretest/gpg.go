package loretest

import (
	"os"
	"os/exec"
	"strings"
)

// SigningKey makes a GnuPG key for the repository's identity (no
// passphrase) in a GNUPGHOME of its own, which Getenv and the commands of
// the repository see, and sets commit.gpgSign and user.signingKey as a
// person who signs every commit would. It returns the key's fingerprint.
// Without gpg the test is skipped. The key's agent is stopped when the
// test ends.
func (r *Repo) SigningKey() string {
	r.t.Helper()
	if _, err := exec.LookPath("gpg"); err != nil {
		r.t.Skip("gpg is not installed: signed commits are not tested")
	}
	// The agent's socket lives in GNUPGHOME, whose path must stay short.
	home, err := os.MkdirTemp("", "gpg")
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() {
		kill := exec.Command("gpgconf", "--kill", "gpg-agent")
		kill.Env = append(os.Environ(), "GNUPGHOME="+home)
		kill.Run()
		os.RemoveAll(home)
	})
	r.Setenv("GNUPGHOME", home)
	gpg := func(args ...string) string {
		r.t.Helper()
		cmd := exec.Command("gpg", append([]string{"--batch", "--no-tty"}, args...)...)
		cmd.Env = r.Environ()
		out, err := cmd.CombinedOutput()
		if err != nil {
			r.t.Skipf("gpg %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	gpg("--passphrase", "", "--quick-gen-key", r.Git("config", "user.name")+" <"+r.Git("config", "user.email")+">", "default", "default", "never")
	fpr := ""
	for _, line := range strings.Split(gpg("--list-secret-keys", "--with-colons"), "\n") {
		if f := strings.Split(line, ":"); len(f) > 9 && f[0] == "fpr" {
			fpr = f[9]
			break
		}
	}
	if fpr == "" {
		r.t.Fatal("gpg made no key")
	}
	r.Git("config", "user.signingKey", fpr)
	r.Git("config", "commit.gpgSign", "true")
	return fpr
}
