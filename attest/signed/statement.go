package signed

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// Formats of the signature (SPEC.md "Signature", "Format").
const (
	// BundleMediaType is the Sigstore bundle media type written and the
	// only one accepted.
	BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	// PayloadType is the DSSE payload type: an in-toto statement.
	PayloadType = "application/vnd.in-toto+json"
	// StatementType is the in-toto Statement version.
	StatementType = "https://in-toto.io/Statement/v1"
	// PredicateType identifies the dshaudit evidence predicate.
	PredicateType = "https://dshaudit.dev/evidence/v1"
	// SubjectName is the statement's one subject: the manifest's path in
	// the evidence archive (equal to manifest.Path).
	SubjectName = "manifest.json"
	// DigestAlgorithm is the subject digest algorithm.
	DigestAlgorithm = "sha256"
)

// Predicate is the dshaudit evidence predicate: a short summary a
// third-party verifier (cosign) can read without opening the archive. The
// manifest, bound by the subject digest, is authoritative; dshaudit
// verify checks the predicate agrees with it.
type Predicate struct {
	// Tool is the program that wrote and signed the bundle.
	Tool Tool `json:"tool"`
	// Subject is the npm package tested.
	Subject Package `json:"subject"`
	// Verdict is the bundle's overall verdict code, as in the manifest
	// (e.g. "pass", "boot_failed", "unstable").
	Verdict string `json:"verdict"`
}

// Tool names a program and its version.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Package is an npm package name and exact version.
type Package struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// String is "name@version".
func (p Package) String() string { return p.Name + "@" + p.Version }

// Statement is the in-toto Statement v1 as dshaudit writes it. It is
// marshalled with encoding/json, whose output is stable, rather than with
// the in-toto protobuf type, whose protojson output deliberately varies.
type Statement struct {
	Type          string    `json:"_type"`
	Subject       []Subject `json:"subject"`
	PredicateType string    `json:"predicateType"`
	Predicate     Predicate `json:"predicate"`
}

// Subject is one in-toto subject: a name and its digests by algorithm.
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

var verdictRE = lazyregexp.New(`^[a-z][a-z0-9_]{0,63}$`)

// Validate checks the predicate's fields are present and bounded.
func (p Predicate) Validate() error {
	for _, f := range []struct{ name, v string }{
		{"tool.name", p.Tool.Name}, {"tool.version", p.Tool.Version},
		{"subject.name", p.Subject.Name}, {"subject.version", p.Subject.Version},
	} {
		if f.v == "" {
			return fmt.Errorf("predicate field %s is empty", f.name)
		}
		if len(f.v) > 256 {
			return fmt.Errorf("predicate field %s is %d bytes, limit 256", f.name, len(f.v))
		}
	}
	if !verdictRE.MatchString(p.Verdict) {
		return fmt.Errorf("predicate field verdict %q: want a verdict code like \"pass\"", p.Verdict)
	}
	return nil
}

// ManifestDigest is the lowercase hex sha256 of the manifest bytes.
func ManifestDigest(manifest []byte) string {
	sum := sha256.Sum256(manifest)
	return hex.EncodeToString(sum[:])
}

// EncodeStatement builds the statement's JSON for manifest and pred.
func EncodeStatement(manifest []byte, pred Predicate) ([]byte, error) {
	st := Statement{
		Type:          StatementType,
		Subject:       []Subject{{Name: SubjectName, Digest: map[string]string{DigestAlgorithm: ManifestDigest(manifest)}}},
		PredicateType: PredicateType,
		Predicate:     pred,
	}
	return json.Marshal(st)
}

// DecodeStatement parses and checks a signed statement's shape. It does
// not compare the subject with a manifest. It runs on a payload whose
// signature verified, so every refusal is ErrStatementUnsupported: the
// signature is valid, what it signs is not ours.
func DecodeStatement(payload []byte) (*Statement, error) {
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	var st Statement
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("%w: statement: %w", ErrStatementUnsupported, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: statement: data after the JSON object", ErrStatementUnsupported)
	}
	if st.Type != StatementType {
		hint := ""
		if st.Type == "https://in-toto.io/Statement/v0.1" {
			hint = " (in-toto Statement v0.1, as cosign attest-blob writes; the signature itself is valid)"
		}
		return nil, fmt.Errorf("%w: statement _type %q%s, want %q", ErrStatementUnsupported, st.Type, hint, StatementType)
	}
	if st.PredicateType != PredicateType {
		return nil, fmt.Errorf("%w: predicateType %q, want %q", ErrStatementUnsupported, st.PredicateType, PredicateType)
	}
	if err := st.Predicate.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStatementUnsupported, err)
	}
	return &st, nil
}

// CheckSubject requires exactly one subject, named SubjectName, whose only
// digest is want, the manifest's sha256 as ManifestDigest gives it.
func (st *Statement) CheckSubject(want string) error {
	if len(st.Subject) != 1 {
		return fmt.Errorf("%w: statement has %d subjects, want exactly one, %q", ErrSubjectMismatch, len(st.Subject), SubjectName)
	}
	s := st.Subject[0]
	if s.Name != SubjectName {
		return fmt.Errorf("%w: subject name %q, want %q", ErrSubjectMismatch, s.Name, SubjectName)
	}
	got, ok := s.Digest[DigestAlgorithm]
	if !ok || len(s.Digest) != 1 {
		return fmt.Errorf("%w: subject digest must be exactly one %s digest", ErrSubjectMismatch, DigestAlgorithm)
	}
	if got != want {
		return fmt.Errorf("%w: %s has sha256 %s, the signed statement says %q", ErrSubjectMismatch, SubjectName, want, got)
	}
	return nil
}
