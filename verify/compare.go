package verify

import (
	"fmt"
	"slices"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// compare sets the derived values on rep and reports every claimed value
// that differs from its re-derivation (SPEC.md "Verification", step 4).
// Results that depend on an untrusted file are not compared: the file
// finding already says why they cannot be re-derived.
func compare(rep *Report, m *manifest.Manifest, d assemble.Derived, untrusted map[string]bool) {
	rep.DerivedVerdict = string(d.Overall)
	rep.ConformingStatic = d.Static.ConformingStatic
	rep.Unstable = d.Unstable
	rep.Usable = d.Usable
	rep.NotUsable = append(rep.NotUsable, d.Why...)
	mismatch := func(field, clause, format string, args ...any) {
		rep.add(Finding{Class: ClassVerdictMismatch, File: manifest.Path, Field: field, Clause: clause, Message: message(format, args...)})
	}

	staticTrusted := !anyUntrusted(m.Static.Evidence, untrusted)
	if staticTrusted {
		compareStatic(m, d, mismatch)
	}

	allTrusted := staticTrusted
	for i, rp := range m.Repetitions {
		view := RepetitionView{Index: i + 1, Verdict: rp.Verdict}
		// A repetition whose record is incomplete derives nothing.
		repTrusted := !untrusted[repField(i+1, "")]
		var derived rules.SequenceResult
		if i < len(d.Repetitions) {
			derived = d.Repetitions[i]
		}
		claimedByStage := map[string]manifest.Stage{}
		for _, st := range rp.Stages {
			claimedByStage[st.Stage] = st
		}
		for _, ds := range derived.Stages {
			st, ok := claimedByStage[string(ds.Stage)]
			field := repField(i+1, string(ds.Stage))
			if !ok {
				continue // checkSequence names the missing stage
			}
			sv := StageView{Stage: st.Stage, ClaimedStatus: st.Status, ClaimedVerdict: st.Verdict, FirstError: st.FirstError, ExitCode: st.ExitCode, DurationMS: st.DurationMS,
				DerivedStatus: string(ds.Status), DerivedVerdict: string(ds.Verdict)}
			// A stage after an untrusted one depends on it through
			// propagation: it is not compared either.
			trusted := repTrusted && !anyUntrusted(st.Evidence, untrusted)
			if !trusted || !staticTrusted {
				// Nothing is derived from untrusted evidence.
				sv.DerivedStatus, sv.DerivedVerdict = "", ""
			}
			if trusted && staticTrusted {
				if st.Status != string(ds.Status) {
					mismatch(field+".status", "DSHIO/T 20 11.2", "claimed %q, re-derived %q%s", st.Status, ds.Status, because(ds.Reasons))
				}
				if st.Verdict != string(ds.Verdict) {
					mismatch(field+".verdict", "DSHIO/T 20 11.1", "claimed %q, re-derived %q%s", st.Verdict, ds.Verdict, because(ds.Reasons))
				}
				if st.FirstError != ds.FirstError {
					mismatch(field+".first_error", "DSHIO/T 20 6.6", "claimed %q, re-derived %q", st.FirstError, ds.FirstError)
				}
			}
			repTrusted = repTrusted && trusted
			view.Stages = append(view.Stages, sv)
		}
		if repTrusted && staticTrusted && rp.Verdict != string(derived.Verdict) {
			mismatch(repField(i+1, "", "verdict"), "DSHIO/T 20 11.1", "claimed %q, re-derived %q", rp.Verdict, derived.Verdict)
		}
		allTrusted = allTrusted && repTrusted
		rep.Repetitions = append(rep.Repetitions, view)
	}
	if !allTrusted {
		rep.DerivedVerdict = ""
		rep.Usable = false
		rep.NotUsable = append(rep.NotUsable, "evidence is not intact: verdicts that depend on it cannot be re-derived")
		return
	}
	c := m.Claimed
	if c.Verdict != string(d.Overall) {
		mismatch("claimed.verdict", "DSHIO/T 20 11", "claimed %q, re-derived %q", c.Verdict, d.Overall)
	}
	if c.Unstable != d.Unstable {
		mismatch("claimed.unstable", "DSHIO/T 20 11.3", "claimed %v, re-derived %v", c.Unstable, d.Unstable)
	}
	if c.Deviated != d.Deviated {
		mismatch("claimed.deviated", "DSHIO/T 21 8.2", "claimed %v, but %d deviation(s) are recorded", c.Deviated, len(m.Deviations))
	}
	if c.UsableForCertification != d.Usable {
		mismatch("claimed.usable_for_certification", "DSHIO/T 21 8.2", "claimed %v, re-derived %v%s", c.UsableForCertification, d.Usable, because(d.Why))
	}
	if m.Declaration != assemble.Declaration(m) {
		mismatch("declaration", "DSHIO/T 10 8.1", "the declaration text is not the one the result supports")
	}
}

// compareStatic compares the whole claimed T0 report with the re-derived
// one (SPEC.md "Verdict and report (DSHIO/T 20 5.5)"): every status,
// severity, observed value, title and message, and every free text —
// the reason, the warnings, each clause's questions, material and
// warnings. T0 is a pure function of the evidence, so none of it is the
// writer's to word (an unchecked warning could say "certified", DSHIO/T
// 10 8.2).
func compareStatic(m *manifest.Manifest, d assemble.Derived, mismatch func(field, clause, format string, args ...any)) {
	claimed := assemble.StaticReportOf(m.Static.Report)
	if !sameBoolPtr(claimed.ConformingStatic, d.Static.ConformingStatic) {
		mismatch("static.report.conforming_static", "DSHIO/T 20 5.5", "claimed %s, re-derived %s", boolPtr(claimed.ConformingStatic), boolPtr(d.Static.ConformingStatic))
	}
	if !sameBoolPtr(m.Claimed.ConformingStatic, d.Static.ConformingStatic) {
		mismatch("claimed.conforming_static", "DSHIO/T 20 5.5", "claimed %s, re-derived %s", boolPtr(m.Claimed.ConformingStatic), boolPtr(d.Static.ConformingStatic))
	}
	if claimed.Unresolvable != d.Static.Unresolvable {
		mismatch("static.report.unresolvable", "DSHIO/T 20 5.5", "claimed %v, re-derived %v", claimed.Unresolvable, d.Static.Unresolvable)
	}
	if claimed.Reason != d.Static.Reason {
		mismatch("static.report.reason", "DSHIO/T 20 5.5", "claimed %q, re-derived %q", claimed.Reason, d.Static.Reason)
	}
	if !slices.Equal(claimed.Warnings, d.Static.Warnings) {
		mismatch("static.report.warnings", "DSHIO/T 20 5.6", "the claimed warnings list is not the re-derived one: %s", textsDiff(claimed.Warnings, d.Static.Warnings))
	}
	byClause := map[string]int{}
	for i, c := range claimed.Clauses {
		if j, dup := byClause[c.Clause]; dup {
			mismatch(fmt.Sprintf("static.report.clauses[%d]", i), "DSHIO/T 20 5.5", "clause %q has a second result (first at static.report.clauses[%d]); each clause has exactly one", c.Clause, j)
			continue
		}
		byClause[c.Clause] = i
	}
	seen := map[string]bool{}
	for _, dc := range d.Static.Clauses {
		seen[dc.Clause] = true
		i, ok := byClause[dc.Clause]
		if !ok {
			mismatch("static.report.clauses", "DSHIO/T 10 Annex A", "clause %s is missing; re-derived %q", dc.Clause, dc.Status)
			continue
		}
		cc := claimed.Clauses[i]
		if cc.Status != dc.Status {
			mismatch(fmt.Sprintf("static.report.clauses[%d].status", i), "DSHIO/T 10 "+dc.Clause, "clause %s claimed %q, re-derived %q", dc.Clause, cc.Status, dc.Status)
		}
		if cc.Severity != dc.Severity {
			mismatch(fmt.Sprintf("static.report.clauses[%d].severity", i), "DSHIO/T 10 "+dc.Clause, "clause %s claimed severity %q, re-derived %q", dc.Clause, cc.Severity, dc.Severity)
		}
		if cc.Observed != dc.Observed {
			mismatch(fmt.Sprintf("static.report.clauses[%d].observed", i), "DSHIO/T 10 "+dc.Clause, "clause %s claimed observed value %q, re-derived %q", dc.Clause, cc.Observed, dc.Observed)
		}
		if cc.Title != dc.Title || cc.Message != dc.Message {
			mismatch(fmt.Sprintf("static.report.clauses[%d].message", i), "DSHIO/T 10 "+dc.Clause, "clause %s: the claimed title or message is not the re-derived one (%q)", dc.Clause, dc.Message)
		}
		for _, t := range []struct {
			name             string
			claimed, derived []string
		}{{"questions", cc.Questions, dc.Questions}, {"material", cc.Material, dc.Material}, {"warnings", cc.Warnings, dc.Warnings}} {
			if !slices.Equal(t.claimed, t.derived) {
				mismatch(fmt.Sprintf("static.report.clauses[%d].%s", i, t.name), "DSHIO/T 10 "+dc.Clause, "clause %s: the claimed %s list is not the re-derived one: %s", dc.Clause, t.name, textsDiff(t.claimed, t.derived))
			}
		}
	}
	for _, cc := range claimed.Clauses {
		if !seen[cc.Clause] {
			mismatch("static.report.clauses", "DSHIO/T 10 Annex A", "clause %q is claimed but not part of the derivation", cc.Clause)
		}
	}
}

// textsDiff names the first item where two lists of texts differ.
func textsDiff(claimed, derived []string) string {
	for i := range max(len(claimed), len(derived)) {
		switch {
		case i >= len(claimed):
			return fmt.Sprintf("item %d %q is missing", i+1, derived[i])
		case i >= len(derived):
			return fmt.Sprintf("item %d %q is not re-derived", i+1, claimed[i])
		case claimed[i] != derived[i]:
			return fmt.Sprintf("item %d claimed %q, re-derived %q", i+1, claimed[i], derived[i])
		}
	}
	return "they are equal"
}

func anyUntrusted(ev map[string]string, untrusted map[string]bool) bool {
	for _, p := range ev {
		if untrusted[p] {
			return true
		}
	}
	return false
}

func because(reasons []string) string {
	if len(reasons) == 0 {
		return ""
	}
	return ": " + reasons[0]
}

func sameBoolPtr(a, b *bool) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func boolPtr(b *bool) string {
	if b == nil {
		return "null"
	}
	return fmt.Sprint(*b)
}
