package manifest

import "io"

// Internals the external tests (package manifest_test, which can import
// internal/testutil/manifesttest) check.
var (
	DecodeCanonical = decodeCanonical
	DecodeStrict    = decodeStrict
	Canonical       = canonical
	FirstDifference = firstDifference
)

func NewManifestEncoder(w io.Writer) interface{ Encode(any) error } { return newManifestEncoder(w) }

func NewIndentWriter(w io.Writer) io.Writer { return &indentWriter{w: w} }
