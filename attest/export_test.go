package attest

// ManifestDigestForTest exposes the subject digest to the external tests.
var ManifestDigestForTest = manifestDigest
