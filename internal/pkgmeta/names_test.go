package pkgmeta

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/jsonwalk"
)

// edgeDocs are documents where a reader of package.json could go wrong:
// TestNamesAsJSONParse reads them beside its generated ones.
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
}

// TestNamesDepth: Names reads a document as deep as encoding/json's
// validator allows (10,000 levels) and refuses a deeper one as not one
// JSON object, as the decoder it replaced did (JSON.parse, the consumer,
// has no such bound; TestNamesAsJSONParse does not reach these depths).
func TestNamesDepth(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want error
	}{
		{strings.Repeat("[", 10001) + strings.Repeat("]", 10001), ErrNotObject},
		{`{"x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `,"name":"a","version":"1"}`, ErrNotObject},
		{`{"x":` + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + `,"name":"a","version":"1"}`, nil},
	} {
		n, v, err := Names([]byte(c.doc))
		if !errors.Is(err, c.want) || c.want == nil && (n != "a" || v != "1") {
			t.Errorf("%d bytes: Names = %q, %q, %v; want %v", len(c.doc), n, v, err, c.want)
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
		n, v, err := Names(doc)
		switch name {
		case "invalid":
			if !errors.Is(err, ErrNotObject) {
				t.Errorf("%s: Names = %q, %q, %v; want ErrNotObject", name, n, v, err)
			}
		case "escapes": // "\u006eame" is "name" repeated with other values
			if !errors.Is(err, jsonwalk.ErrConflict) {
				t.Errorf("%s: Names = %q, %q, %v; want a conflict", name, n, v, err)
			}
		default:
			if n != "a" || v != "1" || err != nil {
				t.Errorf("%s: Names = %q, %q, %v; want \"a\", \"1\"", name, n, v, err)
			}
		}
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

func BenchmarkNames(b *testing.B) {
	doc := packageJSONFiles(b)[0]
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, _, err := Names(doc); err != nil {
			b.Fatal(err)
		}
	}
}
