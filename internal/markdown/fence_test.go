package markdown

import "testing"

func TestFence(t *testing.T) {
	cases := []struct {
		line, run string
		bare      bool
	}{
		{"```", "```", true},
		{"```go", "```", false},
		{"  > ~~~~  \r", "~~~~", true},
		{"\t```` x `y`", "", false}, // a backtick fence's info holds no backtick
		{"~~~ x `y`", "~~~", false},
		{"``", "", false},
		{"text ```", "", false},
	}
	for _, c := range cases {
		if run, bare := Fence(c.line); run != c.run || bare != c.bare {
			t.Errorf("Fence(%q) = %q, %v; want %q, %v", c.line, run, bare, c.run, c.bare)
		}
	}
	if !Closes("  ````", "```") || Closes("``", "```") || Closes("~~~", "```") || Closes("```go", "```") {
		t.Errorf("Closes")
	}
	if got := FenceFor("a ```` b `` c"); got != "`````" {
		t.Errorf("FenceFor = %q", got)
	}
	if got := FenceFor("no backticks"); got != "```" {
		t.Errorf("FenceFor = %q", got)
	}
}
