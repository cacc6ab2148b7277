package attest

import "github.com/dshaudit/dshaudit/attest/signed"

// ManifestDigestForTest exposes the subject digest to the external tests.
var ManifestDigestForTest = signed.ManifestDigest
