package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

// npmSpecRE is an npm NAME@VERSION in a README code block: an optional
// scope, a name, "@" and a version that starts with a digit (so that
// image references, e-mail addresses and digests are not taken).
var npmSpecRE = regexp.MustCompile(`(?:^|[\s=])((?:@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*@[0-9][0-9A-Za-z.+-]*)(?:$|\s)`)

// readmeSpecs returns every npm spec the README's code blocks name.
func readmeSpecs(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var specs []string
	in := false
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if !in {
			continue
		}
		for _, m := range npmSpecRE.FindAllStringSubmatch(line, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				specs = append(specs, m[1])
			}
		}
	}
	return specs
}

func TestReadmeSpecsFound(t *testing.T) {
	specs := readmeSpecs(t)
	for _, want := range []string{"@deepseek-ai/dsh-headless@0.1.0-rc.8", "@vanducng/oh-my-dsh@0.10.0"} {
		found := false
		for _, s := range specs {
			found = found || s == want
		}
		if !found {
			t.Errorf("README's code blocks do not name %s (found %v): the extraction is broken", want, specs)
		}
	}
	for _, s := range specs {
		if strings.Contains(s, "dshaudit.tar.zst") || strings.HasPrefix(s, "sha256") {
			t.Errorf("%q is not a spec", s)
		}
	}
}

// TestReadmeSpecsResolve: every npm spec the README's examples name is
// published: npm view, against the registry, gives its version.
func TestReadmeSpecsResolve(t *testing.T) {
	e2etest.Require(t, "npm")
	for _, spec := range readmeSpecs(t) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, "npm", "view", spec, "version")
		cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
		out, err := cmd.CombinedOutput()
		cancel()
		_, want, _ := strings.Cut(spec[1:], "@")
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("README names %s, which the npm registry does not have: %v\n%s", spec, err, out)
		}
	}
}
