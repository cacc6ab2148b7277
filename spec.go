// Package dshaudit holds the text of SPEC.md, the specification this
// build of dshaudit applies, so that what it signs can name the exact
// text by digest (SPEC.md "Verification summary": the summary's policy).
// It imports nothing.
package dshaudit

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

//go:embed SPEC.md
var specText []byte

// SpecBaseURI is the policy URI of a specification version without the
// version: SpecURI appends it.
const SpecBaseURI = "https://dshaudit.dev/spec/"

var specVersionRE = lazyregexp.New(`(?m)^Version ([0-9]+\.[0-9]+) `)

// SpecVersion is the version SPEC.md states on its "Version" line, e.g.
// "1.10", or "" if it states none.
func SpecVersion() string {
	m := specVersionRE.FindSubmatch(specText)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// SpecURI is the URI naming the specification version this build applies.
func SpecURI() string { return SpecBaseURI + SpecVersion() }

// SpecSHA256 is the lowercase hex sha256 of SPEC.md as built in.
func SpecSHA256() string {
	sum := sha256.Sum256(specText)
	return hex.EncodeToString(sum[:])
}
