package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkAdd measures one `lore add` in-process (without process
// start-up) on a repository of 1000 tracked files. Whole-process figures
// against git are in bench/ (go run ./bench add).
func BenchmarkAdd(b *testing.B) {
	dir := b.TempDir()
	gitEnv := []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, gitEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("config", "user.name", "B")
	git("config", "user.email", "b@example.com")
	for i := 0; i < 1000; i++ {
		p := filepath.Join(dir, "src", fmt.Sprintf("d%02d", i/100), fmt.Sprintf("f%04d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("package d\n// %d\n", i)), 0o644)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "corpus")
	git("repack", "-adq")
	e := &env{stdin: &bytes.Buffer{}, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, now: time.Now,
		random: nil, getenv: func(k string) string {
			if k == "HOME" {
				return dir
			}
			return ""
		}, workDir: dir}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if code := run([]string{"add", fmt.Sprintf("memory %d", i), "--format", "quiet"}, e); code != 0 {
			b.Fatalf("exit %d: %s", code, e.stderr)
		}
	}
}
