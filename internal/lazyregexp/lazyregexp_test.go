package lazyregexp

import (
	"slices"
	"testing"
)

func TestCompiledOnFirstUse(t *testing.T) {
	r := New(`a(b+)c`)
	if r.rx != nil {
		t.Fatal("compiled before first use")
	}
	if got := r.FindStringSubmatch("xabbc"); !slices.Equal(got, []string{"abbc", "bb"}) {
		t.Fatalf("FindStringSubmatch = %q", got)
	}
	if r.rx == nil || r.Re() != r.rx {
		t.Fatal("not compiled once")
	}
	if !slices.Contains(All(), r) {
		t.Fatal("All does not list it")
	}
}

func TestBadPatternPanicsOnUse(t *testing.T) {
	r := New(`(`)
	defer func() {
		if recover() == nil {
			t.Fatal("a pattern that does not compile did not panic")
		}
	}()
	r.MatchString("x")
}
