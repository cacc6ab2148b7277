package attest

import "github.com/dshaudit/dshaudit/attest/signed"

// The statement format (SPEC.md "Signature", "Format") is defined in
// package signed, which does not link Sigstore; these names re-export it.
const (
	BundleMediaType = signed.BundleMediaType
	PayloadType     = signed.PayloadType
	StatementType   = signed.StatementType
	PredicateType   = signed.PredicateType
	SubjectName     = signed.SubjectName
	DigestAlgorithm = signed.DigestAlgorithm
)

type (
	// Predicate is the dshaudit evidence predicate (signed.Predicate).
	Predicate = signed.Predicate
	// Tool names a program and its version.
	Tool = signed.Tool
	// Package is an npm package name and exact version.
	Package = signed.Package
	// Result is what a successful Verify established (signed.Result).
	Result = signed.Result
)

// Check makes a Policy a signed.Checker: it is Verify with p.
func (p Policy) Check(signature, manifest []byte) (*Result, error) {
	return Verify(signature, manifest, p)
}
