package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"sort"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
)

// rawEntry is one tar entry of a hand-made (possibly hostile) archive.
type rawEntry struct {
	name     string
	data     []byte
	typeflag byte
	linkname string
}

// rawArchive writes entries in the given order with the bundle's fixed
// header fields and zstd window, but none of the writer's checks.
func rawArchive(entries []rawEntry) ([]byte, error) {
	tb, err := rawTar(entries)
	if err != nil {
		return nil, err
	}
	return compressTar(tb)
}

// rawTar is rawArchive's tar stream, uncompressed.
func rawTar(entries []rawEntry) ([]byte, error) {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, e := range entries {
		tf := e.typeflag
		if tf == 0 {
			tf = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Typeflag: tf, Linkname: e.linkname, Mode: 0o644, ModTime: time.Unix(0, 0).UTC(), Format: tar.FormatPAX}
		if tf == tar.TypeReg {
			h.Size = int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if tf == tar.TypeReg {
			if _, err := tw.Write(e.data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return tb.Bytes(), nil
}

// compressTar compresses a tar stream into one zstd frame with the
// bundle's window.
func compressTar(tb []byte) ([]byte, error) {
	var zb bytes.Buffer
	zw, err := zstd.NewWriter(&zb, zstd.WithWindowSize(bundle.EncoderWindow), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(tb); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return zb.Bytes(), nil
}

// entriesOf lays c out in bundle order: manifest, signature, files sorted.
func entriesOf(c *contents) []rawEntry {
	out := []rawEntry{{name: manifest.Path, data: c.raw}}
	if c.sig != nil {
		out = append(out, rawEntry{name: manifest.SignaturePath, data: c.sig})
	}
	paths := make([]string, 0, len(c.files))
	for p := range c.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		out = append(out, rawEntry{name: p, data: c.files[p]})
	}
	return out
}

func clone(c *contents) *contents {
	files := make(map[string][]byte, len(c.files))
	for k, v := range c.files {
		files[k] = append([]byte(nil), v...)
	}
	m := *c.m
	return &contents{m: &m, raw: append([]byte(nil), c.raw...), sig: append([]byte(nil), c.sig...), files: files}
}

func (g *gen) broken() error {
	if g.pass == nil {
		return fmt.Errorf("no pass bundle to break")
	}
	stdout := g.pass.m.Repetitions[0].Stages[0].Evidence["stdout"]
	dump := g.pass.m.Repetitions[0].Stages[2].Evidence["stdout"]
	type brk struct {
		name, desc, status string
		classes            []string
		verdict            string
		make               func() ([]byte, error)
	}
	cases := []brk{
		{"edited_stdout", "one byte of repetition 1's T1 stdout changed after signing", "tampered", []string{"file-changed"}, "", func() ([]byte, error) {
			c := clone(g.pass)
			b := c.files[stdout]
			i := bytes.Index(b, []byte("+ hello-dsh-plugin 1.0.0"))
			b[i+2] = 'j'
			return rawArchive(entriesOf(c))
		}},
		{"removed_evidence", "repetition 1's T3 stdout (the dump) removed from the archive", "tampered", []string{"file-missing"}, "", func() ([]byte, error) {
			c := clone(g.pass)
			delete(c.files, dump)
			return rawArchive(entriesOf(c))
		}},
		{"extra_file", "a file the manifest does not list added to the archive", "tampered", []string{"file-extra"}, "pass", func() ([]byte, error) {
			c := clone(g.pass)
			c.files["zz-extra.txt"] = []byte("not listed\n")
			return rawArchive(entriesOf(c))
		}},
		{"unsigned", "the signature entry removed", "unsigned", []string{"unsigned"}, "pass", func() ([]byte, error) {
			c := clone(g.pass)
			c.sig = nil
			return rawArchive(entriesOf(c))
		}},
		{"other_key", "the same manifest signed by another key", "signature-invalid", []string{"signature-invalid"}, "pass", func() ([]byte, error) {
			c, err := g.sign(g.pass.m, g.pass.files, g.other)
			if err != nil {
				return nil, err
			}
			return rawArchive(entriesOf(c))
		}},
		{"swapped_verdict", "claimed verdicts changed from pass to boot_failed, re-signed with the right key", "verdict-mismatch", []string{"verdict-mismatch"}, "pass", func() ([]byte, error) {
			m := *g.pass.m
			m.Repetitions = append([]manifest.Repetition(nil), m.Repetitions...)
			for i := range m.Repetitions {
				m.Repetitions[i].Verdict = "boot_failed"
			}
			m.Claimed.Verdict = "boot_failed"
			c, err := g.sign(&m, g.pass.files, g.signer)
			if err != nil {
				return nil, err
			}
			return rawArchive(entriesOf(c))
		}},
		{"manifest_names_missing_file", "the manifest lists a file the archive lacks, re-signed with the right key", "tampered", []string{"file-missing"}, "pass", func() ([]byte, error) {
			m := *g.pass.m
			m.Files = append(append([]manifest.File(nil), m.Files...), manifest.File{Path: "repetitions/1/T4/core", SHA256: hexSHA256([]byte("core")), Size: 4})
			sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
			c, err := g.sign(&m, g.pass.files, g.signer)
			if err != nil {
				return nil, err
			}
			return rawArchive(entriesOf(c))
		}},
		{"path_traversal", "an entry named ../evil", "tampered", []string{"archive-unsafe"}, "", func() ([]byte, error) {
			return rawArchive(append(entriesOf(g.pass), rawEntry{name: "../evil", data: []byte("x")}))
		}},
		{"absolute_path", "an entry named /etc/evil", "tampered", []string{"archive-unsafe"}, "", func() ([]byte, error) {
			return rawArchive(append(entriesOf(g.pass), rawEntry{name: "/etc/evil", data: []byte("x")}))
		}},
		{"oversized_entry", "an entry one byte over the default entry size limit", "tampered", []string{"archive-unsafe"}, "", func() ([]byte, error) {
			return rawArchive(append(entriesOf(g.pass), rawEntry{name: "zz-big", data: make([]byte, bundle.DefaultMaxEntrySize+1)}))
		}},
		{"duplicate_entry", "static/patch.yml stored twice", "tampered", []string{"archive-unsafe"}, "", func() ([]byte, error) {
			es := entriesOf(g.pass)
			var dup []rawEntry
			for _, e := range es {
				dup = append(dup, e)
				if e.name == "static/patch.yml" {
					dup = append(dup, e)
				}
			}
			return rawArchive(dup)
		}},
		{"symlink_entry", "a symbolic link entry", "tampered", []string{"archive-unsafe"}, "", func() ([]byte, error) {
			return rawArchive(append(entriesOf(g.pass), rawEntry{name: "zz-link", typeflag: tar.TypeSymlink, linkname: "/etc/passwd"}))
		}},
		{"hardlink_entry", "a hard link entry", "tampered", []string{"archive-unsafe"}, "", func() ([]byte, error) {
			return rawArchive(append(entriesOf(g.pass), rawEntry{name: "zz-link", typeflag: tar.TypeLink, linkname: "manifest.json"}))
		}},
		{"device_entry", "a character device entry", "tampered", []string{"archive-unsafe"}, "", func() ([]byte, error) {
			return rawArchive(append(entriesOf(g.pass), rawEntry{name: "zz-dev", typeflag: tar.TypeChar}))
		}},
	}
	for _, b := range cases {
		archive, err := b.make()
		if err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
		if err := g.emitRaw(b.name, "broken: "+b.desc, archive, b.status, b.classes, b.verdict); err != nil {
			return err
		}
	}
	return nil
}
