package verify

import (
	"fmt"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// compare sets the derived values on rep and reports every claimed value
// that differs from its re-derivation (SPEC.md "Verification", step 4).
// Results that depend on an untrusted file are not compared: the file
// finding already says why they cannot be re-derived.
func (vf *verification) compare() {
	vf.rep.DerivedVerdict = string(vf.derived.Overall)
	vf.rep.ConformingStatic = vf.derived.Static.ConformingStatic
	vf.rep.Unstable = vf.derived.Unstable
	vf.rep.Usable = vf.derived.Usable
	vf.rep.NotUsable = append(vf.rep.NotUsable, vf.derived.Why...)
	mismatch := func(field, clause, format string, args ...any) {
		vf.rep.add(Finding{Class: ClassVerdictMismatch, File: manifest.Path, Field: field, Clause: clause, Message: message(format, args...)})
	}

	staticTrusted := !anyUntrusted(vf.m.Static.Evidence, vf.untrusted)
	if staticTrusted {
		vf.compareStatic(mismatch)
	}

	allTrusted := staticTrusted
	for i, rp := range vf.m.Repetitions {
		view := RepetitionView{Index: i + 1, Verdict: rp.Verdict}
		// A repetition whose record is incomplete derives nothing.
		repTrusted := !vf.untrusted[repField(i+1, "")]
		var derived rules.SequenceResult
		if i < len(vf.derived.Repetitions) {
			derived = vf.derived.Repetitions[i]
		}
		claimedByStage, stageAt := map[string]manifest.Stage{}, map[string]int{}
		for j, st := range rp.Stages {
			claimedByStage[st.Stage], stageAt[st.Stage] = st, j
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
			trusted := repTrusted && !anyUntrusted(st.Evidence, vf.untrusted)
			if !trusted || !staticTrusted {
				// Nothing is derived from untrusted evidence.
				sv.DerivedStatus, sv.DerivedVerdict = "", ""
			} else {
				// The first_error shown is the verifier's own; a writer's
				// other wording is listed as unverified below.
				sv.FirstError = ds.FirstError
			}
			if trusted && staticTrusted {
				if st.Status != string(ds.Status) {
					mismatch(field+".status", "DSHIO/T 20 11.2", "claimed %q, re-derived %q%s", st.Status, ds.Status, because(ds.Reasons))
				}
				if st.Verdict != string(ds.Verdict) {
					mismatch(field+".verdict", "DSHIO/T 20 11.1", "claimed %q, re-derived %q%s", st.Verdict, ds.Verdict, because(ds.Reasons))
				}
				if assemble.FirstErrorIdentity(st.FirstError) != assemble.FirstErrorIdentity(ds.FirstError) {
					mismatch(field+".first_error", "DSHIO/T 20 6.6", "claimed %q, re-derived %q", st.FirstError, ds.FirstError)
				} else if st.FirstError != ds.FirstError {
					// Same identity, the writer's own wording after the prefix.
					vf.writerInformative(field+".first_error", fmt.Sprintf("/repetitions/%d/stages/%d/first_error", i, stageAt[st.Stage]), st.FirstError)
				}
			}
			repTrusted = repTrusted && trusted
			view.Stages = append(view.Stages, sv)
		}
		if repTrusted && staticTrusted && rp.Verdict != string(derived.Verdict) {
			mismatch(repField(i+1, "", "verdict"), "DSHIO/T 20 11.1", "claimed %q, re-derived %q", rp.Verdict, derived.Verdict)
		}
		allTrusted = allTrusted && repTrusted
		vf.rep.Repetitions = append(vf.rep.Repetitions, view)
	}
	if !allTrusted {
		vf.rep.DerivedVerdict = ""
		vf.rep.Usable = false
		vf.rep.NotUsable = append(vf.rep.NotUsable, "evidence is not intact: verdicts that depend on it cannot be re-derived")
		return
	}
	c := vf.m.Claimed
	if c.Verdict != string(vf.derived.Overall) {
		mismatch("claimed.verdict", "DSHIO/T 20 11", "claimed %q, re-derived %q", c.Verdict, vf.derived.Overall)
	}
	if c.Unstable != vf.derived.Unstable {
		mismatch("claimed.unstable", "DSHIO/T 20 11.3", "claimed %v, re-derived %v", c.Unstable, vf.derived.Unstable)
	}
	if c.Deviated != vf.derived.Deviated {
		mismatch("claimed.deviated", "DSHIO/T 21 8.2", "claimed %v, but %d deviation(s) are recorded", c.Deviated, len(vf.m.Deviations))
	}
	if c.UsableForCertification != vf.derived.Usable {
		mismatch("claimed.usable_for_certification", "DSHIO/T 21 8.2", "claimed %v, re-derived %v%s", c.UsableForCertification, vf.derived.Usable, because(vf.derived.Why))
	}
	if vf.m.Declaration != assemble.Declaration(vf.m) {
		mismatch("declaration", "DSHIO/T 10 8.1", "the declaration text is not the one the result supports")
	}
}

// compareStatic compares the normative part of the claimed T0 report
// (assemble.NormativeStatic) with the re-derived one: statuses,
// severities, conforming_static, unresolvable, the clause set and order,
// and the presence of the reason and the warning SPEC requires (SPEC.md
// "Normative and informative values"). The informative texts are not
// compared: writerInformative lists those the writer worded otherwise.
func (vf *verification) compareStatic(mismatch func(field, clause, format string, args ...any)) {
	cw := vf.m.Static.Report
	claimed := assemble.NormativeStatic(cw)
	derivedWire := assemble.WireStaticReport(vf.derived.Static)
	derived := assemble.NormativeStatic(derivedWire)
	if !sameBoolPtr(claimed.ConformingStatic, derived.ConformingStatic) {
		mismatch("static.report.conforming_static", "DSHIO/T 20 5.5", "claimed %s, re-derived %s", boolPtr(claimed.ConformingStatic), boolPtr(derived.ConformingStatic))
	}
	if !sameBoolPtr(vf.m.Claimed.ConformingStatic, derived.ConformingStatic) {
		mismatch("claimed.conforming_static", "DSHIO/T 20 5.5", "claimed %s, re-derived %s", boolPtr(vf.m.Claimed.ConformingStatic), boolPtr(derived.ConformingStatic))
	}
	if claimed.Unresolvable != derived.Unresolvable {
		mismatch("static.report.unresolvable", "DSHIO/T 20 5.5", "claimed %v, re-derived %v", claimed.Unresolvable, derived.Unresolvable)
	}
	if claimed.Reasoned != derived.Reasoned {
		mismatch("static.report.reason", "DSHIO/T 20 5.5", "an unresolvable report gives a reason, any other gives none that is required; claimed %v, re-derived %v", claimed.Reasoned, derived.Reasoned)
	}
	if claimed.Warned != derived.Warned {
		mismatch("static.report.warnings", "DSHIO/T 20 5.6", "a report whose conforming_static is false carries the warning to fix it first; claimed %v, re-derived %v", claimed.Warned, derived.Warned)
	}
	byClause := map[string]int{}
	intact := true
	for i, c := range claimed.Clauses {
		if j, dup := byClause[c.Clause]; dup {
			mismatch(fmt.Sprintf("static.report.clauses[%d]", i), "DSHIO/T 20 5.5", "clause %q has a second result (first at static.report.clauses[%d]); each clause has exactly one", c.Clause, j)
			intact = false
			continue
		}
		byClause[c.Clause] = i
	}
	seen := map[string]bool{}
	// aligned is the re-derived report with its clauses at the claimed
	// report's positions, so that informative texts pair up by field.
	aligned := derivedWire
	aligned.Clauses = make([]manifest.ClauseResult, len(cw.Clauses))
	for k, dc := range derived.Clauses {
		seen[dc.Clause] = true
		i, ok := byClause[dc.Clause]
		if !ok {
			mismatch("static.report.clauses", "DSHIO/T 10 Annex A", "clause %s is missing; re-derived %q", dc.Clause, dc.Status)
			intact = false
			continue
		}
		aligned.Clauses[i] = derivedWire.Clauses[k]
		cc := claimed.Clauses[i]
		if cc.Status != dc.Status {
			mismatch(fmt.Sprintf("static.report.clauses[%d].status", i), "DSHIO/T 10 "+dc.Clause, "clause %s claimed %q, re-derived %q", dc.Clause, cc.Status, dc.Status)
		}
		if cc.Severity != dc.Severity {
			mismatch(fmt.Sprintf("static.report.clauses[%d].severity", i), "DSHIO/T 10 "+dc.Clause, "clause %s claimed severity %q, re-derived %q", dc.Clause, cc.Severity, dc.Severity)
		}
	}
	for _, cc := range claimed.Clauses {
		if !seen[cc.Clause] {
			mismatch("static.report.clauses", "DSHIO/T 10 Annex A", "clause %q is claimed but not part of the derivation", cc.Clause)
			intact = false
		}
	}
	if intact && len(claimed.Clauses) == len(derived.Clauses) {
		for i := range claimed.Clauses {
			if claimed.Clauses[i].Clause != derived.Clauses[i].Clause {
				mismatch(fmt.Sprintf("static.report.clauses[%d]", i), "DSHIO/T 10 Annex A", "clause %s stands where clause %s belongs; clauses are in clause order", claimed.Clauses[i].Clause, derived.Clauses[i].Clause)
				break
			}
		}
	}
	ours := map[assemble.InformativePlace]string{}
	for _, t := range assemble.StaticInformative(aligned) {
		ours[t.InformativePlace] = t.Text
	}
	for _, t := range assemble.StaticInformative(cw) {
		if ours[t.InformativePlace] != t.Text {
			vf.writerInformative(t.Field(), t.Pointer(), t.Text)
		}
	}
}

// writerInformative shows an informative text the writer worded
// otherwise than the verifier as the writer's: listed as unverified
// (field names it), refused like every writer text when it is not one
// line of printable text (input-invalid, naming it by JSON Pointer ptr:
// it is an input of the rebuild), and subject to the forbidden-word rule
// (SPEC.md "Normative and informative values", "Forbidden words").
func (vf *verification) writerInformative(field, ptr, text string) {
	if err := manifest.TextError(text); err != nil {
		vf.rep.addf(ClassInputInvalid, ptr, inputClause, "the writer's informative text %q: %v", text, err)
	}
	if rules.ClaimsCertified(text, vf.m.Subject.Name) {
		vf.rep.addf(ClassForbiddenWord, field, "DSHIO/T 10 8.2", "claims a certified state; while v1.0 is in force no such state exists")
	}
	vf.rep.unverified(field, text)
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
