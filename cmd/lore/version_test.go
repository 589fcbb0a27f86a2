package main

import (
	"runtime/debug"
	"testing"
)

// TestVersionText: what lore --version says for the build infos that go
// build, go install and go run record.
func TestVersionText(t *testing.T) {
	const rev = "6fcc3f9a1b2c3d4e5f60718293a4b5c6d7e8f901"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "-buildmode", Value: "exe"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-11-23T21:13:00Z"},
			{Key: "vcs.modified", Value: modified},
		}
	}
	main := func(version string) debug.Module { return debug.Module{Path: "lore", Version: version} }
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "devel"},
		{"go run or a test binary", &debug.BuildInfo{Main: main("(devel)")}, "devel"},
		{"no main module version", &debug.BuildInfo{Main: main("")}, "devel"},
		{"build at a clean tag", &debug.BuildInfo{Main: main("v1.2.3"), Settings: vcs("false")}, "v1.2.3"},
		{"install of a tagged module", &debug.BuildInfo{Main: main("v1.2.3")}, "v1.2.3"},
		{"install at a commit", &debug.BuildInfo{Main: main("v0.0.0-20261123211300-6fcc3f9a1b2c")}, "v0.0.0-20261123211300-6fcc3f9a1b2c"},
		{"build from a checkout, go 1.24 and later", &debug.BuildInfo{Main: main("v0.0.0-20261123211300-6fcc3f9a1b2c"), Settings: vcs("false")},
			"devel 6fcc3f9a1b2c 2026-11-23T21:13:00Z"},
		{"build after a tag", &debug.BuildInfo{Main: main("v1.2.4-0.20261123211300-6fcc3f9a1b2c"), Settings: vcs("false")},
			"devel 6fcc3f9a1b2c 2026-11-23T21:13:00Z"},
		{"build from a modified checkout", &debug.BuildInfo{Main: main("v0.0.0-20261123211300-6fcc3f9a1b2c+dirty"), Settings: vcs("true")},
			"devel 6fcc3f9a1b2c 2026-11-23T21:13:00Z (modified)"},
		{"build at a tag, modified", &debug.BuildInfo{Main: main("v1.2.3+dirty"), Settings: vcs("true")},
			"devel 6fcc3f9a1b2c 2026-11-23T21:13:00Z (modified)"},
		{"build from a checkout, go 1.23 and earlier", &debug.BuildInfo{Main: main("(devel)"), Settings: vcs("true")},
			"devel 6fcc3f9a1b2c 2026-11-23T21:13:00Z (modified)"},
		{"a revision alone", &debug.BuildInfo{Main: main("(devel)"), Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}},
			"devel abc"},
	} {
		if got := versionText(tc.bi); got != tc.want {
			t.Errorf("%s: versionText = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestVersionFromBuildInfo: lore --version prints what the env's build
// info says, and a version set with -ldflags wins over it.
func TestVersionFromBuildInfo(t *testing.T) {
	e, stdout, _ := testEnv(t.TempDir())
	e.buildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Main: debug.Module{Path: "lore", Version: "v1.2.3"}}, true
	}
	if code := run([]string{"--version"}, e); code != exitOK || stdout.String() != "lore version v1.2.3\n" {
		t.Errorf("lore --version: exit %d, %q", code, stdout)
	}

	defer func(v string) { version = v }(version)
	version = "9.9.9-ldflags"
	stdout.Reset()
	if code := run([]string{"--version"}, e); code != exitOK || stdout.String() != "lore version 9.9.9-ldflags\n" {
		t.Errorf("lore --version with -ldflags: exit %d, %q", code, stdout)
	}
}
