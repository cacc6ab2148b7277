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
// deviations, findings and, when one was written, the verification
// summary's result. Every value from the bundle goes through mdText.
func writeStepSummary(path string, st termtext.Style, r *verify.Report, summaryResult string, levels []string) error {
	var b strings.Builder
	pkg := r.PackageID()
	if pkg == "" {
		pkg = "(no package)"
	}
	fmt.Fprintf(&b, "### dshaudit: %s: %s\n\n", mdText(st, pkg), mdText(st, r.Status.Text()))
	b.WriteString("| | |\n|---|---|\n")
	row := func(k, v string) { fmt.Fprintf(&b, "| %s | %s |\n", k, v) }
	row("Bundle", mdText(st, filepath.Base(r.Bundle))+" ("+mdText(st, r.BundleSHA256)+")")
	if r.Signer != "" {
		row("Signer", mdText(st, r.Signer))
	}
	if r.ConformingStatic != nil {
		row("T0 static check", fmt.Sprintf("conforming\\_static = %v", *r.ConformingStatic))
	}
	if r.Dynamic {
		row("Verdict", fmt.Sprintf("claimed %s, re\\-derived %s", mdText(st, orNone(r.ClaimedVerdict)), mdText(st, orNone(r.DerivedVerdict))))
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
		fmt.Fprintf(&b, "\n#### Repetition %d: %s\n\n", rp.Index, mdText(st, rp.Verdict))
		b.WriteString("| Stage | Status | Verdict | Exit | Duration | First error |\n|---|---|---|---|---|---|\n")
		for _, sv := range rp.Stages {
			exit, dur := "\\-", "\\-"
			if sv.ExitCode != nil {
				exit, dur = fmt.Sprint(*sv.ExitCode), fmt.Sprintf("%d ms", sv.DurationMS)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdText(st, sv.Stage), mdText(st, sv.DerivedStatus), mdText(st, dash(sv.DerivedVerdict)), exit, dur, mdText(st, dash(sv.FirstError)))
		}
	}
	if len(r.Deviations) > 0 {
		b.WriteString("\n#### Deviations\n\n")
		for _, d := range r.Deviations {
			fmt.Fprintf(&b, "- %s\n", mdText(st, d))
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
