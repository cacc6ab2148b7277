package claimfuzz_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dshaudit/dshaudit/claim"
)

// BenchmarkCheck is claim.Check on the backed README of the claim
// fixtures: what one claim.FuzzCheck execution costs apart from the
// fuzzing engine (DESIGN.md "Fuzzing").
func BenchmarkCheck(b *testing.B) {
	text, err := os.ReadFile("../../testdata/claims/backed-readme.md")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		claim.Check(string(text), fuzzFacts, "hello-dsh-plugin@1.0.0")
	}
}

// BenchmarkCheckFixtures is claim.Check over every claim fixture (the
// fuzz target's seeds), reported per text.
func BenchmarkCheckFixtures(b *testing.B) {
	paths, err := filepath.Glob("../../testdata/claims/*.md")
	if err != nil || len(paths) == 0 {
		b.Fatalf("no claim fixtures: %v", err)
	}
	texts := make([]string, len(paths))
	for i, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		texts[i] = string(raw)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		claim.Check(texts[n%len(texts)], fuzzFacts, "hello-dsh-plugin@1.0.0")
		n++
	}
}
