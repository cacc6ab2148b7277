package verify

import (
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest/signed"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/vsa"
)

// ResultMediaType identifies the --json result object (SPEC.md
// "Verification result object").
const ResultMediaType = "application/vnd.dshaudit.verify-result.v1+json"

// ResultSchemaVersion is the version of the result object's schema.
const ResultSchemaVersion = 1

// PackageID is "name@version" of the subject, "" when unknown.
func (r *Report) PackageID() string {
	if r.Package == nil || r.Package.Name == "" {
		return ""
	}
	return r.Package.Name + "@" + r.Package.Version
}

// ProducedBy values.
const (
	// ProducedByAuditWorkflow: dshaudit's audit workflow produced the
	// evidence, as the runner policy required.
	ProducedByAuditWorkflow = "audit-workflow"
	// ProducedBySigner: no runner policy was given; the evidence is the
	// signer's word.
	ProducedBySigner = "signer"
)

// Report is the outcome of verifying one bundle.
type Report struct {
	MediaType     string `json:"media_type"`
	SchemaVersion int    `json:"schema_version"`
	Bundle        string `json:"bundle"`
	// BundleSHA256 is the digest of the .tar.zst file as read.
	BundleSHA256 string `json:"bundle_sha256"`
	Status       Status `json:"status"`
	// Now is the verifier's clock the dates were checked against (RFC
	// 3339, UTC): Options.Now, --now.
	Now string `json:"now"`
	// Signer names the key fingerprint or certificate identity, when the
	// signature verified.
	Signer string `json:"signer,omitempty"`
	// Certificate is what a verified keyless signer's certificate says
	// (identity, issuer, CI extensions, validity); SignedAt are the
	// verified timestamps of the signature. Absent for key signatures.
	Certificate *signed.Certificate `json:"certificate,omitempty"`
	SignedAt    []time.Time         `json:"signed_at,omitempty"`
	// ProducedBy says whose word the evidence is, once the signature
	// verified: ProducedByAuditWorkflow when a runner policy held (the
	// audit workflow AuditWorkflow, at a release tag on a GitHub-hosted
	// runner, produced and signed it, and the signer could not change
	// what ran), else ProducedBySigner (SPEC.md "Runner policy").
	ProducedBy    string `json:"produced_by,omitempty"`
	AuditWorkflow string `json:"audit_workflow,omitempty"`
	// The fields below are read from the manifest; they are trustworthy
	// only when Status is "verified".
	// Package is the manifest's subject, the same object as the run
	// result's package; null when no manifest could be read.
	Package *manifest.Subject `json:"package"`
	// Tarball is the digests of the tested tarball the bundle holds
	// (static/package.tgz), computed from its bytes; null when it holds
	// none, and then the package's digests in Package are the writer's
	// word (listed in Unverified). A summary names the package only by
	// these (vsa.Package.Tarball).
	Tarball     *vsa.Tarball `json:"tarball"`
	Standards   []string     `json:"standards,omitempty"`
	Fingerprint string       `json:"fingerprint,omitempty"`
	TestDate    string       `json:"test_date,omitempty"`
	Baseline    string       `json:"baseline,omitempty"`
	Dynamic     bool         `json:"dynamic"`
	Deviations  []string     `json:"deviations"`
	// DeviationRecords are the same deviations item by item, for the
	// claim check (SPEC.md "Claims"); --json carries them as text above.
	DeviationRecords []manifest.Deviation `json:"-"`
	// ClaimedVerdict is what the bundle says; DerivedVerdict is what the
	// verifier re-derived from the evidence.
	ClaimedVerdict   string `json:"claimed_verdict"`
	DerivedVerdict   string `json:"derived_verdict"`
	ConformingStatic *bool  `json:"conforming_static"`
	Unstable         bool   `json:"unstable"`
	// Usable says whether the result may back a certification; NotUsable
	// gives every reason it may not.
	Usable      bool             `json:"usable_for_certification"`
	NotUsable   []string         `json:"not_usable_because"`
	Repetitions []RepetitionView `json:"repetitions"`
	Findings    []Finding        `json:"findings"`
	// Unverified lists, by manifest field name, what the bundle states
	// that the verifier can neither derive nor cross-check: writer
	// metadata, shown as such and never as verified (SPEC.md "Manifest
	// fields and how each is checked"). Everything else in the manifest
	// was derived or cross-checked when Status is "verified".
	Unverified []UnverifiedField `json:"unverified"`
	// Evidence is what the verification read and derived, kept only with
	// Options.KeepEvidence and only when the archive could be read safely
	// and holds a manifest; never part of --json. Nothing in it is
	// trustworthy unless Status is "verified".
	Evidence *Evidence `json:"-"`
}

// Evidence is a verification's archive, decoded manifest and the
// re-derivation from the files whose digests matched, so that a caller
// showing them does not read and derive the bundle a second time.
// Manifest is nil when the manifest could not be decoded; the derivation
// is then absent (its zero value).
type Evidence struct {
	Archive  *bundle.Archive
	Manifest *manifest.Manifest
	Derived  assemble.Derived
}

// UnverifiedField is one manifest field shown as unverified metadata,
// with its raw value (escape it before printing for a person).
type UnverifiedField struct {
	Field string `json:"field"`
	Value string `json:"value"`
}

// RepetitionView is one repetition's claimed and derived stage outcomes.
type RepetitionView struct {
	Index   int         `json:"index"`
	Verdict string      `json:"verdict"`
	Stages  []StageView `json:"stages"`
}

// StageView is one stage's claimed and re-derived outcome.
type StageView struct {
	Stage          string `json:"stage"`
	ClaimedStatus  string `json:"claimed_status"`
	DerivedStatus  string `json:"derived_status"`
	ClaimedVerdict string `json:"claimed_verdict,omitempty"`
	DerivedVerdict string `json:"derived_verdict,omitempty"`
	FirstError     string `json:"first_error,omitempty"`
	ExitCode       *int   `json:"exit_code,omitempty"`
	DurationMS     int64  `json:"duration_ms"`
}

// SummaryVerdict is the verdict code a summary counts the bundle under:
// the re-derived verdict, or assemble.StaticOnlyVerdict for a bundle
// without the dynamic layer ("" when a dynamic bundle derived none).
func (r *Report) SummaryVerdict() string {
	if !r.Dynamic {
		return assemble.StaticOnlyVerdict
	}
	return r.DerivedVerdict
}

// OK reports whether the bundle verified with no finding at all.
func (r *Report) OK() bool { return r.Status == StatusVerified }

func (r *Report) add(f Finding) {
	if len(f.Message) > maxMessageBytes {
		f.Message = clip(f.Message, maxMessageBytes)
	}
	r.Findings = append(r.Findings, f)
}

// maxMessageBytes bounds one finding's message, whatever went into it
// (an error's text, a list of values): message bounds each argument, this
// the whole. SPEC.md "Verification result object".
const maxMessageBytes = 16 << 10

// addf adds a finding about a manifest field.
func (r *Report) addf(c Class, field, clause, format string, args ...any) {
	r.add(Finding{Class: c, File: "manifest.json", Field: field, Clause: clause, Message: message(format, args...)})
}

// maxArgBytes bounds how much of one string argument a finding's message
// repeats: the bundle's text (a manifest string of up to 8 MiB, a file of
// up to 16 MiB) is the writer's, and %q of 16 MiB of control bytes is
// 64 MiB. SPEC.md "Verification result object".
const maxArgBytes = 1024

// message formats a finding's message with each string or byte-slice
// argument longer than maxArgBytes cut to its first maxArgBytes (at a
// character boundary) and the number of bytes left out.
func message(format string, args ...any) string {
	for i, a := range args {
		switch v := a.(type) {
		case string:
			if len(v) > maxArgBytes {
				args[i] = clip(v, maxArgBytes)
			}
		case []byte:
			if len(v) > maxArgBytes {
				args[i] = clip(v, maxArgBytes)
			}
		}
	}
	return fmt.Sprintf(format, args...)
}

// clip is s, longer than max, cut to at most max bytes at a character
// boundary, with the number of bytes cut.
func clip[T string | []byte](s T, max int) string {
	cut := runeCut(s, max)
	return string(s[:cut]) + fmt.Sprintf("…(%d more bytes)", len(s)-cut)
}

// runeCut is the largest n <= max at which s, longer than max, can be cut
// without splitting a character.
func runeCut[T string | []byte](s T, max int) int {
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return max
}

func (r *Report) unverified(field, value string) {
	if len(value) > maxArgBytes {
		value = clip(value, maxArgBytes)
	}
	r.Unverified = append(r.Unverified, UnverifiedField{Field: field, Value: value})
}

// finish sets Status from the findings. Usable is computed, never read:
// a bundle that does not verify backs nothing.
func (r *Report) finish() {
	r.Status = StatusVerified
	for _, c := range classOrder {
		if slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Class == c }) {
			r.Status = statusOf(c)
			break
		}
	}
	if r.Status != StatusVerified && r.Usable {
		r.Usable = false
		r.NotUsable = append(r.NotUsable, "the bundle did not verify")
	}
}
