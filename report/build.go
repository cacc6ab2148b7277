package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/claim"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/verify"
)

// Input is one bundle to render and what to render beside it.
type Input struct {
	// Name is the bundle's path as the user gave it.
	Name string
	// Raw is the bundle file's bytes.
	Raw []byte
	// Verify is the trust policy and reader limits, as for verify.
	Verify verify.Options
	// Claim, when set, is checked against the verification result.
	Claim *ClaimInput
	// Replay, when set, is the --json output of `dshaudit replay`.
	Replay []byte
	// Layout bounds how evidence is shown.
	Layout Layout
}

// ClaimInput is a README or other text holding a declaration.
type ClaimInput struct {
	Name string
	Text []byte
	// Package is the name@version the claim is for, or "".
	Package string
}

// ErrReplay marks a --replay file that is not a replay result.
var ErrReplay = errors.New("not a dshaudit replay result")

// Build verifies in.Raw and builds its page. The error is non-nil only
// when the input is unreadable (verify.ErrUnreadable), the replay file is
// not a replay result (ErrReplay), or ctx ends; a bundle that fails
// verification gives a page that says so.
func Build(ctx context.Context, in Input) (*Page, error) {
	opts := in.Verify
	// The page shows what verify read and derived, of one bundle, whose
	// decoding can take the core the rest leaves idle.
	opts.KeepEvidence = true
	opts.DecodeAhead = true
	rep, err := verify.Verify(ctx, in.Name, bytes.NewReader(in.Raw), opts)
	if err != nil {
		return nil, err
	}
	var rv *ReplayView
	if in.Replay != nil {
		if rv, err = replayView(in.Replay, rep.BundleSHA256); err != nil {
			return nil, err
		}
	}
	p := header(rep)
	p.Replay = rv
	if in.Claim != nil {
		r := claim.Check(string(in.Claim.Text), claim.FactsFromReport(rep), in.Claim.Package)
		p.Claim = &ClaimView{Name: in.Claim.Name, Result: r, Lines: claimLines(string(in.Claim.Text), r)}
	}
	switch ev := rep.Evidence; {
	case ev == nil:
		p.Notes = append(p.Notes, "the archive could not be read safely: nothing from inside it is shown")
	case ev.Manifest == nil:
		p.Notes = append(p.Notes, "the manifest could not be decoded: nothing from inside the bundle is shown")
	default:
		body(p, rep, ev.Manifest, ev.Archive, ev.Derived, in.Layout.withDefaults())
	}
	return p, nil
}

// header fills what comes from the verification result alone.
func header(rep *verify.Report) *Page {
	p := &Page{
		Bundle:        rep.Bundle,
		BundleSHA256:  rep.BundleSHA256,
		Verified:      rep.OK(),
		Status:        string(rep.Status),
		Signer:        rep.Signer,
		Certificate:   rep.Certificate,
		SignedAt:      rep.SignedAt,
		AuditWorkflow: rep.AuditWorkflow,
		Findings:      rep.Findings,
	}
	p.Title = "dshaudit report: " + rep.PackageID()
	if rep.PackageID() == "" {
		p.Title = "dshaudit report: " + rep.Bundle
	}
	if !rep.OK() {
		p.Title += " (not verified)"
	}
	v := Verdict{Code: rep.DerivedVerdict, Dynamic: rep.Dynamic, Unstable: rep.Unstable, Usable: rep.Usable && rep.OK(), NotUsable: rep.NotUsable}
	if !rep.Dynamic && rep.ConformingStatic != nil {
		v.Code = "static only"
	}
	v.Shown = rep.OK() && v.Code != ""
	if !rep.OK() {
		v.NotUsable = append(append([]string{}, v.NotUsable...), fmt.Sprintf("the bundle did not verify (%s): it backs nothing", rep.Status))
	}
	v.ConformingStatic = boolText(rep.ConformingStatic)
	p.Verdict = v
	p.Headline = headline(p)
	return p
}

// headline says in one line whether the evidence verified and which
// verdict it backs; the kind decides the look (DESIGN.md "Report pages").
func headline(p *Page) Headline {
	v := p.Verdict
	if !p.Verified {
		return Headline{Kind: KindNotVerified, Icon: "⊘", Evidence: "Evidence not verified: " + p.Status,
			Detail: fmt.Sprintf("%d finding(s), listed below. Nothing this bundle says is backed; no verdict on this page is a verified one.", len(p.Findings))}
	}
	h := Headline{Evidence: "Evidence verified", Verdict: v.Code}
	reasons := strings.Join(v.NotUsable, "; ")
	switch {
	case v.Code == "":
		h.Kind, h.Icon, h.Verdict, h.Detail = KindNotVerified, "⊘", "", "no verdict can be re-derived"
	case v.Code == CategoryStaticOnly:
		h.Kind, h.Icon, h.Detail = KindStatic, "◇", "only the static layer (T0) was run; T0 conforming: "+v.ConformingStatic
	case v.Code == string(rules.Unstable):
		h.Kind, h.Icon, h.Detail = KindUnstable, "↯", "the repetitions disagree (DSHIO/T 20 11.3); not usable for certification"
	case v.Code != string(rules.Pass):
		h.Kind, h.Icon, h.Detail = KindFailed, "✘", "not usable for certification"
		var rest []string
		for _, r := range v.NotUsable {
			if !strings.HasPrefix(r, "overall verdict is ") {
				rest = append(rest, r)
			}
		}
		if len(rest) > 0 {
			h.Detail += ": " + strings.Join(rest, "; ")
		}
	case v.Usable:
		h.Kind, h.Icon, h.Detail = KindPass, "✔", "usable for certification"
	default:
		h.Kind, h.Icon, h.Detail = KindNotUsable, "⚠", "not usable for certification: "+reasons
	}
	return h
}

// body fills what needs the archive: recorded facts, the re-derived T0
// table and stage outcomes, and the evidence files whose digests match.
func body(p *Page, rep *verify.Report, m *manifest.Manifest, arc *bundle.Archive, d assemble.Derived, lay Layout) {
	untrusted := map[string]bool{}
	for _, f := range bundle.CompareFiles(m, arc) {
		untrusted[f.Path] = true
	}
	prov := Recorded
	if !rep.OK() {
		prov = Unverified
	}
	p.Facts = facts(m, prov)
	// The tested tarball's digests are derived from the bytes the bundle
	// holds (SPEC.md "The tested tarball"); without it the subject's
	// integrity stays a recorded value (the result's unverified list
	// names it).
	if t := rep.Tarball; t != nil {
		tp := Derived
		if !rep.OK() {
			tp = Unverified
		}
		p.Facts = append(p.Facts, Fact{Name: "Tested tarball", Field: "static.evidence.tarball",
			Value: fmt.Sprintf("sha256:%s %s (%d bytes, held in the bundle)", t.SHA256(), t.Integrity(), t.Size()), Code: true, Prov: tp})
	}
	p.Deviations = m.Deviations
	p.Conditions = append(append([]manifest.Condition{}, m.Conditions.Fixed...), m.Conditions.Variable...)
	if rep.OK() {
		p.Declaration = assemble.PrintableDeclaration(m.Declaration, rep.BundleSHA256)
	}
	staticOK := !anyIn(m.Static.Evidence, untrusted)
	if staticOK {
		p.Static = StaticView{Available: true, ConformingStatic: boolText(d.Static.ConformingStatic), Unresolvable: d.Static.Unresolvable,
			Reason: d.Static.Reason, Clauses: d.Static.Clauses, Warnings: d.Static.Warnings}
	}
	sizes := map[string]int64{}
	for _, f := range m.Files {
		sizes[f.Path] = f.Size
	}
	ev := evidenceReader{files: arc.Files, untrusted: untrusted, sizes: sizes, lay: lay}
	for i, rp := range m.Repetitions {
		var derived rules.SequenceResult
		if i < len(d.Repetitions) {
			derived = d.Repetitions[i]
		}
		p.Repetitions = append(p.Repetitions, repetition(i, rp, derived, staticOK, ev))
	}
	for _, r := range p.Repetitions {
		for _, st := range r.Stages {
			if st.FirstError != "" {
				p.Verdict.FirstErrors = append(p.Verdict.FirstErrors, FirstErrorLink{Repetition: r.Index, Stage: st.Stage, Text: st.FirstError, Anchor: st.FirstErrorAnchor})
			}
		}
	}
	p.OtherEvidence = otherEvidence(m, ev)
	p.Unverified = rep.Unverified
}

// repetition builds one repetition's timeline. A stage's re-derived
// outcome is shown only when its evidence, and that of every stage before
// it, matched the manifest (as verify compares them).
func repetition(i int, rp manifest.Repetition, derived rules.SequenceResult, trustedSoFar bool, ev evidenceReader) Repetition {
	out := Repetition{Index: rp.Index}
	byStage := map[string]rules.StageResult{}
	for _, s := range derived.Stages {
		byStage[string(s.Stage)] = s
	}
	for j, st := range rp.Stages {
		id := fmt.Sprintf("r%d-s%d", i+1, j+1)
		s := Stage{ID: id, Stage: st.Stage, Executed: st.ExitCode != nil, DurationMS: st.DurationMS,
			Duration: duration(st.DurationMS), Network: st.Network, TimedOut: st.TimedOut, Argv: strings.Join(st.Argv, " ")}
		if st.ExitCode != nil {
			s.ExitCode = fmt.Sprint(*st.ExitCode)
		}
		if st.Liveness != nil {
			s.Liveness = fmt.Sprintf("alive %s of a %s window, alive at end: %v", duration(st.Liveness.AliveMS), duration(st.Liveness.WindowMS), st.Liveness.AliveAtEnd)
			if st.Liveness.AliveAtEnd && st.ExitCode != nil {
				s.ExitNote = "the observer stopped it at the end of the window; the exit code is not read"
			}
		}
		trustedSoFar = trustedSoFar && !anyIn(st.Evidence, ev.untrusted)
		if ds, ok := byStage[st.Stage]; ok && trustedSoFar {
			s.Status, s.Verdict, s.FirstError, s.Reasons = string(ds.Status), string(ds.Verdict), ds.FirstError, ds.Reasons
		}
		s.Evidence, s.FirstErrorAnchor = ev.stage(id, st, s.FirstError)
		out.Stages = append(out.Stages, s)
	}
	if trustedSoFar {
		out.Verdict = string(derived.Verdict)
	}
	return out
}

func facts(m *manifest.Manifest, prov Provenance) []Fact {
	f := []Fact{
		{Name: "Package", Field: "subject", Value: m.Subject.Name + "@" + m.Subject.Version, Code: true},
		{Name: "Package spec", Field: "subject.spec", Value: m.Subject.Spec, Code: true},
		{Name: "Source", Field: "subject.source", Value: m.Subject.Source},
		{Name: "Integrity", Field: "subject.integrity", Value: m.Subject.Integrity, Code: true},
		{Name: "Image", Field: "image.name", Value: m.Image.Name, Code: true},
		{Name: "Image digest", Field: "image.digest", Value: m.Image.Digest, Code: true},
		{Name: "Fingerprint", Field: "fingerprint", Value: m.Fingerprint, Code: true},
		{Name: "Baseline", Field: "baseline", Value: m.Baseline},
		{Name: "Standards", Field: "standards", Value: strings.Join(m.Standards, ", ")},
		{Name: "Test date", Field: "test_date", Value: m.TestDate},
		{Name: "Started", Field: "started_at", Value: m.StartedAt},
		{Name: "Finished", Field: "finished_at", Value: m.FinishedAt},
		{Name: "Written by", Field: "tool", Value: m.Tool.Name + " " + m.Tool.Version},
		{Name: "T4 observation window", Field: "settings.observation_window_ms", Value: duration(m.Settings.ObservationWindowMS)},
		{Name: "Repetitions", Field: "settings.repeat", Value: fmt.Sprint(m.Settings.Repeat)},
	}
	out := f[:0]
	for _, x := range f {
		if strings.Trim(x.Value, "@ ") == "" {
			continue
		}
		x.Prov = prov
		out = append(out, x)
	}
	return out
}

// claimLines returns the claim text's lines that a declaration or a
// finding names, in order.
func claimLines(text string, r claim.Result) []NumberedLine {
	want := map[int]bool{}
	for _, d := range r.Declarations {
		want[d.Line] = true
	}
	for _, f := range r.Findings {
		want[f.Line] = true
	}
	var out []NumberedLine
	for i, l := range rules.SplitLines([]byte(text)) {
		if want[i+1] {
			out = append(out, NumberedLine{N: i + 1, Text: l})
		}
	}
	return out
}

func anyIn(ev map[string]string, set map[string]bool) bool {
	for _, p := range ev {
		if set[p] {
			return true
		}
	}
	return false
}

func boolText(b *bool) string {
	if b == nil {
		return "unresolvable"
	}
	if *b {
		return "yes"
	}
	return "no"
}

// duration prints milliseconds the way people read them: 850 ms, 3.0 s.
func duration(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}
