package pkgsource

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"testing"
)

// entry is one tar entry for buildTgz.
type entry struct {
	Name     string
	Body     string
	Type     byte // 0 means a regular file
	Linkname string
}

// buildTgz writes a gzip tar from entries, in order.
func buildTgz(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		typ := e.Type
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.Name, Mode: 0o644, Typeflag: typ, Linkname: e.Linkname, Format: tar.FormatPAX}
		if typ == tar.TypeReg {
			hdr.Size = int64(len(e.Body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatalf("tar header %q: %v", e.Name, err)
		}
		if typ == tar.TypeReg {
			if _, err := tw.Write([]byte(e.Body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const helloPkgJSON = `{
  "name": "hello-dsh-plugin",
  "version": "1.0.0",
  "type": "module",
  "main": "lib/index.js",
  "files": ["lib", "cordis.patch.yml"],
  "dsh": {"bundle": {"patch": "./cordis.patch.yml"}}
}`

const helloPatch = "- insert:\n    - id: hello\n      name: \"hello-dsh-plugin\"\n"

// helloTgz is a well-formed plugin tarball.
func helloTgz(t testing.TB) []byte {
	return buildTgz(t,
		entry{Name: "package/package.json", Body: helloPkgJSON},
		entry{Name: "package/cordis.patch.yml", Body: helloPatch},
		entry{Name: "package/lib/index.js", Body: "export function apply() {}\n"},
		entry{Name: "package/README.md", Body: "# hello\n"},
	)
}
