package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/dshaudit/dshaudit/manifest"
)

func TestWriteDeterministic(t *testing.T) {
	c := sampleContents(t)
	a := mustWrite(t, c)
	b := mustWrite(t, c)
	if !bytes.Equal(a, b) {
		t.Fatal("two writes of the same contents differ")
	}
	// Rebuild the map many times: Go randomises map iteration order, so
	// this exercises different insertion and iteration orders.
	for i := 0; i < 20; i++ {
		c2 := c
		c2.Files = map[string][]byte{}
		keys := slices.Sorted(maps.Keys(c.Files))
		for j := range keys {
			k := keys[(j*7+i)%len(keys)]
			c2.Files[k] = bytes.Clone(c.Files[k])
		}
		if got := mustWrite(t, c2); !bytes.Equal(got, a) {
			t.Fatalf("write %d with a rebuilt map differs", i)
		}
	}
	// Via the Builder, adding in reverse order.
	var bl Builder
	keys := slices.Sorted(maps.Keys(c.Files))
	for i := len(keys) - 1; i >= 0; i-- {
		if err := bl.Add(keys[i], c.Files[keys[i]]); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := bl.Write(&buf, c.Manifest, c.Signature); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), a) {
		t.Fatal("Builder output differs from Write")
	}
}

func TestWriteLayout(t *testing.T) {
	c := sampleContents(t)
	// A long and a non-ASCII name, which need PAX "path" records.
	long := "r1/" + strings.Repeat("x", 300) + "/stdout"
	c.Files[long] = []byte("long\n")
	c.Files["static/ünï.txt"] = []byte("u\n")
	m, _ := manifest.Decode(c.Manifest)
	m.Files = FileList(c.Files)
	raw, err := manifest.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	c.Manifest = raw
	bundle := mustWrite(t, c)

	var h zstd.Header
	if err := h.Decode(bundle); err != nil {
		t.Fatal(err)
	}
	if !h.HasCheckSum || h.DictionaryID != 0 || h.Skippable {
		t.Errorf("frame header %+v", h)
	}
	dec, err := zstd.NewReader(bytes.NewReader(bundle))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	tr := tar.NewReader(dec)
	var names []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
		if hdr.Typeflag != tar.TypeReg || hdr.Mode != 0o644 || hdr.Uid != 0 || hdr.Gid != 0 ||
			hdr.Uname != "" || hdr.Gname != "" || !hdr.ModTime.Equal(time.Unix(0, 0)) {
			t.Errorf("%q: header %+v", hdr.Name, hdr)
		}
		for k := range hdr.PAXRecords {
			if k != "path" {
				t.Errorf("%q: PAX record %q", hdr.Name, k)
			}
		}
		if hdr.Name == long && hdr.Format != tar.FormatPAX {
			t.Errorf("long name written as %v", hdr.Format)
		}
		if hdr.Name == manifest.Path && hdr.Format != tar.FormatUSTAR {
			t.Errorf("short name written as %v", hdr.Format)
		}
	}
	want := append([]string{manifest.Path, manifest.SignaturePath}, slices.Sorted(maps.Keys(c.Files))...)
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Errorf("entry order\n got %q\nwant %q", names, want)
	}
}

func TestWriteUnsigned(t *testing.T) {
	c := sampleContents(t)
	c.Signature = nil
	a, err := Read(bytes.NewReader(mustWrite(t, c)), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if a.RawSignature != nil {
		t.Error("unsigned bundle has a signature entry")
	}
}

func TestWriteRefuses(t *testing.T) {
	base := sampleContents(t)
	with := func(f func(c *Contents)) Contents {
		c := base
		c.Files = maps.Clone(base.Files)
		f(&c)
		return c
	}
	cases := []struct {
		name string
		c    Contents
		want error
	}{
		{"non-canonical manifest", with(func(c *Contents) { c.Manifest = append(bytes.Clone(c.Manifest), '\n') }), manifest.ErrNotCanonical},
		{"missing file", with(func(c *Contents) { delete(c.Files, "r1/t4/stdout") }), ErrContentsMismatch},
		{"extra file", with(func(c *Contents) { c.Files["unlisted"] = []byte("x") }), ErrContentsMismatch},
		{"changed file", with(func(c *Contents) { c.Files["r1/t4/stdout"] = []byte("tampered") }), ErrContentsMismatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Write(&buf, c.c)
			if !errors.Is(err, c.want) {
				t.Fatalf("Write = %v, want %v", err, c.want)
			}
			if buf.Len() != 0 {
				t.Error("bytes written before refusing")
			}
		})
	}
}

func TestWriteRefusesOverLimit(t *testing.T) {
	big := map[string][]byte{"big": make([]byte, DefaultMaxEntrySize+1)}
	m := newManifest()
	m.Files = FileList(big)
	raw, err := manifest.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(io.Discard, Contents{Manifest: raw, Files: big}); !errors.Is(err, ErrEntryTooLarge) {
		t.Fatalf("Write = %v, want ErrEntryTooLarge", err)
	}
	var b Builder
	if err := b.Add("big", big["big"]); !errors.Is(err, ErrEntryTooLarge) {
		t.Fatalf("Add = %v, want ErrEntryTooLarge", err)
	}
}

func TestBuilderRefuses(t *testing.T) {
	var b Builder
	if err := b.Add("a/b", []byte("1")); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]error{
		"a/b":                  manifest.ErrDuplicate,
		"a":                    manifest.ErrPathConflict,
		"a/b/c":                manifest.ErrPathConflict,
		"../x":                 manifest.ErrPathEscape,
		manifest.SignaturePath: manifest.ErrReservedPath,
	} {
		if err := b.Add(p, nil); !errors.Is(err, want) {
			t.Errorf("Add(%q) = %v, want %v", p, err, want)
		}
	}
	// Add copies: changing the caller's slice later changes nothing.
	data := []byte("abc")
	if err := b.Add("c", data); err != nil {
		t.Fatal(err)
	}
	data[0] = 'X'
	if got := b.files["c"]; string(got) != "abc" {
		t.Errorf("Builder kept the caller's slice: %q", got)
	}
	if fl := b.Files(); len(fl) != 2 || fl[0].Path != "a/b" || fl[1].Path != "c" {
		t.Errorf("Files() = %+v", fl)
	}
}
