package main

import (
	"regexp"
	"testing"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// TestLazyPatternsCompile compiles every package-level pattern the
// binary holds: they are compiled on first use (DESIGN.md "Start-up
// cost"), so one that does not compile would otherwise panic only on the
// path that first uses it.
func TestLazyPatternsCompile(t *testing.T) {
	all := lazyregexp.All()
	if len(all) < 50 {
		t.Fatalf("only %d lazily compiled patterns registered; the binary holds about 75", len(all))
	}
	for _, r := range all {
		if _, err := regexp.Compile(r.String()); err != nil {
			t.Errorf("%q: %v", r.String(), err)
		}
	}
}
