package engine

import (
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// PinnedRef is a parsed NAME[:TAG]@sha256:HEX reference. The tag, if any,
// is informational only: it is never consulted to find an image.
type PinnedRef struct {
	// Original is the reference as given.
	Original string
	// Repository is NAME without tag or digest, as given (not expanded).
	Repository string
	// Tag is the tag written in the reference, or "".
	Tag string
	// Digest is the manifest digest.
	Digest v1.Hash
}

// ParsePinned parses a reference that must carry a sha256 digest.
func ParsePinned(ref string) (PinnedRef, error) {
	at := strings.LastIndex(ref, "@")
	if at < 0 {
		return PinnedRef{}, fmt.Errorf("%q: %w (want NAME@sha256:<64 hex>)", ref, ErrNotPinned)
	}
	if !strings.HasPrefix(ref[at+1:], "sha256:") {
		return PinnedRef{}, fmt.Errorf("%q: %w (algorithm must be sha256)", ref, ErrNotPinned)
	}
	d, err := name.NewDigest(ref)
	if err != nil {
		return PinnedRef{}, fmt.Errorf("parse image reference %q: %w", ref, err)
	}
	h, err := v1.NewHash(d.DigestStr())
	if err != nil || len(h.Hex) != 64 {
		return PinnedRef{}, fmt.Errorf("parse image reference %q: bad digest: %w", ref, ErrNotPinned)
	}
	p := PinnedRef{Original: ref, Repository: ref[:at], Digest: h}
	if t, err := name.NewTag(ref[:at]); err == nil && strings.Contains(lastPathElem(ref[:at]), ":") {
		p.Tag = t.TagStr()
		p.Repository = strings.TrimSuffix(ref[:at], ":"+p.Tag)
	}
	return p, nil
}

func lastPathElem(s string) string {
	if i := strings.LastIndex(s, "/"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// String returns the reference as given.
func (p PinnedRef) String() string { return p.Original }

// ByDigest returns REPOSITORY@sha256:HEX, the form engines pull and look up.
func (p PinnedRef) ByDigest() string { return p.Repository + "@" + p.Digest.String() }

// Tagged returns REPOSITORY:TAG, or REPOSITORY when the ref has no tag.
func (p PinnedRef) Tagged() string {
	if p.Tag == "" {
		return p.Repository
	}
	return p.Repository + ":" + p.Tag
}
