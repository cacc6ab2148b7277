package jsonwalk

import (
	"errors"
	"strings"
	"testing"
)

// The reading conflicts of SPEC.md "Consumers" (J1–J6), each refused
// with the member named, and the true variants accepted.
func TestConflicts(t *testing.T) {
	for _, c := range []struct {
		doc, member string // member "" = no conflict
	}{
		{`{"a":1,"b":{"c":[1,"x",{"d":null}]}}`, ""},
		{`{"a":1,"a":1}`, ""},               // the same bytes read alike
		{`{"a":{"x":1},"a":{"x":1}}`, ""},   // objects too
		{`{"a":1,"a":2}`, "a"},              // JSON.parse keeps 2, a first-keeper 1
		{`{"a":{"x":1},"a":{"y":1}}`, "a"},  // encoding/json merges them into a struct
		{`{"a":{"b":1,"\u0062":2}}`, "a.b"}, // the same decoded name
		{`{"dsh":{"bundle":{"patch":"\ud800"}}}`, "dsh.bundle.patch"},
		{`{"a":"\udc00"}`, "a"},
		{`{"a":"\ud83d\ude00"}`, ""}, // a pair is a character
		{`{"a":"\uD83D\uDE00"}`, ""},
		{"{\"a\":\"\xff\"}", "a"},           // not UTF-8
		{`{"a":1e400}`, "a"},                // Infinity to JSON.parse
		{`{"a":1e-400}`, ""},                // 0 to both
		{`{"a":123456789012345678901}`, ""}, // no rule reads the value
		{`{"__proto__":{"x":1}}`, "__proto__"},
		{`{"x":[{"a":1,"a":2}]}`, "x[0].a"},
		{`{"my key":{"k":1,"k":2}}`, `["my key"].k`},
	} {
		v, _, err := First([]byte(c.doc))
		if err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		err = CheckTree(v)
		ce, isConflict := IsConflict(err)
		switch {
		case c.member == "" && err != nil:
			t.Errorf("%s: %v, want no conflict", c.doc, err)
		case c.member != "" && !isConflict:
			t.Errorf("%s: %v, want a conflict at %s", c.doc, err, c.member)
		case c.member != "" && ce.Member != c.member:
			t.Errorf("%s: conflict at %q, want %q", c.doc, ce.Member, c.member)
		case c.member != "" && (!errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "JSON.parse reads")):
			t.Errorf("%s: %v does not say JSON.parse's reading", c.doc, err)
		}
	}
	if err := BOM([]byte("\xef\xbb\xbf{}")); !errors.Is(err, ErrConflict) {
		t.Errorf("a byte order mark: %v", err)
	}
	if err := BOM([]byte("{}")); err != nil {
		t.Errorf("no byte order mark: %v", err)
	}
}

// Last gives the last member of a name, as JSON.parse does, and refuses
// an earlier one of other bytes.
func TestLast(t *testing.T) {
	for doc, want := range map[string]string{
		`{"a":1,"b":2}`:          "1",
		`{"b":2}`:                "",
		`{"a":1,"a":1}`:          "1",
		`{"\u0061":[1],"a":[1]}`: "[1]",
	} {
		got, err := Last([]byte(doc), "a", "a")
		if err != nil || string(got) != want {
			t.Errorf("Last(%s) = %q, %v; want %q", doc, got, err, want)
		}
	}
	if _, err := Last([]byte(`{"a":1,"b":0,"a":2}`), "a", "a"); !errors.Is(err, ErrConflict) {
		t.Errorf("a repeated with other bytes: %v", err)
	}
}
