package verify

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// goListDeps is what `go list -deps [flags] pkg` prints: pkg and every
// package it links.
func goListDeps(t *testing.T, flags []string, pkg string) []string {
	t.Helper()
	args := append(append([]string{"list", "-deps"}, flags...), pkg)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.Fields(string(out))
}

// TestNoRunnerImport keeps the layers apart: the verifier and the report
// must work with no container engine and no network, so neither imports
// the runner, the engine, the image builder, the package fetcher or the
// replay re-run (SPEC.md "Verification"). replay/compare, the pure
// result types of a replay, is allowed.
func TestNoRunnerImport(t *testing.T) {
	for _, pkg := range []string{".", "../report"} {
		for _, dep := range goListDeps(t, nil, pkg) {
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
	for _, c := range []struct {
		flags []string
		pkg   string
	}{{nil, "."}, {[]string{"-test"}, "./verifyfuzz"}} {
		for _, dep := range goListDeps(t, c.flags, c.pkg) {
			if strings.HasPrefix(dep, "github.com/sigstore/") || dep == "github.com/dshaudit/dshaudit/attest" {
				t.Errorf("%s %s depends on %s", strings.Join(c.flags, " "), c.pkg, dep)
			}
		}
	}
}

// TestInternalHoldsLibraries keeps internal/ for libraries: programs
// (package main) live in tools/, and the harnesses that only tests
// import are grouped under internal/testutil/.
func TestInternalHoldsLibraries(t *testing.T) {
	args := []string{"list", "-f", "{{.ImportPath}} {{.Name}}", "../internal/..."}
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatal("go list printed no packages under internal/")
	}
	for _, line := range lines {
		path, name, _ := strings.Cut(line, " ")
		if name == "main" {
			t.Errorf("%s is a program (package main); programs belong in tools/", path)
		}
	}
}

// TestManifestImportsNothing keeps the wire format in one place that
// depends on no other part of dshaudit: the manifest's types, codec,
// validation, evidence roles and paths are package manifest's, and
// assemble converts rule results to and from them.
func TestManifestImportsNothing(t *testing.T) {
	const self = "github.com/dshaudit/dshaudit/manifest"
	deps := goListDeps(t, nil, "../manifest")
	if !slices.Contains(deps, self) {
		t.Fatalf("go list -deps ../manifest does not list %s", self)
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, "github.com/dshaudit/dshaudit") && dep != self {
			t.Errorf("manifest depends on %s", dep)
		}
	}
}

// TestVSAImportsNothing: the verification summary's format and checks
// stand alone, like the manifest's.
func TestVSAImportsNothing(t *testing.T) {
	const self = "github.com/dshaudit/dshaudit/vsa"
	deps := goListDeps(t, nil, "../vsa")
	if !slices.Contains(deps, self) {
		t.Fatalf("go list -deps ../vsa does not list %s", self)
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, "github.com/dshaudit/dshaudit") && dep != self {
			t.Errorf("vsa depends on %s", dep)
		}
	}
}
