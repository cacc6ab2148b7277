package dshaudit

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"regexp"
	"testing"
)

// The built-in specification is SPEC.md as it is in the repository, and
// states its version.
func TestSpecBuiltIn(t *testing.T) {
	b, err := os.ReadFile("SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got := SpecSHA256(); got != hex.EncodeToString(sum[:]) {
		t.Fatalf("SpecSHA256 %s is not SPEC.md's", got)
	}
	if !regexp.MustCompile(`^https://dshaudit\.dev/spec/[0-9]+\.[0-9]+$`).MatchString(SpecURI()) {
		t.Fatalf("SpecURI %q", SpecURI())
	}
}
