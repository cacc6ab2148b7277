package static

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzPackageJSONFast checks decodeObjectFast against encoding/json:
// whatever it decodes, encoding/json decodes without error to the same
// value.
func FuzzPackageJSONFast(f *testing.F) {
	dirs, err := os.ReadDir(vectorsDir)
	if err != nil {
		f.Fatal(err)
	}
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(vectorsDir, d.Name(), "package.json")); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		`{}`, ` {"a":[]} `, `{"a":{"b":[1,-0.5e+3,true,false,null,"é"]},"a":2}`, `{"a":"\u00e9\n"}`,
		`{"a":01}`, `{"a":"\xff"}`, `{} }`, `{}x`, `[1]`, `{"a":1.}`, "{\"a\":\"\x01\"}", `{"":{"":{"":[[[]]]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := decodeObjectFast(b)
		if !ok {
			return
		}
		ref, err := decodePackageJSON(b)
		if err != nil {
			t.Fatalf("fast path decoded %q, encoding/json refused it: %v", b, err)
		}
		if !reflect.DeepEqual(fast, ref) {
			t.Fatalf("%q: fast path %#v, encoding/json %#v", b, fast, ref)
		}
	})
}

// TestPackageJSONFastTakes checks which documents the fast path takes, so
// FuzzPackageJSONFast does not pass by the fast path declining everything.
func TestPackageJSONFastTakes(t *testing.T) {
	for s, want := range map[string]bool{
		`{}`: true, ` {"a": [1, -0.5e+3, true, false, null, "é", {}]} `: true, `{"a":1,"a":2}`: true,
		`{"a\/":"\n\u00e9\"\\"}`: true, `{"a":"\ud800"}`: false, `{"a":"\x"}`: false, `{"a":"\u00g0"}`: false, `{"a":01}`: false, "{\"a\":\"\xff\"}": false, `{} }`: false, `[]`: false, `{"a":1.}`: false, `{"a":tru}`: false,
	} {
		if _, ok := decodeObjectFast([]byte(s)); ok != want {
			t.Errorf("%s: fast path took it %v, want %v", s, ok, want)
		}
	}
}

// TestHasControl checks hasControl against a byte-by-byte loop, for every
// byte value at every position of a 17-byte slice among printable ones.
func TestHasControl(t *testing.T) {
	for pos := range 17 {
		for c := range 256 {
			b := []byte("abcdefghijklmnopq")
			b[pos] = byte(c)
			if got, want := hasControl(b), c < ' '; got != want {
				t.Fatalf("byte %#x at %d: hasControl %v, want %v", c, pos, got, want)
			}
		}
	}
}
