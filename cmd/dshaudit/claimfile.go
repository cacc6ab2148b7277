package main

import (
	"fmt"
	"io"
	"os"

	"github.com/dshaudit/dshaudit/pkgsource"
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

// readTarballClaim reads the claim of an npm package tarball as npm
// reads the tarball (pkgsource.TarballClaim; SPEC.md "Consumers").
func readTarballClaim(name string, r io.Reader) ([]byte, string, error) {
	tgz, err := io.ReadAll(io.LimitReader(r, maxClaimTarball+1))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	if len(tgz) > maxClaimTarball {
		return nil, "", fmt.Errorf("%s: larger than %d bytes", name, maxClaimTarball)
	}
	readme, _, pkgName, version, err := pkgsource.TarballClaim(tgz, maxClaimSize)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	pkg := ""
	if pkgName != "" && version != "" {
		pkg = pkgName + "@" + version
	}
	return readme, pkg, nil
}

// maxClaimTarball bounds a claim tarball, as the runner bounds one
// (pkgsource.DefaultLimits.MaxTarballBytes).
const maxClaimTarball = 128 << 20
