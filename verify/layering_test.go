package verify

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoRunnerImport keeps the layers apart: the verifier and the report
// must work with no container engine and no network, so neither imports
// the runner, the engine, the image builder, the package fetcher or the
// replay re-run (SPEC.md "Verification"). replay/compare, the pure
// result types of a replay, is allowed.
func TestNoRunnerImport(t *testing.T) {
	for _, pkg := range []string{".", "../report"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, banned := range []string{"/runner", "/engine", "/image", "/pkgsource", "/replay"} {
				if strings.HasPrefix(dep, "github.com/dshaudit/dshaudit") && strings.HasSuffix(dep, banned) {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

// TestNoSigstoreLink keeps the Sigstore stack out of verify and of its
// fuzz target's test binary: verify reaches signatures only through
// signed.Checker (attest.Policy implements it), because a fuzz target in
// a test binary that links sigstore-go runs at most about 4,700
// executions a second whatever it does (DESIGN.md "Fuzzing").
func TestNoSigstoreLink(t *testing.T) {
	for _, args := range [][]string{{"list", "-deps", "."}, {"list", "-deps", "-test", "./verifyfuzz"}} {
		out, err := exec.Command("go", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/sigstore/") || dep == "github.com/dshaudit/dshaudit/attest" {
				t.Errorf("go %s: depends on %s", strings.Join(args, " "), dep)
			}
		}
	}
}
