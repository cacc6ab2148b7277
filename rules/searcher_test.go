package rules

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestSearcherIndexAsBytesIndex holds the anchored search to
// bytes.Index, one search after another over the same output as
// eachCandidate makes them, on outputs of a few letters where the anchor
// is common (and so given up for bytes.Index) or rare, for every
// anchor a literal can have.
func TestSearcherIndexAsBytesIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(48, 1))
	for n := 0; n < 20000; n++ {
		alpha := "ab\nc d"[:2+r.IntN(5)]
		out := make([]byte, r.IntN(600))
		for i := range out {
			out[i] = alpha[r.IntN(len(alpha))]
		}
		lit := make([]byte, 1+r.IntN(5))
		for i := range lit {
			lit[i] = alpha[r.IntN(len(alpha))]
		}
		if r.IntN(4) == 0 && len(out) > len(lit) {
			copy(out[r.IntN(len(out)-len(lit)):], lit)
		}
		s := &searcher{lit: lit, anchor: r.IntN(len(lit))}
		for off := 0; off <= len(out); {
			got, want := s.index(out[off:]), bytes.Index(out[off:], lit)
			if got != want {
				t.Fatalf("out %q from %d, literal %q, anchor %d (plain %v): index %d, bytes.Index %d", out, off, lit, s.anchor, s.plain, got, want)
			}
			if want < 0 {
				break
			}
			off += want + 1 + r.IntN(3)
		}
	}
}

// TestSearcherGivesUpACommonAnchor: an anchor found everywhere but the
// literal nowhere is given up, so the search costs what bytes.Index
// costs, not a comparison per byte.
func TestSearcherGivesUpACommonAnchor(t *testing.T) {
	out := bytes.Repeat([]byte("d"), 1<<16)
	s := &searcher{lit: []byte("dsh: "), anchor: 0}
	if i := s.index(out); i != -1 || !s.plain {
		t.Fatalf("index %d, plain %v: want -1 and the anchor given up", i, s.plain)
	}
	if s.misses > 16+(1<<16)/256+1 {
		t.Fatalf("%d misses before giving the anchor up", s.misses)
	}
	rare := &searcher{lit: []byte("dsh: "), anchor: 3}
	if i := rare.index(out); i != -1 || rare.plain {
		t.Fatalf("index %d, plain %v: want -1 with the anchor kept", i, rare.plain)
	}
}
