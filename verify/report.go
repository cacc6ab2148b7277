package verify

import "github.com/dshaudit/dshaudit/bundle"

// ResultMediaType identifies the --json result object (SPEC.md
// "Verification result object").
const ResultMediaType = "application/vnd.dshaudit.verify-result.v1+json"

// ResultSchemaVersion is the version of the result object's schema.
const ResultSchemaVersion = 1

// Report is the outcome of verifying one bundle.
type Report struct {
	MediaType     string `json:"media_type"`
	SchemaVersion int    `json:"schema_version"`
	Bundle        string `json:"bundle"`
	// BundleSHA256 is the digest of the .tar.zst file as read.
	BundleSHA256 string `json:"bundle_sha256"`
	Status       Status `json:"status"`
	// Signer names the key fingerprint or certificate identity, when the
	// signature verified.
	Signer string `json:"signer,omitempty"`
	// The fields below are read from the manifest; they are trustworthy
	// only when Status is "verified".
	Package     string   `json:"package,omitempty"`
	Standards   []string `json:"standards,omitempty"`
	Fingerprint string   `json:"fingerprint,omitempty"`
	TestDate    string   `json:"test_date,omitempty"`
	Baseline    string   `json:"baseline,omitempty"`
	Dynamic     bool     `json:"dynamic"`
	Deviations  []string `json:"deviations"`
	// DeviationRecords are the same deviations item by item, for the
	// claim check (SPEC.md "Claims"); --json carries them as text above.
	DeviationRecords []bundle.Deviation `json:"-"`
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

// OK reports whether the bundle verified with no finding at all.
func (r *Report) OK() bool { return r.Status == StatusVerified }

func (r *Report) add(f Finding) { r.Findings = append(r.Findings, f) }

// finish sets Status from the findings.
func (r *Report) finish() {
	r.Status = StatusVerified
	for _, c := range classOrder {
		for _, f := range r.Findings {
			if f.Class == c {
				r.Status = statusOf(c)
				return
			}
		}
	}
}
