package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/internal/pkgtar"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules/static"
	"github.com/dshaudit/dshaudit/vsa"
)

// npmEpoch is the modification time npm pack gives every entry.
var npmEpoch = time.Date(1985, 10, 26, 8, 15, 0, 0, time.UTC)

// packTarball is an npm-pack-like tarball of files (package-relative
// paths), deterministic: entries under package/ in path order, npm's
// fixed time, mode 0644, no owner, gzip without a name or time. The
// vectors hold it as the tested tarball (SPEC.md "The tested tarball").
func packTarball(files map[string][]byte) []byte {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		b := files[p]
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: "package/" + p, Size: int64(len(b)), Mode: 0o644, ModTime: npmEpoch, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(hdr); err != nil {
			panic(err)
		}
		if _, err := tw.Write(b); err != nil {
			panic(err)
		}
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	var gb bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&gb, gzip.BestCompression)
	gz.Write(tb.Bytes())
	gz.Close()
	return gb.Bytes()
}

// unpackTarball is the files of a tarball packTarball wrote.
func unpackTarball(tgz []byte) map[string][]byte {
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		panic(err)
	}
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			panic(err)
		}
		files[strings.TrimPrefix(hdr.Name, "package/")] = b
	}
	return files
}

// pluginTarball packs a fixture plugin as npm pack would: its lib/ files
// as they are (renamed with r when set), and the package.json and patch
// given, the bytes T0 records.
func pluginTarball(dir string, pkg, patch []byte, r *strings.Replacer) ([]byte, error) {
	files := map[string][]byte{"package.json": pkg}
	if p, err := static.PatchPath(pkg); err == nil && patch != nil {
		files[p] = patch
	}
	lib := filepath.Join(dir, "lib")
	err := filepath.WalkDir(lib, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if r != nil {
			b = []byte(r.Replace(string(b)))
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		return nil, err
	}
	return packTarball(files), nil
}

// nameTarball sets the subject's integrity and tarball_sha256 to the
// digests of b, derived as the verifier derives them (vsa.TarballOf).
func nameTarball(s *manifest.Subject, b []byte) {
	t := vsa.TarballOf(b)
	s.Integrity, s.TarballSHA256 = t.Integrity(), t.SHA256()
}

// repack makes the held tarball agree with what the lie left recorded,
// as a writer lying consistently repacks what it claims it tested: a
// local subject's package.json and patch file inside it become the
// recorded metadata and patch, and the subject's digests, where they
// named the old tarball, name the new one. A lie about the tarball
// itself sets keepTarball and is not repacked.
func (c *lieCtx) repack() {
	p := c.m.Static.Evidence[manifest.RoleTarball]
	old, ok := c.files[p]
	if !ok || (c.m.Subject.Source != "local-tarball" && c.m.Subject.Source != "local-dir") {
		return
	}
	files := unpackTarball(old)
	meta := c.files[c.m.Static.Evidence[manifest.RoleMetadata]]
	if meta != nil {
		pp, err := static.PatchPath(meta)
		patch, ok := c.files[c.m.Static.Evidence[manifest.RolePatch]]
		if orig, oerr := static.PatchPath(files["package.json"]); oerr == nil && err == nil && ok {
			delete(files, orig)
			files[pp] = patch
		}
		files["package.json"] = meta
	}
	// The README T0 read is the tarball's (pkgsource): one README.md.
	for f := range files {
		if _, ok := pkgtar.ReadmeRank(f); ok {
			delete(files, f)
		}
	}
	if rm, ok := c.files[c.m.Static.Evidence[manifest.RoleREADME]]; ok {
		files["README.md"] = rm
	}
	tgz := packTarball(files)
	if bytes.Equal(tgz, old) {
		return
	}
	c.files[p] = tgz
	o, n := vsa.TarballOf(old), vsa.TarballOf(tgz)
	if c.m.Subject.Integrity == o.Integrity() {
		c.m.Subject.Integrity = n.Integrity()
	}
	if c.m.Subject.TarballSHA256 == o.SHA256() {
		c.m.Subject.TarballSHA256 = n.SHA256()
	}
}
