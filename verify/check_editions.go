package verify

import (
	"fmt"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// deviationLedger matches recorded differences with recorded deviations:
// each difference needs exactly one deviation with its values, and each
// deviation with a name the verifier knows must match a difference
// (DSHIO/T 21 8.1, 8.2; SPEC.md "Edition facts").
type deviationLedger struct {
	rep     *Report
	m       *manifest.Manifest
	byWhat  map[string][]int
	matched map[int]bool
}

func newLedger(rep *Report, m *manifest.Manifest) *deviationLedger {
	l := &deviationLedger{rep: rep, m: m, byWhat: map[string][]int{}, matched: map[int]bool{}}
	for i, d := range m.Deviations {
		l.byWhat[d.What] = append(l.byWhat[d.What], i)
	}
	for what, is := range l.byWhat {
		if len(is) > 1 {
			rep.addf(ClassConditionMismatch, fmt.Sprintf("deviations[%d]", is[1]), "DSHIO/T 21 8.2",
				"%q is recorded as a deviation %d times; each deviation is one item", what, len(is))
		}
	}
	return l
}

// expect records that the bundle's value got for a condition is std or a
// deviation named what says std → got. field names where got is recorded.
func (l *deviationLedger) expect(c Class, field, what, std, got, clause string) {
	is := l.byWhat[what]
	for _, i := range is {
		l.matched[i] = true
	}
	if sameValue(std, got) {
		if len(is) > 0 {
			l.rep.addf(c, fmt.Sprintf("deviations[%d]", is[0]), clause,
				"a %q deviation is recorded, but %s is %q, the standard's value: it matches no recorded difference", what, field, got)
		}
		return
	}
	if len(is) == 0 {
		l.rep.addf(c, field, clause, "%q differs from the standard's %q and no %q deviation is recorded", got, std, what)
		return
	}
	d := l.m.Deviations[is[0]]
	if !sameValue(d.Standard, std) || !sameValue(d.ChangedTo, got) {
		l.rep.addf(c, fmt.Sprintf("deviations[%d]", is[0]), clause,
			"the %q deviation says %q → %q, but the standard's value is %q and %s records %q", what, d.Standard, d.ChangedTo, std, field, got)
	}
}

// unmatched lists the deviations that name no known condition: they are
// unverified metadata (they can only make a result less usable).
func (l *deviationLedger) unmatched() []int {
	var out []int
	for i := range l.m.Deviations {
		if !l.matched[i] {
			out = append(out, i)
		}
	}
	return out
}

// sameValue compares two recorded values: equal strings, or equal
// durations when both parse as one ("12s" and "12000ms").
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	da, ea := time.ParseDuration(a)
	db, eb := time.ParseDuration(b)
	return ea == nil && eb == nil && da == db
}

func msString(v int64) string { return (time.Duration(v) * time.Millisecond).String() }

// checkEditions holds every edition fact to the editions the bundle
// cites (SPEC.md "Edition facts"): class 1 of SPEC.md "What the verifier
// cross-checks".
func (vf *verification) checkEditions() {
	ed, ok := assemble.EditionFor(vf.m.Standards)
	if !ok {
		vf.rep.addf(ClassEditionFact, "standards", "DSHIO/T 10 8.1", "cites %q; the editions this verifier knows are %q", strings.Join(vf.m.Standards, ", "), strings.Join(assemble.Edition2026.Standards, ", "))
		return
	}
	vf.ledger.expect(ClassEditionFact, "baseline", assemble.DeviationBaseline, ed.Baseline, vf.m.Baseline, "DSHIO/T 21 5.1.1")
	if !vf.m.Dynamic {
		return
	}
	vf.ledger.expect(ClassEditionFact, "settings.observation_window_ms", assemble.DeviationObservationWindow, msString(ed.WindowMS), msString(vf.m.Settings.ObservationWindowMS), "DSHIO/T 21 5.1.6")
	for _, s := range rules.DynamicStages {
		v, ok := vf.m.Settings.TimeoutsMS[string(s)]
		if !ok || v <= 0 {
			vf.rep.addf(ClassEditionFact, "settings.timeouts_ms."+string(s), "DSHIO/T 21 5.1.6", "no positive time limit is recorded for %s", s)
			continue
		}
		vf.ledger.expect(ClassEditionFact, "settings.timeouts_ms."+string(s), assemble.DeviationTimeout(s), msString(ed.TimeoutsMS[s]), msString(v), "DSHIO/T 21 5.1.6")
	}
	// Other members (the version commands' limit, SPEC.md "Manifest
	// fields") are inputs: checkInputs bounds them.
	if vf.fingerprint != nil {
		vf.ledger.expect(ClassEditionFact, "fingerprint mem", assemble.DeviationMemory, ed.Memory, vf.fingerprint.Mem, "DSHIO/T 21 5.1.3")
		vf.ledger.expect(ClassEditionFact, "fingerprint cpu", assemble.DeviationCPU, ed.CPU, vf.fingerprint.CPU, "DSHIO/T 21 5.1.3")
	}
	if v, ok := vf.conditions.value(assemble.CondPids); ok {
		vf.ledger.expect(ClassEditionFact, "conditions.fixed "+assemble.CondPids, assemble.DeviationPids, ed.Pids, v, "DSHIO/T 21 5.1.5")
	}
	if v, ok := vf.conditions.value(assemble.CondUlimits); ok {
		vf.ledger.expect(ClassEditionFact, "conditions.fixed "+assemble.CondUlimits, assemble.DeviationUlimits, ed.Ulimits, v, "DSHIO/T 21 5.1.5")
	}
	for _, c := range []struct {
		name, what, clause string
		accepted           []string
	}{
		{assemble.CondProfile, assemble.DeviationProfile, "DSHIO/T 21 5.1.7", ed.Profile},
		{assemble.CondIsolation, assemble.DeviationIsolation, "DSHIO/T 21 5.1.5", ed.Isolation},
	} {
		if v, ok := vf.conditions.value(c.name); ok {
			vf.ledger.expect(ClassEditionFact, "conditions.fixed "+c.name, c.what, assemble.StandardValue(c.accepted, v), v, c.clause)
		}
	}
	vf.ledger.expect(ClassEditionFact, "settings.repeat", assemble.DeviationRepeatCount, fmt.Sprint(ed.Repeat), fmt.Sprint(vf.m.Settings.Repeat), "DSHIO/T 21 5.1.9")
}

func isDynamicStage(s string) bool {
	for _, st := range rules.DynamicStages {
		if string(st) == s {
			return true
		}
	}
	return false
}
