package manifest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
)

// stdIndented is what json.Encoder writes for v with the canonical
// settings and its own indentation, which indentWriter replaces: the
// canonical encoding of a manifest, or of any JSON value.
func stdIndented(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func ourIndented(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := manifest.NewManifestEncoder(&buf).Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// indentCases are JSON texts whose every structural case indentWriter
// must indent as json.Encoder does: empty and nested brackets, every
// punctuation byte and escape inside strings, scalars, and values longer
// than one chunk.
var indentCases = []string{
	`{}`, `[]`, `null`, `0`, `"x"`, `true`,
	`{"a":{}}`, `{"a":[]}`, `[[],{},[[]],[{}]]`, `{"a":[1,2,{"b":null}],"c":{"d":"e"}}`,
	`["{", "}", "[", "]", ",", ":", "\"", "\\", "\\\"", "\"\\", "a\\\\\"b,c:d"]`,
	`{"\"{[":"]}\\","k":"\u0000\u001f\u2028<>&"}`,
	`[-1.5e-300, 12345678901234567890, false]`,
	strings.Repeat(`[`, 30) + `1` + strings.Repeat(`]`, 30),
	`{"warnings":[` + strings.Repeat(`"",`, 5000) + `""]}`,
	`["` + strings.Repeat(`,:{[\"`, 3000) + `"]`,
}

func TestIndentWriterAsEncoder(t *testing.T) {
	golden, err := os.ReadFile("testdata/manifest.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range append(indentCases, string(golden)) {
		v := json.RawMessage(c)
		want, got := stdIndented(t, v), ourIndented(t, v)
		if !bytes.Equal(got, want) {
			t.Errorf("%.60q: indentWriter wrote\n%.400s\njson.Encoder\n%.400s", c, got, want)
		}
	}
	// The golden manifest is itself canonical: the encoding of its
	// decoding, written through indentWriter, is its bytes.
	var m manifest.Manifest
	if err := json.Unmarshal(golden, &m); err != nil {
		t.Fatal(err)
	}
	if got := ourIndented(t, &m); !bytes.Equal(got, golden) {
		t.Errorf("the golden manifest encodes as\n%.400s", got)
	}
}

// TestIndentWriterAcrossWrites writes each case's compact form in pieces
// of every size from one byte, through one indentWriter reused for every
// case: its state carries from one Write to the next and ends where it
// began.
func TestIndentWriterAcrossWrites(t *testing.T) {
	var out bytes.Buffer
	iw := manifest.NewIndentWriter(&out)
	for _, c := range indentCases[:14] {
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(c)); err != nil {
			t.Fatal(err)
		}
		compact.WriteByte('\n')
		want := stdIndented(t, json.RawMessage(c))
		for size := 1; size <= compact.Len(); size++ {
			out.Reset()
			for b := compact.Bytes(); len(b) > 0; b = b[min(size, len(b)):] {
				if _, err := iw.Write(b[:min(size, len(b))]); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Fatalf("%q in pieces of %d: got\n%s\nwant\n%s", c, size, out.Bytes(), want)
			}
		}
	}
}

func FuzzIndentWriter(f *testing.F) {
	for _, c := range indentCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		v := json.RawMessage(b)
		if want, got := stdIndented(t, v), ourIndented(t, v); !bytes.Equal(got, want) {
			t.Fatalf("indentWriter wrote\n%s\njson.Encoder\n%s", got, want)
		}
	})
}
