package runner

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/internal/termtext"
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

// WriteText writes the human summary: per repetition a stage table, the
// T0 clause table, the fingerprint, the deviations, the overall verdict,
// whether the result is usable for certification, and the declaration.
// Every value from the package or the evidence is escaped and bounded,
// and tables fit st.Width (SPEC.md "Output safety").
func (s *Summary) WriteText(out io.Writer, st termtext.Style) error {
	f := st.Field
	var b strings.Builder
	fmt.Fprintf(&b, "Package:      %s\n", f(fmt.Sprintf("%s@%s (%s, %s)", s.Package.Name, s.Package.Version, s.Package.Source, s.Package.Spec)))
	fmt.Fprintf(&b, "Fingerprint:  %s\n", f(s.Fingerprint))
	fmt.Fprintf(&b, "Tested:       %s\n\n", f(fmt.Sprintf("%s (baseline DSH %s)", s.TestDate, s.Baseline)))
	for _, rep := range s.Repetitions {
		fmt.Fprintf(&b, "Repetition %d: %s\n", rep.Index, f(rep.Verdict))
		tb := termtext.NewTable("  ", "STAGE", "STATUS", "VERDICT", "DURATION", "EXIT", "FIRST ERROR")
		for _, sv := range rep.Stages {
			exit, dur := "-", "-"
			if sv.ExitCode != nil {
				exit = fmt.Sprint(*sv.ExitCode)
				if sv.TimedOut {
					exit += " (timed out)"
				}
				dur = (time.Duration(sv.DurationMS) * time.Millisecond).Round(100 * time.Millisecond).String()
			}
			tb.Row(sv.Stage, sv.Status, dash(sv.Verdict), dur, exit, dash(sv.FirstError))
		}
		tb.Write(&b, st.Width)
		b.WriteString("\n")
	}
	cs := "unresolvable"
	if s.ConformingStatic != nil {
		cs = fmt.Sprint(*s.ConformingStatic)
	}
	fmt.Fprintf(&b, "T0 static check: conforming_static=%s\n", cs)
	tb := termtext.NewTable("  ", "CLAUSE", "SEVERITY", "STATUS", "TITLE", "NOTE")
	for _, c := range s.Static.Clauses {
		note := c.Message
		if note == "" {
			note = c.Observed
		}
		tb.Row(c.Clause, string(c.Severity), string(c.Status), c.Title, note)
	}
	tb.Write(&b, st.Width)
	b.WriteString("\n")
	if len(s.Deviations) == 0 {
		b.WriteString("Condition deviations: none\n")
	} else {
		b.WriteString("Condition deviations (DSHIO/T 21 8.2):\n")
		for _, d := range s.Deviations {
			fmt.Fprintf(&b, "  - %s\n", f(fmt.Sprintf("%s: %s → %s (%s)", d.What, d.Standard, d.ChangedTo, d.Why)))
		}
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "Overall verdict: %s\n", f(s.Verdict))
	if s.Usable {
		b.WriteString("Usable for certification: yes\n")
	} else {
		b.WriteString("Usable for certification: no\n")
		for _, why := range s.NotUsableBecause {
			fmt.Fprintf(&b, "  - %s\n", f(why))
		}
	}
	if s.Bundle != "" {
		fmt.Fprintf(&b, "Evidence bundle: %s (%s, %d bytes)\n", f(s.Bundle), s.BundleSHA256, s.BundleSize)
	}
	if s.Declaration != "" {
		b.WriteString("\nDeclaration (DSHIO/T 10 8.1), for the plugin's README:\n\n")
		for _, l := range strings.Split(strings.TrimRight(s.Declaration, "\n"), "\n") {
			fmt.Fprintf(&b, "    %s\n", termtext.Escape(l))
		}
	} else {
		b.WriteString("\nNo declaration of conformity: T0 is unresolvable or critically non-conforming (DSHIO/T 10 8.1).\n")
	}
	_, err := io.WriteString(out, b.String())
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
