package jsyaml

import (
	"errors"
	"math"
	"testing"
	"time"
)

// Directed cases of "YAML as dsh reads it" (SPEC.md "Consumers"): the
// value js-yaml 4.3.1 builds with dsh's schema, or the refusal. The
// differential test checks the same against js-yaml itself.
func TestLoadDirected(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string // Describe of the first list item, or "" for a refusal
		err  error
	}{
		{"- yes\n", `the string "yes"`, nil},
		{"- no\n", `the string "no"`, nil},
		{"- True\n", "the boolean true", nil},
		{"- FALSE\n", "the boolean false", nil},
		{"- ~\n", "null", nil},
		{"- \n", "null", nil},
		{"- 0x1F\n", "the number 31", nil},
		{"- 0o17\n", "the number 15", nil},
		{"- 0b101\n", "the number 5", nil},
		{"- 08\n", "the number 8", nil},
		{"- 1_000\n", `the string "1_000"`, nil},
		{"- 1e3\n", "the number 1000", nil},
		{"- .NaN\n", "the number NaN", nil},
		{"- +.nan\n", `the string "+.nan"`, nil},
		{"- -.inf\n", "the number -Infinity", nil},
		{"- !!js process.platform\n", `the !!js expression "process.platform"`, nil},
		{"- !!str 12\n", `the string "12"`, nil},
		{"- &a x\n- *a\n", `the string "x"`, nil},
		{"- !!str &b y\n", `the string "y"`, nil},
		{"- &c !!js z\n", `the !!js expression "z"`, nil},
		{"- {a: 1, '<<': 2}\n", "a mapping of 2 keys", nil},
		{"- 9007199254740993\n", "", ErrConflict},
		{"- !!int 1\n", "", ErrConflict},
		{"- ! 12\n", "", ErrConflict},
		{"- &d ! 12\n", "", ErrConflict},
		{"- {a: 1, a: 2}\n", "", ErrRefused},
		{"- {<<: {a: 1}}\n", "", ErrConflict},
		{"- {1: a}\n", "", ErrConflict},
		{"- x\n  y\n", "", ErrConflict},
		{"- \"\\'\"\n", "", ErrRefused},
		{"- \"\\ud800\"\n", "", ErrRefused}, // yaml.v3 refuses it first
		{"- a\u2028b\n", "", ErrConflict},
		{"- a\rb\n", "", ErrConflict},
		{"- [?x]\n", "", ErrConflict},
		{"- {a: -}\n", "", ErrRefused},
		{"- -\n- b\n", "", ErrConflict},
		{"----\n", "", ErrConflict},
		{"- |\n", "", ErrRefused},
		{"- a\n---\n- b\n", "", ErrRefused},
	} {
		v, _, err := Load([]byte(tc.src))
		switch {
		case tc.err != nil:
			if !errors.Is(err, tc.err) {
				t.Errorf("%q: %v, want %v", tc.src, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: refused: %v", tc.src, err)
		case v == nil || v.Kind != List || len(v.Items) == 0:
			t.Errorf("%q: %v", tc.src, Describe(v))
		case Describe(v.Items[0]) != tc.want:
			t.Errorf("%q: %s, want %s", tc.src, Describe(v.Items[0]), tc.want)
		}
	}
}

// Truthy is JavaScript's Boolean().
func TestTruthy(t *testing.T) {
	for _, tc := range []struct {
		v       *Value
		b, sure bool
	}{
		{nil, false, true}, {&Value{Kind: Null}, false, true}, {&Value{Kind: Bool, Bool: true}, true, true},
		{&Value{Kind: Number}, false, true}, {&Value{Kind: Number, Num: math.Copysign(0, -1)}, false, true},
		{&Value{Kind: Number, Num: math.NaN()}, false, true}, {&Value{Kind: Number, Num: 2}, true, true},
		{&Value{Kind: String}, false, true}, {&Value{Kind: String, Str: "false"}, true, true},
		{&Value{Kind: List}, true, true}, {&Value{Kind: Map}, true, true}, {&Value{Kind: Expr, Str: "false"}, false, false},
	} {
		if b, sure := Truthy(tc.v); b != tc.b || sure != tc.sure {
			t.Errorf("Truthy(%s) = %v %v, want %v %v", Describe(tc.v), b, sure, tc.b, tc.sure)
		}
	}
}

// FuzzLoad: whatever the bytes, Load returns a value or an error wrapping
// ErrRefused or ErrConflict, never panics, and reads the same bytes the
// same way twice.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{"- id: a\n  disabled: 'no'\n", "- &a {x: *a}\n", "- [?x, {<<: 1}]\n", "- !!js >-\n  a\n", "- \"\\x41\"\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, _, err := Load(b)
		if err != nil && !errors.Is(err, ErrRefused) && !errors.Is(err, ErrConflict) {
			t.Fatalf("error of no class: %v", err)
		}
		v2, _, err2 := Load(b)
		if (err == nil) != (err2 == nil) || Describe(v) != Describe(v2) {
			t.Fatalf("two readings differ: %v %v / %v %v", Describe(v), err, Describe(v2), err2)
		}
		if v != nil && v.Kind == List {
			for _, it := range v.Items {
				Truthy(it.Get("disabled"))
			}
		}
	})
}

// TestLoadOneLongLine loads the costliest dump the T3 limit admits, a
// flow list of "0" scalars and flow mappings on one 256 KiB line: each
// node's position is found from the last one's, not from the line's start
// (that was quadratic in the line, minutes for the bench bundle
// worst-60MiB, issue 48). The bound is generous; the load takes
// milliseconds.
func TestLoadOneLongLine(t *testing.T) {
	for _, item := range []string{"0,", "{a: 0, b: 1},"} {
		src := []byte("[")
		for len(src) < 256<<10 {
			src = append(src, item...)
		}
		src = append(src, "0]\n"...)
		start := time.Now()
		v, _, err := Load(src)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%q: %d bytes on one line loaded in %v", item, len(src), d)
		}
		if v == nil || len(v.Items) < 1000 {
			t.Errorf("%q: %v", item, v)
		}
	}
}
