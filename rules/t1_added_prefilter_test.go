package rules

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// eachAddedLineCandidate passes over only lines addedLineReasons would
// pass over: the lines that can change its reading (blank,
// "dependencies:", a first field "+" or "-"), taken from eachLine, are
// the same lines in the same order, for the real evidence and for
// generated output of spaces, signs, escapes, invalid bytes and words.
func TestAddedLineCandidatesAsEachLine(t *testing.T) {
	relevant := func(read func([]byte, func(string) bool), b []byte) []string {
		var out []string
		read(b, func(l string) bool {
			f := strings.Fields(l)
			if l == "dependencies:" || strings.TrimSpace(l) == "" || len(f) > 0 && (f[0] == "+" || f[0] == "-") {
				out = append(out, l)
			}
			return true
		})
		return out
	}
	var inputs [][]byte
	files, _ := filepath.Glob(filepath.Join(evidenceDir, "*/t*.std*"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, b)
	}
	parts := []string{" ", "  ", "\t", "\r", "\n", "\n", "\n", "+", "-", "d", "dependencies:", "x", "hello-dsh-plugin", "1.0.0",
		"\x1b[1m", "\x1b[0m", "\x1b]0;t\x07", "\xff", "\xc2\xa0", "\u3000", "\x00", "\x7f", "é"}
	rng := rand.New(rand.NewPCG(48, 1))
	for range 20000 {
		var b []byte
		for range rng.IntN(24) {
			b = append(b, parts[rng.IntN(len(parts))]...)
		}
		inputs = append(inputs, b)
	}
	big := []byte(strings.Repeat("Progress: resolved 1, reused 0\n", 4000) + "dependencies:\n+ hello-dsh-plugin 1.0.0\n\n")
	inputs = append(inputs, big) // above lineCopyLimit
	for _, b := range inputs {
		want, got := relevant(eachLine, b), relevant(eachAddedLineCandidate, b)
		if !slices.Equal(want, got) {
			t.Fatalf("%q: eachLine's lines that matter %q, eachAddedLineCandidate's %q", b, want, got)
		}
		sub := Subject{Name: "hello-dsh-plugin", Version: "1.0.0"}
		if len(b) < 1000 && !slices.Equal(addedLineReasons(sub, b), addedLineReasonsRead(sub, b, eachLine)) {
			t.Fatalf("%q: addedLineReasons %q, read with eachLine %q", b, addedLineReasons(sub, b), addedLineReasonsRead(sub, b, eachLine))
		}
	}
}
