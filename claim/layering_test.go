package claim_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFuzzBinaryLinksNoSigstore keeps claim.FuzzCheck's test binary
// (package claimfuzz) free of the Sigstore stack (attest): linked
// in, they cap its rate (DESIGN.md "Fuzzing").
func TestFuzzBinaryLinksNoSigstore(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-test", "./claimfuzz").Output()
	if err != nil {
		t.Fatalf("go list -deps -test ./claimfuzz: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list printed no dependencies")
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, "github.com/sigstore/") || dep == "github.com/dshaudit/dshaudit/attest" {
			t.Errorf("claim/claimfuzz's test binary depends on %s", dep)
		}
	}
}
