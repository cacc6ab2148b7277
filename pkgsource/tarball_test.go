package pkgsource

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/pkgtar"
)

func wantAll(string) bool { return true }

func TestReadTarballStripsRootAndIndexes(t *testing.T) {
	tgz := buildTgz(t,
		entry{Name: "package/", Type: tar.TypeDir},
		entry{Name: "package/package.json", Body: helloPkgJSON},
		entry{Name: "package/lib/index.js", Body: "x"},
		entry{Name: "stray-top-level-file", Body: "dropped, as npm drops it"},
		entry{Name: "package/link", Type: tar.TypeSymlink, Linkname: "/etc/passwd"},
		entry{Name: "package/./readme", Body: "r"},
	)
	idx, err := ReadTarball(tgz, Limits{}, wantAll)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(idx.Files, ","); got != "lib/index.js,package.json,readme" {
		t.Errorf("files = %s", got)
	}
	if got := strings.Join(idx.Links, ","); got != "link" {
		t.Errorf("links = %s", got)
	}
	if string(idx.Read["package.json"]) != helloPkgJSON {
		t.Errorf("package.json not read")
	}
	// node-tar strips "." as the first component: ./package/x is
	// package/x, beside package/... a second package root.
	if _, err := ReadTarball(buildTgz(t, entry{Name: "package/package.json", Body: "{}"}, entry{Name: "./package/readme", Body: "r"}), Limits{}, wantAll); !errors.Is(err, ErrBadTarball) {
		t.Errorf("./package/ beside package/: %v", err)
	}
	// A root that is not "package/" is stripped too (old npm tarballs).
	idx, err = ReadTarball(buildTgz(t, entry{Name: "node-x/package.json", Body: "{}"}), Limits{}, wantAll)
	if err != nil || string(idx.Read["package.json"]) != "{}" {
		t.Fatalf("other root: %v %v", idx, err)
	}
}

func TestReadTarballHostile(t *testing.T) {
	big := strings.Repeat("A", 2048)
	cases := []struct {
		name    string
		tgz     []byte
		lim     Limits
		want    error
		wantMsg string
	}{
		{"dotdot", buildTgz(t, entry{Name: "package/../../etc/x", Body: "x"}), Limits{}, ErrBadTarball, "escapes"},
		{"absolute", buildTgz(t, entry{Name: "/etc/passwd", Body: "x"}), Limits{}, ErrBadTarball, "absolute"},
		{"duplicate", buildTgz(t, entry{Name: "package/package.json", Body: "{}"}, entry{Name: "package/package.json", Body: `{"x":1}`}), Limits{}, ErrBadTarball, "twice"},
		{"huge wanted entry", buildTgz(t, entry{Name: "package/package.json", Body: big}), Limits{MaxFileBytes: 1024}, ErrTooLarge, `"package/package.json" is 2048 bytes`},
		{"unpacked bomb", buildTgz(t, entry{Name: "package/blob", Body: strings.Repeat("\x00", 1<<20)}), Limits{MaxUnpackedBytes: 64 << 10}, ErrTooLarge, "unpacked limit"},
		{"too many entries", buildTgz(t, entry{Name: "package/a", Body: ""}, entry{Name: "package/b", Body: ""}, entry{Name: "package/c", Body: ""}), Limits{MaxEntries: 2}, ErrTooLarge, "more than 2"},
		{"not gzip", []byte("PK\x03\x04 a zip"), Limits{}, ErrBadTarball, "not gzip"},
		{"gzip not tar", gzipBytes(t, []byte(strings.Repeat("garbage ", 100))), Limits{}, ErrBadTarball, ""},
		{"truncated", helloTgz(t)[:60], Limits{}, ErrBadTarball, ""},
	}
	for _, c := range cases {
		_, err := ReadTarball(c.tgz, c.lim, wantAll)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.wantMsg) {
			t.Errorf("%s: %q lacks %q", c.name, err, c.wantMsg)
		}
	}
}

func gzipBytes(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	gz.Write(b)
	gz.Close()
	return buf.Bytes()
}

func TestPickReadme(t *testing.T) {
	cases := []struct {
		files []string
		want  string
	}{
		{[]string{"README", "README.md", "readme.txt"}, "README.md"},
		{[]string{"Readme", "readme.txt"}, "Readme"},
		{[]string{"readme.txt"}, "readme.txt"},
		{[]string{"docs/README.md", "index.js"}, ""},
		{[]string{"README.markdown", "readme"}, "README.markdown"},
		{[]string{"READMEFIRST.js"}, ""},
	}
	for _, c := range cases {
		if got := pkgtar.PickReadme(c.files); got != c.want {
			t.Errorf("pickReadme(%v) = %q, want %q", c.files, got, c.want)
		}
	}
}

func BenchmarkReadTarball(b *testing.B) {
	files := []entry{{Name: "package/package.json", Body: helloPkgJSON}}
	for i := 0; i < 2000; i++ {
		files = append(files, entry{Name: "package/lib/f" + strings.Repeat("x", i%50) + string(rune('a'+i%26)) + "/" + strings.Repeat("y", i%7) + ".js", Body: strings.Repeat("code;", 200)})
	}
	// Names may repeat in this generator; keep the first of each.
	seen := map[string]bool{}
	var uniq []entry
	for _, f := range files {
		if !seen[f.Name] {
			seen[f.Name] = true
			uniq = append(uniq, f)
		}
	}
	tgz := buildTgz(b, uniq...)
	b.SetBytes(int64(len(tgz)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ReadTarball(tgz, Limits{}, func(rel string) bool { return rel == "package.json" }); err != nil {
			b.Fatal(err)
		}
	}
}
