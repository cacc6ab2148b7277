package manifest

// Internals the external tests (package manifest_test, which can import
// internal/testutil/manifesttest) check.
var (
	DecodeCanonical = decodeCanonical
	DecodeStrict    = decodeStrict
	Canonical       = canonical
	FirstDifference = firstDifference
)
