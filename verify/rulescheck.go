package verify

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// checkRules applies the report rules of SPEC.md "Verification", step 6.
func (vf *verification) checkRules() {
	viol := func(field, clause, format string, args ...any) {
		vf.rep.add(Finding{Class: ClassRuleViolation, File: manifest.Path, Field: field, Clause: clause, Message: message(format, args...)})
	}
	vf.checkForbiddenWords()

	// T0 evidence (DSHIO/T 20 12.1).
	if !vf.m.Static.Report.Unresolvable && vf.m.Static.Evidence[manifest.RoleMetadata] == "" && !vf.m.Dynamic {
		viol("static.evidence.metadata", "DSHIO/T 20 12.1", "the registry metadata is not retained")
	}
	if vf.m.Static.Evidence[manifest.RoleMetadata] != "" && vf.m.Static.PatchFetchError == "" && vf.m.Static.Evidence[manifest.RolePatch] == "" {
		viol("static.evidence.patch", "DSHIO/T 20 12.1", "the raw patch file is not retained and no fetch error explains why")
	}
}

// writerTexts are the free texts of a manifest the writer controls and
// the standards cover (DSHIO/T 10 8.2 forbids claiming a certified state
// in any of them), by field name.
func writerTexts(m *manifest.Manifest) map[string]string {
	stages := 0
	for _, rp := range m.Repetitions {
		stages += len(rp.Stages)
	}
	t := make(map[string]string, 9+len(m.Standards)+len(m.Deviations)+len(m.Conditions.Fixed)+len(m.Conditions.Variable)+stages)
	t["declaration"] = m.Declaration
	t["tool.name"] = m.Tool.Name
	t["tool.version"] = m.Tool.Version
	t["subject.spec"] = m.Subject.Spec
	t["subject.source"] = m.Subject.Source
	t["image.name"] = m.Image.Name
	t["baseline"] = m.Baseline
	t["static.patch_fetch_error"] = m.Static.PatchFetchError
	t["claimed.verdict"] = m.Claimed.Verdict
	for i, s := range m.Standards {
		t[fmt.Sprintf("standards[%d]", i)] = s
	}
	for i, d := range m.Deviations {
		t[fmt.Sprintf("deviations[%d]", i)] = strings.Join([]string{d.What, d.Standard, d.ChangedTo, d.Why, d.Clause}, " ")
	}
	for i, c := range m.Conditions.Fixed {
		t[fmt.Sprintf("conditions.fixed[%d]", i)] = c.Name + " " + c.Value
	}
	for i, c := range m.Conditions.Variable {
		t[fmt.Sprintf("conditions.variable[%d]", i)] = c.Name + " " + c.Value
	}
	for i, rp := range m.Repetitions {
		for _, st := range rp.Stages {
			t[repField(i+1, st.Stage, "argv")] = strings.Join(st.Argv, " ")
		}
	}
	return t
}

// checkForbiddenWords flags "certified", in any confusable spelling, in
// every writer text except inside the package name (a plugin may be
// called certified-…). The detector is rules.ClaimsCertified, the one the
// claim checker uses. SPEC.md "Forbidden words".
func (vf *verification) checkForbiddenWords() {
	texts := writerTexts(vf.m)
	for _, field := range slices.Sorted(maps.Keys(texts)) {
		if rules.ClaimsCertified(texts[field], vf.m.Subject.Name) {
			vf.rep.addf(ClassForbiddenWord, field, "DSHIO/T 10 8.2", "claims a certified state; while v1.0 is in force no such state exists")
		}
	}
}

// normaliseVersion turns a version command's output into a bare version,
// as a slice of it: the first line, trimmed, without a leading "v" (node
// prints v24.11.1).
func normaliseVersion(out []byte) []byte {
	line, _, _ := bytes.Cut(bytes.TrimSpace(out), []byte("\n"))
	return bytes.TrimPrefix(bytes.TrimSpace(line), []byte("v"))
}
