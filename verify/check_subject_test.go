package verify

import (
	"strings"
	"testing"
)

// TestRegistrySpecFor: the dependency values an honest `pnpm add
// name@version` writes pass; local, aliased and other specifiers do not
// (SPEC.md "What the verifier cross-checks", class 6).
func TestRegistrySpecFor(t *testing.T) {
	for _, c := range []struct {
		v, version string
		ok         bool
	}{
		{"1.0.0", "1.0.0", true},
		{"^1.0.0", "1.0.0", true},
		{"~1.0.0", "1.0.0", true},
		{"1.0.0-rc.1", "1.0.0-rc.1", true},
		{"^0.1.0-rc.8", "0.1.0-rc.8", true},
		{"^2.0.0", "1.0.0", false},
		{"1.0.1", "1.0.0", false},
		{"file:/pkgs/hello-dsh-plugin-1.0.0.tgz", "1.0.0", false},
		{"link:/pkgs/hello", "1.0.0", false},
		{"workspace:^1.0.0", "1.0.0", false},
		{"npm:hello-dsh-plugin@1.0.0", "1.0.0", false},
		{"https://registry.npmjs.org/hello-dsh-plugin/-/hello-dsh-plugin-1.0.0.tgz", "1.0.0", false},
		{"github:owner/repo", "1.0.0", false},
		{"/pkgs/hello-dsh-plugin-1.0.0.tgz", "1.0.0", false},
		{"latest", "1.0.0", false},
		{"", "1.0.0", false},
		{strings.Repeat("1.0.0 || ", 40) + "1.0.0", "1.0.0", false},
	} {
		if got := registrySpecFor(c.v, c.version); got != c.ok {
			t.Errorf("registrySpecFor(%q, %q) = %v, want %v", c.v, c.version, got, c.ok)
		}
	}
}

func TestClipText(t *testing.T) {
	if got := clipText("short"); got != "short" {
		t.Errorf("clipText(short) = %q", got)
	}
	long := strings.Repeat("é", 150) // 300 bytes
	got := clipText(long)
	if !strings.HasSuffix(got, "…") || len(got) > 200+len("…") || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Errorf("clipText(long) = %q", got)
	}
}
