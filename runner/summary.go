package runner

import (
	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/rules/static"
)

// SummaryMediaType identifies the `dshaudit run --json` object (SPEC.md
// "Result objects").
const SummaryMediaType = "application/vnd.dshaudit.run-result.v1+json"

// SummarySchemaVersion is the version of the Summary schema.
const SummarySchemaVersion = 1

// Summary is what `dshaudit run` reports on stdout, as text or JSON. It
// is read from the manifest that was signed, so it says nothing the
// bundle does not.
type Summary struct {
	MediaType     string `json:"media_type"`
	SchemaVersion int    `json:"schema_version"`
	// Bundle, BundleSHA256 and BundleSize describe the file written.
	Bundle       string           `json:"bundle"`
	BundleSHA256 string           `json:"bundle_sha256"`
	BundleSize   int64            `json:"bundle_size"`
	Package      manifest.Subject `json:"package"`
	Fingerprint  string           `json:"fingerprint"`
	Baseline     string           `json:"baseline"`
	TestDate     string           `json:"test_date"`
	// Verdict is the overall verdict: a DSHIO/T 20 11.1 code or
	// "unstable".
	Verdict          string `json:"verdict"`
	Unstable         bool   `json:"unstable"`
	ConformingStatic *bool  `json:"conforming_static"`
	// Usable says whether the result may back a certification;
	// NotUsableBecause gives every reason it may not.
	Usable           bool                 `json:"usable_for_certification"`
	NotUsableBecause []string             `json:"not_usable_because"`
	Deviations       []manifest.Deviation `json:"deviations"`
	Repetitions      []RepetitionView     `json:"repetitions"`
	Static           static.Report        `json:"static"`
	InstalledSize    int64                `json:"installed_size"`
	Warnings         []string             `json:"warnings"`
	// Declaration is the DSHIO/T 10 8.1 text with the bundle digest, ""
	// when the result supports none.
	Declaration string `json:"declaration"`
}

// RepetitionView is one repetition's stage table.
type RepetitionView struct {
	Index   int         `json:"index"`
	Verdict string      `json:"verdict"`
	Stages  []StageView `json:"stages"`
}

// StageView is one row of a stage table.
type StageView struct {
	Stage      string `json:"stage"`
	Status     string `json:"status"`
	Verdict    string `json:"verdict,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	ExitCode   *int   `json:"exit_code"`
	TimedOut   bool   `json:"timed_out"`
	FirstError string `json:"first_error,omitempty"`
}

// Summarize builds the Summary of a written result.
func Summarize(res *Result, w *Written) *Summary {
	m := res.Manifest
	d, _ := assemble.Derive(m, res.Files, rules.DefaultLimits())
	s := &Summary{
		MediaType: SummaryMediaType, SchemaVersion: SummarySchemaVersion,
		Package: m.Subject, Fingerprint: m.Fingerprint, Baseline: m.Baseline, TestDate: m.TestDate,
		Verdict: m.Claimed.Verdict, Unstable: m.Claimed.Unstable, ConformingStatic: m.Claimed.ConformingStatic,
		Usable: m.Claimed.UsableForCertification, NotUsableBecause: append([]string{}, d.Why...),
		Deviations: append([]manifest.Deviation{}, m.Deviations...), Static: assemble.StaticReportOf(m.Static.Report),
		InstalledSize: m.Static.InstalledSize, Warnings: append([]string{}, res.Warnings...),
		Repetitions: []RepetitionView{},
	}
	if w != nil {
		s.Bundle, s.BundleSHA256, s.BundleSize, s.Declaration = w.Path, w.SHA256, w.Size, w.Declaration
	}
	for _, rep := range m.Repetitions {
		rv := RepetitionView{Index: rep.Index, Verdict: rep.Verdict}
		for _, st := range rep.Stages {
			rv.Stages = append(rv.Stages, StageView{Stage: st.Stage, Status: st.Status, Verdict: st.Verdict,
				DurationMS: st.DurationMS, ExitCode: st.ExitCode, TimedOut: st.TimedOut, FirstError: st.FirstError})
		}
		s.Repetitions = append(s.Repetitions, rv)
	}
	return s
}
