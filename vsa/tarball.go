package vsa

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
)

// Tarball is the digests of a package tarball's bytes, the only digests
// a summary names a package by (SPEC.md "Verification summary"). Its
// fields are unexported and its constructors hash bytes: no digest a
// bundle's writer states (subject.integrity, subject.tarball_sha256)
// can become one, so a summary can only vouch for bytes a verifier had.
// The zero value is "no tarball".
type Tarball struct {
	sha256, sha512 []byte
	size           int64
}

// TarballOf is the digests of b.
func TarballOf(b []byte) Tarball {
	s2 := sha256.Sum256(b)
	s5 := sha512.Sum512(b)
	return Tarball{sha256: s2[:], sha512: s5[:], size: int64(len(b))}
}

// TarballFrom is the digests of everything r gives.
func TarballFrom(r io.Reader) (Tarball, error) {
	h2, h5 := sha256.New(), sha512.New()
	n, err := io.Copy(io.MultiWriter(h2, h5), r)
	if err != nil {
		return Tarball{}, err
	}
	return Tarball{sha256: h2.Sum(nil), sha512: h5.Sum(nil), size: n}, nil
}

// IsZero reports whether t names no tarball.
func (t Tarball) IsZero() bool { return t.sha256 == nil }

// SHA256 is the lowercase hex sha256, "" for the zero value.
func (t Tarball) SHA256() string { return hexOf(t.sha256) }

// SHA512 is the lowercase hex sha512, "" for the zero value.
func (t Tarball) SHA512() string { return hexOf(t.sha512) }

// Integrity is npm's integrity string, "sha512-<base64>", "" for the
// zero value.
func (t Tarball) Integrity() string {
	if t.IsZero() {
		return ""
	}
	return "sha512-" + base64.StdEncoding.EncodeToString(t.sha512)
}

// Size is the tarball's length in bytes.
func (t Tarball) Size() int64 { return t.size }

// Equal reports whether t and o are the digests of the same bytes.
func (t Tarball) Equal(o Tarball) bool {
	return !t.IsZero() && t.SHA256() == o.SHA256() && t.SHA512() == o.SHA512() && t.size == o.size
}

// MarshalJSON writes {"sha256":…,"integrity":…,"size":…}, null for the
// zero value.
func (t Tarball) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(struct {
		SHA256    string `json:"sha256"`
		Integrity string `json:"integrity"`
		Size      int64  `json:"size"`
	}{t.SHA256(), t.Integrity(), t.size})
}

func hexOf(b []byte) string {
	if b == nil {
		return ""
	}
	return hex.EncodeToString(b)
}
