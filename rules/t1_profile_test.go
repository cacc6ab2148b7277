package rules

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/jsonwalk"
)

func TestReadProfileDependencyFound(t *testing.T) {
	for _, c := range []struct {
		doc   string
		found bool
		err   string
	}{
		{`{"dependencies":{"hello":"file:/pkgs/hello.tgz"}}`, true, ""},
		{`{"name":"p","dependencies":{"a":{"x":[1,2,{"y":null}]},"hello":"1.0.0"},"z":[{}]}`, true, ""},
		{`{"devDependencies":{"hello":"1.0.0"}}`, false, ""},
		{`{"dependencies":{"hellox":"1"},"x":{"hello":"1"}}`, false, ""},
		{`{"Dependencies":{"hello":"1"}}`, false, ""}, // SPEC: the member named exactly "dependencies"
		{`{"dependencies":{"hello":"1"},"dependencies":{"hello":"1"}}`, true, ""},
		{`{"dependencies":{"a":"1"},"dependencies":{"hello":"1"}}`, false, "JSON.parse reads the last"},
		{`{"dependencies":{"hello":"1"},"dependencies":{}}`, false, "JSON.parse reads the last"},
		{"\xef\xbb\xbf" + `{"dependencies":{"hello":"1"}}`, false, "byte order mark"},
		{`{"dependencies":null}`, false, ""},
		{`null`, false, ""},
		{`{}`, false, ""},
		{`{"dependencies":["hello"]}`, false, "dependencies is an array"},
		{`{"dependencies":"hello"}`, false, "dependencies is a string"},
		{`["hello"]`, false, "the document is an array"},
		{`{"dependencies":{"hello":"1"}} {}`, false, "data after the JSON value"},
		{`{"dependencies":{"hello":"1"}`, false, "unexpected end of JSON input"},
		{`{"dependencies":{"hello":}}`, false, "invalid character"},
	} {
		dep, err := ReadProfileDependency([]byte(c.doc), "hello")
		found := dep.Found
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one containing %q", c.doc, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.doc, err)
		case c.err == "" && found != c.found:
			t.Errorf("%s: found %v, want %v", c.doc, found, c.found)
		}
	}
}

// TestReadProfileDependencyValue: the value the verifier cross-checks
// with the subject (SPEC.md "What the verifier cross-checks", class 6).
func TestReadProfileDependencyValue(t *testing.T) {
	for _, c := range []struct {
		doc              string
		value, notString string
	}{
		{`{"dependencies":{"hello":"file:/pkgs/hello.tgz"}}`, "file:/pkgs/hello.tgz", ""},
		{`{"dependencies":{"a":"2","hello":"1.0.0","b":"3"}}`, "1.0.0", ""},
		{`{"dependencies":{"hello":"\u0031.0.0"}}`, "1.0.0", ""},
		{`{"dependencies":{"hello":1}}`, "", "a number"},
		{`{"dependencies":{"hello":null}}`, "", "null"},
		{`{"dependencies":{"hello":{"version":"1.0.0"}}}`, "", "an object"},
		{`{"dependencies":{"hello":"1.0.0","hello":"1.0.0"}}`, "1.0.0", ""},
		{`{"dependencies":{"hello":[1]},"dependencies":{"hello":[1]}}`, "", "an array"},
		{`{"dependencies":{"hello":"\ud83d\ude00"}}`, "\U0001f600", ""},
	} {
		dep, err := ReadProfileDependency([]byte(c.doc), "hello")
		if err != nil || !dep.Found || dep.Value != c.value || dep.NotString != c.notString {
			t.Errorf("%s: %+v, %v; want value %q, not string %q", c.doc, dep, err, c.value, c.notString)
		}
	}
	// Where readers differ, the read refuses (SPEC.md "Consumers").
	for _, doc := range []string{
		`{"dependencies":{"hello":"1.0.0","hello":"file:/x.tgz"}}`,
		`{"dependencies":{"hello":"1.0.0"},"dependencies":{"hello":"file:/x.tgz"}}`,
		`{"dependencies":{"hello":[1]},"dependencies":{"hello":[2]}}`,
		`{"dependencies":{"hello":"\ud800"}}`,
		`{"dependencies":{"hello":"\udc00x"}}`,
		"{\"dependencies\":{\"hello\":\"1\xff\"}}",
	} {
		if _, err := ReadProfileDependency([]byte(doc), "hello"); !errors.Is(err, jsonwalk.ErrConflict) {
			t.Errorf("%s: error %v, want a reading conflict", doc, err)
		}
	}
}

// profileDocs are profile documents where a reader could go wrong, beside
// the recorded profiles of the evidence.
var profileDocs = []string{
	`{"dependencies":{"hello":"1"}}`,
	`  {"dependencies" : { "hello" : "1" } } ` + "\n",
	`{"dependencies":{"hello":"1"}} {}`,
	`{"dependencies":{"hello":"1"}}}`,
	`{"dependencies":{"hello":"1"}}]`,
	`{"dependencies":{"hello":"1"}} x`,
	`{"dependencies":{"hello":"1"}`,
	`{"dependencies":{"hello":}}`,
	`{"dependencies":{"h\u0065llo":"1"}}`,
	`{"d\u0065pendencies":{"hello":"1"}}`,
	`{"dependencies":{"hello":"1"},"dependencies":5}`,
	`{"dependencies":5,"x":}`,
	`{"dependencies":1e999}`,
	`{"dependencies":-0.5e-3}`,
	`1e999`,
	`12`,
	`"x"`,
	`true`,
	`null`,
	`null x`,
	`nul`,
	`[{"dependencies":{"hello":"1"}}]`,
	`[1,`,
	``,
	` `,
	`{"dependencies":{"hello":1e999}}`,
	`{"dependencies":{"hello":"1","hello":1e999}}`,
	`{"dependencies":{"hello":[1, 2],"hello":[1,2]}}`,
	`{"dependencies":{"hello":[1,2],"hello":[1,2]}}`,
	`{"dependencies":{"hello":"\ud800"}}`,
	"{\"dependencies\":{\"h\xffllo\":\"1\"}}",
	`{"dependencies":{"é":"1","\u00e9":"2"}}`,
	`{"x":"}","dependencies":{"hello":"{"}}`,
	`{"dependencies":{"hello":"1"},"x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
}

// agreeProfile fails t unless ReadProfileDependency reads doc as a
// decoding of the whole document does (the last member of a name
// counting, as in JSON.parse), or refuses a conflict that
// profileConflictJustified confirms; on a document that is not JSON,
// both fail.
func agreeProfile(t testing.TB, doc []byte, name string) {
	t.Helper()
	d2, err2 := ReadProfileDependency(doc, name)
	if c, ok := jsonwalk.IsConflict(err2); ok {
		if !profileConflictJustified(doc, name) {
			t.Fatalf("%q, %q: conflict %v, but readers agree", doc, name, c)
		}
		return
	}
	d1, err1 := parsedProfileDependency(doc, name)
	if (err1 == nil) != (err2 == nil) || (err1 == nil && d1 != d2) {
		t.Fatalf("%q, %q: %+v, error %v; the whole-document decoding: %+v, error %v", doc, name, d2, err2, d1, err1)
	}
}

var profileNames = []string{"hello", "hello-dsh-plugin", "é", "dependencies", ""}

func TestReadProfileDependencyAsParse(t *testing.T) {
	docs := recordedProfiles(t)
	for _, d := range profileDocs {
		docs = append(docs, []byte(d))
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte(" \t\n{}[]\",:\\u0123456789abcdefnrtlsuxe.-+\xff")
	for _, d := range docs {
		for _, name := range profileNames {
			agreeProfile(t, d, name)
		}
		if len(d) > 2000 {
			continue
		}
		for i := 0; i <= len(d); i++ {
			agreeProfile(t, d[:i], "hello")
		}
		for range 200 {
			if len(d) == 0 {
				break
			}
			e := bytes.Clone(d)
			e[rng.Intn(len(e))] = alphabet[rng.Intn(len(alphabet))]
			agreeProfile(t, e, "hello")
			agreeProfile(t, e, "hello-dsh-plugin")
		}
	}
}

// recordedProfiles returns the profile package.json files of the real
// evidence.
func recordedProfiles(t testing.TB) [][]byte {
	paths, err := filepath.Glob("../testdata/dsh-evidence/*/t1.profile-package.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recorded profile package.json: %v", err)
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestReadProfileDependencyMemory: on 16 MiB profiles built to cost a
// decoder the most (the reader's entry limit), the read allocates at most
// 64 KiB, where a token reader allocated about six times the document.
func TestReadProfileDependencyMemory(t *testing.T) {
	const size = 16 << 20
	digits := strings.Repeat("1,", size/2-16)
	for name, d := range map[string]string{
		"digits":     `{"x":[` + digits + `1],"dependencies":{"hello":"1"}}`,
		"dep digits": `{"dependencies":{"x":[` + digits + `1],"hello":"1"}}`,
		"string":     `{"x":"` + strings.Repeat("x", size-40) + `","dependencies":{"hello":"1"}}`,
		"members":    `{"dependencies":{` + strings.Repeat(`"y":0,`, size/6-8) + `"hello":"1"}}`,
		"repeated":   `{"dependencies":{` + strings.Repeat(`"hello":[0],`, size/12-8) + `"hello":[0]}}`,
		"invalid":    `{"x":[` + digits + `1,]}`,
	} {
		doc := []byte(d)
		agreeProfile(t, doc, "hello")
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, _ = ReadProfileDependency(doc, "hello")
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
			t.Errorf("%s (%d bytes): allocated %d bytes", name, len(doc), got)
		}
	}
}
