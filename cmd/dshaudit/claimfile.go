package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// maxClaimSize bounds a claim text, and each file read from a tarball.
const maxClaimSize = 4 << 20

// readClaim reads a claim: a text file, or an npm package tarball (.tgz,
// .tar.gz) whose package/README* is the claim and whose
// package/package.json names the package (name@version).
func readClaim(p string) (text []byte, pkg string, err error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := io.ReadFull(f, head)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, "", err
	}
	if n == 2 && head[0] == 0x1f && head[1] == 0x8b {
		return readTarballClaim(p, f)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxClaimSize+1))
	if err != nil {
		return nil, "", err
	}
	if len(b) > maxClaimSize {
		return nil, "", fmt.Errorf("%s: larger than %d bytes", p, maxClaimSize)
	}
	return b, "", nil
}

func readTarballClaim(name string, r io.Reader) ([]byte, string, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	tr := tar.NewReader(io.LimitReader(gz, 512<<20))
	var readme, pkgJSON []byte
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", name, err)
		}
		if h.Typeflag != tar.TypeReg || h.Size > maxClaimSize {
			continue
		}
		// npm tarballs hold one top directory, usually "package/".
		dir, base := path.Split(path.Clean(h.Name))
		if strings.Count(dir, "/") != 1 {
			continue
		}
		switch {
		case base == "package.json":
			pkgJSON, err = io.ReadAll(tr)
		case readme == nil && strings.HasPrefix(strings.ToLower(base), "readme"):
			readme, err = io.ReadAll(tr)
		}
		if err != nil {
			return nil, "", fmt.Errorf("%s: %q: %w", name, h.Name, err)
		}
	}
	if readme == nil {
		return nil, "", fmt.Errorf("%s: no README at the package root", name)
	}
	var meta struct{ Name, Version string }
	if pkgJSON != nil {
		if err := json.NewDecoder(bytes.NewReader(pkgJSON)).Decode(&meta); err != nil {
			return nil, "", fmt.Errorf("%s: package.json: %w", name, err)
		}
	}
	pkg := ""
	if meta.Name != "" && meta.Version != "" {
		pkg = meta.Name + "@" + meta.Version
	}
	return readme, pkg, nil
}
