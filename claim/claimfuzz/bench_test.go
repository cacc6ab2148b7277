package claimfuzz_test

import (
	"os"
	"path/filepath"
	"strings"
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

// BenchmarkCheckHostile is claim.Check on 256 KiB texts that repeat what
// makes a pattern or the markup scanner start a match attempt: one long
// line each, and 2,000-byte lines. A scan that tries a pattern at each
// start is linear only while an attempt does not read on past the next
// start; a quadratic one takes seconds here, not
// milliseconds. At 4 MiB, the claim text limit, each took 0.07-1.1 s on
// 2026-12-01, against 0.8-1.9 s before Check's speed-ups.
func BenchmarkCheckHostile(b *testing.B) {
	const size = 256 << 10
	for _, c := range []struct {
		name, unit string
		lineLen    int // 0: the whole text is one line
	}{
		{"t5", "T5 ", 0}, {"tool", "tool invocation ", 0}, {"dsh", "dsh=", 0}, {"dsh-lines", "dsh=", 2000},
		{"dshio", "DSHIO standard ", 0}, {"conform", "conforms to dsh ", 0}, {"tag", "<a", 0}, {"tag-lines", "x<a", 2000},
		{"emphasis", "*_`", 0},
	} {
		text := strings.Repeat(c.unit, size/len(c.unit))
		if c.lineLen > 0 {
			line := strings.Repeat(c.unit, c.lineLen/len(c.unit)) + "\n"
			text = strings.Repeat(line, size/len(line))
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				claim.Check(text, fuzzFacts, "hello-dsh-plugin@1.0.0")
			}
		})
	}
}
