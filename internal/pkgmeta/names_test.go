package pkgmeta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dshaudit/dshaudit/internal/jsonwalk"
)

// decoderNames is how the verifier read the metadata before this package
// (dshaudit 0e0e43f, verify.metadataNames): the whole document decoded
// into a map of raw members; only the trailing-data test is the strict
// one of SPEC-CHANGELOG.md 1.7 (before, json.Decoder.More let "}" and "]" follow). It
// is the oracle Names must agree with.
func decoderNames(b []byte) (name, version string, err error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return "", "", fmt.Errorf("not one JSON object: %w", err)
	}
	if obj == nil {
		return "", "", errors.New("not one JSON object: null")
	}
	if len(bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n")) != 0 {
		return "", "", errors.New("data after the JSON object")
	}
	str := func(key string) (string, error) {
		raw, ok := obj[key]
		if !ok {
			return "", fmt.Errorf("no %s member", key)
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", fmt.Errorf("%s is not a JSON string", key)
		}
		return v, nil
	}
	if name, err = str("name"); err != nil {
		return "", "", err
	}
	if version, err = str("version"); err != nil {
		return "", "", err
	}
	return name, version, nil
}

// oracleClass maps the oracle's error to the sentinel Names must wrap.
func oracleClass(err error) error {
	switch msg := err.Error(); {
	case strings.HasPrefix(msg, "not one JSON object"):
		return ErrNotObject
	case msg == "data after the JSON object":
		return ErrTrailingData
	case strings.HasPrefix(msg, "no "):
		return ErrMissingMember
	default:
		return ErrNotString
	}
}

// agree fails t unless Names and the oracle read doc alike: the same
// name and version, or errors of the same class (a member's error in
// the same words).
func agree(t testing.TB, doc []byte) {
	t.Helper()
	n1, v1, err1 := decoderNames(doc)
	n2, v2, err2 := Names(doc)
	if c, ok := jsonwalk.IsConflict(err2); ok {
		if !conflictJustified(doc) {
			t.Fatalf("Names(%q): conflict %v, but readers agree on name and version", doc, c)
		}
		return
	}
	switch {
	case err1 == nil && err2 == nil:
		if n1 != n2 || v1 != v2 {
			t.Fatalf("Names(%q) = %q, %q; the decoder reads %q, %q", doc, n2, v2, n1, v1)
		}
	case err1 == nil || err2 == nil:
		t.Fatalf("Names(%q): error %v; the decoder: error %v", doc, err2, err1)
	default:
		if class := oracleClass(err1); !errors.Is(err2, class) {
			t.Fatalf("Names(%q): error %q, want one of class %q (the decoder: %q)", doc, err2, class, err1)
		}
		var me *MemberError
		if errors.As(err2, &me) && err2.Error() != err1.Error() {
			t.Fatalf("Names(%q): %q, the decoder says %q", doc, err2, err1)
		}
	}
}

// conflictJustified reports whether readers could read doc's name or
// version differently (SPEC.md "Consumers"): it starts with a byte
// order mark, or a top-level "name" or "version" appears twice with
// other bytes, or the last one is a string with bytes that are not UTF-8
// or a surrogate escape (a pair is counted too: the check is the
// oracle's, deliberately coarser than the reader's).
func conflictJustified(doc []byte) bool {
	if bytes.HasPrefix(doc, []byte("\xef\xbb\xbf")) {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	last := map[string]json.RawMessage{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return false
		}
		key, _ := k.(string)
		if key != "name" && key != "version" {
			continue
		}
		if prev, ok := last[key]; ok && !bytes.Equal(prev, raw) {
			return true
		}
		last[key] = raw
	}
	for _, raw := range last {
		if !utf8.Valid(raw) || surrogateEscape.Match(raw) {
			return true
		}
	}
	return false
}

var surrogateEscape = regexp.MustCompile(`(?i)\\ud[89a-f]`)

// edgeDocs are documents where a reader of package.json could go wrong.
var edgeDocs = []string{
	`{"name":"a","version":"1.0.0"}`,
	` {"name" : "a" , "version" : "1.0.0" } `,
	"\t\r\n{\"name\":\"a\",\"version\":\"1\"}\n",
	`{"name":"a","version":"1","name":"b"}`,
	`{"name":"a","name":"a","version":"1","version":"2"}`,
	`{"na\u006de":"a","version":"1"}`,
	`{"\u006e\u0061\u006d\u0065":"a","\u0076\u0065\u0072\u0073\u0069\u006f\u006e":"1"}`,
	`{"\u006e\u0061\u006d\u0065\u0020":"a","version":"1"}`,
	`{"Name":"a","version":"1"}`,
	`{"NAME":"a","VERSION":"1"}`,
	`{"name ":"a","version":"1"}`,
	"{\"nam\xff\":\"a\",\"version\":\"1\"}",
	"{\"name\":\"\xff\",\"version\":\"1\"}",
	`{"name":"\ud83d\ude00","version":"\ud800"}`,
	`{"name":"a\"b\\","version":"1"}`,
	`{"name":null,"version":"1"}`,
	`{"name":"a","version":null}`,
	`{"name":1,"version":"1"}`,
	`{"name":"a","version":1.5e3}`,
	`{"name":["a"],"version":"1"}`,
	`{"name":{"name":"x"},"version":"1"}`,
	`{"name":true,"version":false}`,
	`{"version":"1"}`,
	`{"name":"a"}`,
	`{}`,
	`{ }`,
	`{"x":{"name":"b","version":"2"},"name":"a","version":"1"}`,
	`{"x":["}",{"]":"{"}],"name":"a","version":"1"}`,
	`{"x":"\"}","name":"a","version":"1"}`,
	`{"name":"a","version":"1"}}`,
	`{"name":"a","version":"1"}]`,
	`{"name":"a","version":"1"} }x`,
	`{"name":"a","version":"1"}x`,
	`{"name":"a","version":"1"}{}`,
	`{"name":"a","version":"1"},`,
	`{"name":"a","version":"1"} "x"`,
	`{"name":"a","version":"1"`,
	`{"name":"a","version":"1",}`,
	`{"name":"a" "version":"1"}`,
	`{"name":"a","version":"1"]`,
	`{"name":"a","version":01}`,
	`{"name":"a","version":"1","x":01}`,
	`{"name":"a","version":"1","x":tru}`,
	`{"name":"a","version":"1","x":"\x"}`,
	`{"name":"a","version":"1","x":"` + "\x01" + `"}`,
	`{"name":"a","version":"1","x":[1,2,]}`,
	`{name:"a"}`,
	`{"name":'a'}`,
	"\xef\xbb\xbf{\"name\":\"a\",\"version\":\"1\"}",
	`null`,
	` null `,
	`[]`,
	`[{"name":"a","version":"1"}]`,
	`"name"`,
	`1`,
	`01`,
	`true`,
	`nul`,
	``,
	`   `,
	`{`,
	`}`,
	`{"`,
	`{"name`,
	`{"name":`,
	`{"name":"a`,
	`{"name":"a\`,
	`{"name":"a","version":"1"} ` + "\x00",
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `,"name":"a","version":"1"}`,
	`{"x":` + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + `,"name":"a","version":"1"}`,
}

func TestNamesAsDecoder(t *testing.T) {
	for _, d := range edgeDocs {
		agree(t, []byte(d))
	}
	for _, d := range packageJSONFiles(t) {
		agree(t, d)
	}
}

// TestNamesAsDecoderOnCuts compares the two on every prefix and on
// random one-byte edits of the edge documents and of the repository's
// package.json files.
func TestNamesAsDecoderOnCuts(t *testing.T) {
	docs := packageJSONFiles(t)
	for _, d := range edgeDocs {
		if len(d) < 1000 {
			docs = append(docs, []byte(d))
		}
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte(" \t\n{}[]\",:\\u0123456789abcdefnrtlsuxe.-+\xff")
	for _, d := range docs {
		for i := 0; i <= len(d); i++ {
			agree(t, d[:i])
		}
		for range 300 {
			e := bytes.Clone(d)
			if len(e) == 0 {
				continue
			}
			e[rng.Intn(len(e))] = alphabet[rng.Intn(len(alphabet))]
			agree(t, e)
		}
	}
}

// packageJSONFiles returns every package.json under the repository's
// testdata.
func packageJSONFiles(t testing.TB) [][]byte {
	var out [][]byte
	err := filepath.WalkDir("../../testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, "package.json") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out = append(out, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no package.json under testdata")
	}
	return out
}

// TestNamesMemory: on 16 MiB documents built to cost a decoder the most
// (the reader's entry limit, bundle.DefaultMaxEntrySize), Names allocates
// at most what it returns plus 64 KiB, where the decoder allocated about
// five times the document.
func TestNamesMemory(t *testing.T) {
	const size = 16 << 20
	digits := strings.Repeat("1,", size/2-16)
	docs := map[string]string{
		"digits":  `{"x":[` + digits + `1],"name":"a","version":"1"}`,
		"string":  `{"x":"` + strings.Repeat("x", size-40) + `","name":"a","version":"1"}`,
		"members": `{` + strings.Repeat(`"y":0,`, size/6-8) + `"name":"a","version":"1"}`,
		"escapes": `{` + strings.Repeat(`"\u006eame":0,`, size/15-8) + `"name":"a","version":"1"}`,
		"invalid": `{"x":[` + digits + `1,]}`,
	}
	for name, d := range docs {
		doc := []byte(d)
		agree(t, doc)
		if got := allocated(func() { _, _, _ = Names(doc) }); got > 64<<10 {
			t.Errorf("%s (%d bytes): Names allocated %d bytes", name, len(doc), got)
		}
	}
}

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// FuzzNames checks Names against the decoder it replaces.
func FuzzNames(f *testing.F) {
	for _, d := range edgeDocs {
		if len(d) < 1000 {
			f.Add([]byte(d))
		}
	}
	for _, d := range packageJSONFiles(f) {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		agree(t, doc)
	})
}

func BenchmarkNames(b *testing.B) {
	doc := packageJSONFiles(b)[0]
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, _, err := Names(doc); err != nil {
			b.Fatal(err)
		}
	}
}
