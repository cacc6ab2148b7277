package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/verify"
)

// mdText makes a value from a bundle safe as Markdown inline text, also
// inside a table cell: control characters, escape sequences and bidi
// controls are escaped as on the terminal (termtext.Field, so the value
// stays on its line), then every ASCII punctuation character is
// backslash-escaped (CommonMark 2.4), so no bundle text becomes a
// heading, a link, emphasis, HTML or a cell boundary.
func mdText(st termtext.Style, v string) string {
	v = st.Field(v)
	var b strings.Builder
	for _, r := range v {
		if r < 0x80 && strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writeStepSummary appends a Markdown summary of one verification to
// path (GitHub Actions' $GITHUB_STEP_SUMMARY): result, verdicts, stages,
// deviations, unverified metadata, findings and, when one was written,
// the verification summary's result, under SPEC.md "Presenting a
// result". Every value from the bundle goes through mdText.
func writeStepSummary(path string, st termtext.Style, r *verify.Report, summaryResult string, levels []string) error {
	var b strings.Builder
	pkg := r.PackageID()
	if pkg == "" {
		pkg = "(no package)"
	}
	// SPEC.md "Presenting a result": a bundle that did not verify is said
	// to be so first, and nothing it claims reads as verified.
	ok := r.OK()
	recorded := "recorded"
	if ok {
		fmt.Fprintf(&b, "### dshaudit: verified: %s\n\n", mdText(st, pkg))
	} else {
		recorded = "unverified"
		fmt.Fprintf(&b, "### dshaudit: NOT VERIFIED (%s): %s\n\n", mdText(st, r.Status.Text()), mdText(st, pkg))
	}
	b.WriteString("| | |\n|---|---|\n")
	row := func(k, v string) { fmt.Fprintf(&b, "| %s | %s |\n", k, v) }
	row("Result", mdText(st, r.Status.Text()))
	row("Bundle", mdText(st, filepath.Base(r.Bundle))+" ("+mdText(st, r.BundleSHA256)+")")
	if r.Signer != "" {
		row("Signer", mdText(st, r.Signer))
	}
	if r.ConformingStatic != nil {
		v := fmt.Sprintf("conforming\\_static = %v, re\\-derived", *r.ConformingStatic)
		if !ok {
			v += ", backs nothing"
		}
		row("T0 static check", v)
	}
	if r.Dynamic {
		if ok {
			row("Verdict", mdText(st, orNone(r.DerivedVerdict))+", re\\-derived from the evidence")
		} else {
			row("Verdict", "no verified verdict (re\\-derived "+mdText(st, orNone(r.DerivedVerdict))+" backs nothing)")
		}
	}
	usable := "yes"
	if !r.Usable {
		usable = "no (" + mdText(st, strings.Join(r.NotUsable, "; ")) + ")"
	}
	row("Usable for certification", usable)
	if summaryResult != "" {
		row("Verification summary", fmt.Sprintf("%s, levels %s", summaryResult, mdText(st, strings.Join(levels, ", "))))
	}
	for _, rp := range r.Repetitions {
		fmt.Fprintf(&b, "\n#### Repetition %d\n\n", rp.Index)
		fmt.Fprintf(&b, "| Stage | Re\\-derived status | Re\\-derived verdict | Exit (%s) | Duration (%s) | Re\\-derived first error |\n|---|---|---|---|---|---|\n", recorded, recorded)
		for _, sv := range rp.Stages {
			exit, dur := "\\-", "\\-"
			if sv.ExitCode != nil {
				exit, dur = fmt.Sprint(*sv.ExitCode), fmt.Sprintf("%d ms", sv.DurationMS)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdText(st, sv.Stage), mdText(st, dash(sv.DerivedStatus)), mdText(st, dash(sv.DerivedVerdict)), exit, dur, mdText(st, dash(sv.FirstError)))
		}
	}
	if len(r.Deviations) > 0 {
		fmt.Fprintf(&b, "\n#### Deviations (%s)\n\n", recorded)
		for _, d := range r.Deviations {
			fmt.Fprintf(&b, "- %s\n", mdText(st, d))
		}
	}
	if len(r.Unverified) > 0 {
		fmt.Fprintf(&b, "\n#### Unverified metadata (the writer's word, not checked)\n\n")
		for _, u := range r.Unverified {
			fmt.Fprintf(&b, "- %s: %s\n", mdText(st, u.Field), mdText(st, u.Value))
		}
	}
	if len(r.Findings) > 0 {
		fmt.Fprintf(&b, "\n#### Findings (%d)\n\n", len(r.Findings))
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "- %s\n", mdText(st, f.String()))
		}
	}
	b.WriteString("\n")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
