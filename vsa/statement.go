package vsa

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
)

// Formats (SPEC.md "Verification summary").
const (
	// StatementType is the in-toto Statement version.
	StatementType = "https://in-toto.io/Statement/v1"
	// PredicateType is SLSA's Verification Summary Attestation v1.
	PredicateType = "https://slsa.dev/verification_summary/v1"
	// DefaultVerifierID is verifier.id unless the verifying party names
	// itself (dshaudit verify --summary-verifier-id).
	DefaultVerifierID = "https://dshaudit.dev/verifier"
	// VerifierComponent is the key of dshaudit's version in verifier.version.
	VerifierComponent = "dshaudit"
	// Passed and Failed are the two verificationResult values.
	Passed = "PASSED"
	Failed = "FAILED"
	// MaxSummarySize bounds a summary file read (its Sigstore bundle).
	MaxSummarySize = 1 << 20
)

// ErrMalformed: a signed payload that is not a verification summary
// statement dshaudit can read unambiguously.
var ErrMalformed = errors.New("malformed verification summary")

// Statement is the in-toto Statement v1 of a verification summary.
type Statement struct {
	Type          string    `json:"_type"`
	Subject       []Subject `json:"subject"`
	PredicateType string    `json:"predicateType"`
	Predicate     Predicate `json:"predicate"`
}

// Subject is one in-toto subject: a name and its digests by algorithm
// (lowercase hex).
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// Predicate is the VSA v1 predicate, in the member order of the SLSA
// specification's schema.
type Predicate struct {
	Verifier Verifier `json:"verifier"`
	// TimeVerified is RFC 3339 in UTC, present only when the verifier was
	// given a time (verify --now).
	TimeVerified       string               `json:"timeVerified,omitempty"`
	ResourceURI        string               `json:"resourceUri"`
	Policy             ResourceDescriptor   `json:"policy"`
	InputAttestations  []ResourceDescriptor `json:"inputAttestations"`
	VerificationResult string               `json:"verificationResult"`
	VerifiedLevels     []string             `json:"verifiedLevels"`
}

// Verifier names who verified and with which program versions.
type Verifier struct {
	ID      string            `json:"id"`
	Version map[string]string `json:"version,omitempty"`
}

// ResourceDescriptor is the in-toto resource descriptor, the members
// dshaudit uses.
type ResourceDescriptor struct {
	Name   string            `json:"name,omitempty"`
	URI    string            `json:"uri,omitempty"`
	Digest map[string]string `json:"digest,omitempty"`
}

// Package is the npm package verified.
type Package struct {
	Name, Version string
	// Tarball is the digests of the tarball tested, computed from its
	// bytes (the bundle's static/package.tgz); the zero value when the
	// bundle holds none, and then the summary names no package subject.
	Tarball Tarball
}

// Input is what a verification established, all a summary says.
type Input struct {
	Package Package
	// BundleName is the evidence bundle's file name (no directory);
	// BundleSHA256 its hex sha256 as read; SignatureSHA256 the hex sha256
	// of its signature.sigstore.json, "" if it has none.
	BundleName, BundleSHA256, SignatureSHA256 string
	// Passed is true only when verify exits 0.
	Passed bool
	// Levels are the dshaudit levels (Levels); ignored when not Passed.
	Levels []string
	// Policy is the specification applied: its URI and digest.
	Policy ResourceDescriptor
	// VerifierID is verifier.id; VerifierVersion dshaudit's version.
	VerifierID, VerifierVersion string
	// Time is timeVerified; the zero time leaves it out.
	Time time.Time
}

// PackageURL is the purl of an npm package version: pkg:npm/NAME@VERSION,
// a scope's "@" percent-encoded as the purl specification requires
// (pkg:npm/%40scope/name@1.0.0).
func PackageURL(name, version string) string {
	ns, n := "", name
	if strings.HasPrefix(name, "@") {
		if i := strings.IndexByte(name, '/'); i > 0 {
			ns, n = name[:i], name[i+1:]
		}
	}
	p := "pkg:npm/"
	if ns != "" {
		p += esc(ns) + "/"
	}
	return p + esc(n) + "@" + esc(version)
}

// esc percent-encodes every byte but the URI unreserved characters.
func esc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// Build makes the statement of in. Subjects: the package tarball (named
// by its purl, with its sha512 and sha256), when in.Package.Tarball
// names one, then the evidence bundle (sha256).
func Build(in Input) (*Statement, error) {
	if in.Package.Name == "" || in.Package.Version == "" {
		return nil, fmt.Errorf("no package name and version known: no summary can name what was verified")
	}
	if in.BundleName == "" || len(in.BundleSHA256) != 64 {
		return nil, fmt.Errorf("the evidence bundle's name and sha256 are required")
	}
	purl := PackageURL(in.Package.Name, in.Package.Version)
	subjects := []Subject{}
	if t := in.Package.Tarball; !t.IsZero() {
		subjects = append(subjects, Subject{Name: purl, Digest: map[string]string{"sha512": t.SHA512(), "sha256": t.SHA256()}})
	}
	subjects = append(subjects, Subject{Name: in.BundleName, Digest: map[string]string{"sha256": in.BundleSHA256}})
	inputs := []ResourceDescriptor{{Name: in.BundleName, Digest: map[string]string{"sha256": in.BundleSHA256}}}
	if in.SignatureSHA256 != "" {
		inputs = append(inputs, ResourceDescriptor{Name: in.BundleName + "#signature.sigstore.json", Digest: map[string]string{"sha256": in.SignatureSHA256}})
	}
	id := in.VerifierID
	if id == "" {
		id = DefaultVerifierID
	}
	if err := CheckVerifierID(id); err != nil {
		return nil, err
	}
	p := Predicate{
		Verifier:          Verifier{ID: id, Version: map[string]string{VerifierComponent: in.VerifierVersion}},
		ResourceURI:       purl,
		Policy:            in.Policy,
		InputAttestations: inputs,
	}
	if in.VerifierVersion == "" {
		p.Verifier.Version = nil
	}
	if !in.Time.IsZero() {
		p.TimeVerified = in.Time.UTC().Format(time.RFC3339Nano)
	}
	if in.Passed {
		p.VerificationResult = Passed
		p.VerifiedLevels = append([]string{}, in.Levels...)
	} else {
		// VSA v1: verifiedLevels is "FAILED" if policy verification failed.
		p.VerificationResult = Failed
		p.VerifiedLevels = []string{Failed}
	}
	return &Statement{Type: StatementType, Subject: subjects, PredicateType: PredicateType, Predicate: p}, nil
}

// CheckVerifierID requires an absolute URI, as VSA v1 does of verifier.id.
func CheckVerifierID(id string) error {
	u, err := url.Parse(id)
	if err != nil || u.Scheme == "" {
		return fmt.Errorf("verifier id %q: want an absolute URI", id)
	}
	return nil
}

// Encode is the statement's JSON, without white space, members in the
// order of the types above and digest maps sorted: the same statement
// gives the same bytes.
func (st *Statement) Encode() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(st); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Decode reads a signed payload as a verification summary statement.
// Unknown members are ignored, as the in-toto and VSA parsing rules
// require; a member given twice in one object, data after the object, or
// a known member of the wrong type is refused (ErrMalformed): readers
// that keep the first of two members and readers that keep the last
// would read different summaries.
func Decode(payload []byte) (*Statement, error) {
	if err := noDuplicateKeys(payload); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	var st Statement
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the statement", ErrMalformed)
	}
	return &st, nil
}

// noDuplicateKeys refuses a JSON document with a member name repeated in
// one object, at any depth.
func noDuplicateKeys(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key := k.(string)
				if seen[key] {
					return fmt.Errorf("member %q given twice in one object", key)
				}
				seen[key] = true
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for dec.More() {
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	return walk()
}
