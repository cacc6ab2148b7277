package pkgtar

import (
	"bytes"
	"errors"
	"fmt"
)

// Failure classes of Read and ChooseReadme; pkgsource's sentinels of the
// same names are these values.
var (
	// ErrBadTarball: the tarball is not a readable gzip tar, or it is
	// hostile (path escapes, duplicate or oversized entries).
	ErrBadTarball = errors.New("unreadable or hostile tarball")
	// ErrTooLarge: the tarball, its unpacked stream or an entry exceeds
	// its limit.
	ErrTooLarge = errors.New("size limit exceeded")
	// ErrAmbiguous: readers of the tarball would take different texts
	// for its README, or its package.json reads differently (SPEC.md
	// "Consumers", T1–T4).
	ErrAmbiguous = errors.New("the tarball's README or package.json is read differently by its consumers")
)

// ChooseReadme is the README at the package root (PickReadme), or ""
// when there is none; several README files of different texts are
// refused (ErrAmbiguous): npm takes the first Markdown one, code hosts
// README.md first, others README (SPEC.md "Consumers", T4). idx must
// hold the contents of every README candidate (ReadmeRank).
func ChooseReadme(idx *Index) (string, error) {
	p := PickReadme(idx.Files)
	for _, f := range idx.Files {
		if _, ok := ReadmeRank(f); ok && p != "" && f != p && !bytes.Equal(idx.Read[f], idx.Read[p]) {
			return "", fmt.Errorf("%w: %s and %s are both READMEs with different texts, and npm, the registry and code hosts choose between them differently", ErrAmbiguous, p, f)
		}
	}
	return p, nil
}
