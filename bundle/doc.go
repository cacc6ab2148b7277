// Package bundle owns the dshaudit evidence bundle's archive: the
// deterministic .tar.zst (SPEC.md "Bundle layout") and the hostile-input
// reader with its limits (SPEC.md "Reader limits and refusals"). The
// manifest it carries, its wire types and canonical codec (SPEC.md
// "Canonical manifest encoding") are package manifest's.
//
// The bundle is what DSHIO/T 20 12.1 asks to retain: every stage's raw
// evidence, byte for byte, next to a manifest that lists each file's
// sha256. The manifest's raw bytes are what package attest signs; the
// Sigstore bundle it produces is stored as one more archive entry,
// manifest.SignaturePath. This package neither signs nor verifies
// signatures, and it never writes an archive entry to the filesystem:
// Read returns file contents in memory, so entry names are never used as
// paths.
package bundle
