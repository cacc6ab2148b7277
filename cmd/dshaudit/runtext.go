package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/runner"
)

// printRunSummary writes run's summary for a person: per repetition a
// stage table, the T0 clause table, the fingerprint, the deviations, the
// overall verdict, whether the result is usable for certification, and
// the declaration. Every value from the package or the evidence is
// escaped and bounded, and tables fit st.Width (SPEC.md "Output safety").
func printRunSummary(out io.Writer, st termtext.Style, s *runner.Summary) error {
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
