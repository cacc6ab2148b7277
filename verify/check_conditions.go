package verify

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/rules/static"
)

// conditionIndex finds a fixed condition by name.
type conditionIndex map[string]string

func (c conditionIndex) value(name string) (string, bool) {
	v, ok := c[name]
	return v, ok
}

// indexConditions indexes the fixed conditions and reports a name
// recorded twice (two values for one condition).
func (vf *verification) indexConditions() conditionIndex {
	idx := conditionIndex{}
	for i, c := range vf.m.Conditions.Fixed {
		if _, dup := idx[c.Name]; dup {
			vf.rep.addf(ClassConditionMismatch, fmt.Sprintf("conditions.fixed[%d]", i), "DSHIO/T 21 5.1", "fixed condition %q is recorded twice", c.Name)
			continue
		}
		idx[c.Name] = c.Value
	}
	return idx
}

// checkConditions makes the conditions one source of truth (SPEC.md "What
// the verifier cross-checks", class 2): the fixed conditions, the
// settings, the fingerprint, the image and every executed stage's argv
// and network agree, and each difference from the standard has its
// deviation.
func (vf *verification) checkConditions() {
	bad := func(field, clause, format string, args ...any) {
		vf.rep.addf(ClassConditionMismatch, field, clause, format, args...)
	}
	if vf.fingerprint != nil {
		if vf.fingerprint.ImageDigest != vf.m.Image.Digest {
			bad("image.digest", "DSHIO/T 21 5.1.2", "%q, the fingerprint says %q", vf.m.Image.Digest, vf.fingerprint.ImageDigest)
		}
		if vf.fingerprint.ImageName != vf.m.Image.Name {
			bad("image.name", "DSHIO/T 21 5.2", "%q, the fingerprint says %q", vf.m.Image.Name, vf.fingerprint.ImageName)
		}
		vf.ledger.expect(ClassConditionMismatch, "fingerprint dsh", assemble.DeviationDSHVersion, vf.m.Baseline, vf.fingerprint.DSH, "DSHIO/T 21 5.1.1")
	}
	if !vf.m.Dynamic {
		vf.checkStaticOnly()
		return
	}
	field := func(name string) string { return "conditions.fixed " + name }
	need := func(name string) (string, bool) {
		v, ok := vf.conditions.value(name)
		if !ok {
			bad("conditions.fixed", "DSHIO/T 21 5.1", "the fixed condition %q is not recorded", name)
		}
		return v, ok
	}
	agree := func(name, want, what string) {
		if v, ok := need(name); ok && !sameValue(v, want) {
			bad(field(name), "DSHIO/T 21 5.1", "%q, but %s is %q", v, what, want)
		}
	}
	if vf.fingerprint != nil {
		agree(assemble.CondDSHVersion, vf.fingerprint.DSH, "the fingerprint's dsh")
		agree(assemble.CondMemory, vf.fingerprint.Mem, "the fingerprint's mem")
		agree(assemble.CondCPU, vf.fingerprint.CPU, "the fingerprint's cpu")
	}
	agree(assemble.CondBaseline, vf.m.Baseline, "baseline")
	agree(assemble.CondImage, vf.m.Image.Name+"@"+vf.m.Image.Digest, "image name@digest")
	agree(assemble.CondWindow, msString(vf.m.Settings.ObservationWindowMS), "settings.observation_window_ms")
	agree(assemble.CondRepeat, fmt.Sprint(vf.m.Settings.Repeat), "settings.repeat")
	for _, s := range rules.DynamicStages {
		if v, ok := vf.m.Settings.TimeoutsMS[string(s)]; ok {
			agree(assemble.CondTimeout(s), msString(v), "settings.timeouts_ms."+string(s))
		}
	}
	need(assemble.CondPids)
	need(assemble.CondUlimits)
	need(assemble.CondProfile)
	need(assemble.CondIsolation)

	// Network: the conditions against the standard and every stage.
	n1, ok1 := need(assemble.CondNetworkT1)
	n24, ok24 := need(assemble.CondNetworkT2T4)
	if ok1 && ok24 {
		vf.ledger.expect(ClassConditionMismatch, field("network"), assemble.DeviationNetwork,
			"T1 "+assemble.NetworkT1Value+"; T2-T4 "+assemble.NetworkT2T4Value, "T1 "+n1+"; T2-T4 "+n24, "DSHIO/T 21 5.1.4")
	}
	// Commands: the conditions against the standard and every stage.
	cmds := map[rules.Stage]string{}
	for _, s := range rules.DynamicStages {
		if v, ok := need(assemble.CondCommand(s)); ok {
			cmds[s] = v
			vf.ledger.expect(ClassConditionMismatch, field(assemble.CondCommand(s)), assemble.DeviationCommand(s),
				strings.Join(assemble.StandardArgv(s, vf.m.Subject.Spec), " "), v, "DSHIO/T 21 5.1.8")
		}
	}
	for i, rp := range vf.m.Repetitions {
		for _, st := range rp.Stages {
			s := rules.Stage(st.Stage)
			if st.ExitCode == nil || !isDynamicStage(st.Stage) {
				continue
			}
			if v, ok := cmds[s]; ok {
				if k := slices.IndexFunc(st.Argv, notOneWord); k >= 0 {
					// The condition joins the arguments with single spaces,
					// which names them only when each is one word.
					bad(repField(i+1, st.Stage, "argv"), "DSHIO/T 21 5.1.8", "argument %d is %q, not one word without white space, so no command condition can name it", k+1, st.Argv[k])
				} else if strings.Join(st.Argv, " ") != v {
					bad(repField(i+1, st.Stage, "argv"), "DSHIO/T 21 5.1.8", "ran %q, the fixed condition %q says %q", strings.Join(st.Argv, " "), assemble.CondCommand(s), v)
				}
			}
			want, name := firstWord(n1), assemble.CondNetworkT1
			if s != rules.T1 {
				want, name = firstWord(n24), assemble.CondNetworkT2T4
			}
			if (ok1 && ok24) && st.Network != want {
				bad(repField(i+1, st.Stage, "network"), "DSHIO/T 21 5.1.4", "%q, the fixed condition %q says %q", st.Network, name, want)
			}
		}
	}
}

// notOneWord reports whether an argument is empty or holds white space.
func notOneWord(arg string) bool {
	return arg == "" || strings.IndexFunc(arg, unicode.IsSpace) >= 0
}

// checkStaticOnly holds a static-only bundle (`dynamic` false) to
// recording no sandbox (SPEC.md "What the verifier cross-checks", class
// 2): T0 runs no container, so a fingerprint, an image, version outputs,
// a window or stage time limits, an installed size, a fixed condition of a name the
// verifier cross-checks (crossChecked; but the baseline, which T0 uses)
// and a
// deviation of a name SPEC.md "Deviation names" gives (but the baseline
// version) would be facts of a run that did not happen, which nothing
// could cross-check and a reader would take as tested. The baseline
// condition equals `baseline`; checkSequence checks the repeat count.
func (vf *verification) checkStaticOnly() {
	bad := func(field, format string, args ...any) {
		vf.rep.addf(ClassConditionMismatch, field, `SPEC.md "What the verifier cross-checks"`, format, args...)
	}
	if vf.m.Fingerprint != "" {
		bad("fingerprint", "%q, but a static-only bundle ran no sandbox: it has no environment to fingerprint", clipText(vf.m.Fingerprint))
	}
	if vf.m.Image.Name != "" || vf.m.Image.Digest != "" {
		bad("image", "%q, but a static-only bundle ran no container", clipText(vf.m.Image.Name+"@"+vf.m.Image.Digest))
	}
	if n := len(vf.m.Environment.Evidence); n > 0 {
		bad("environment.evidence", "%d version output(s), but a static-only bundle ran no container to ask", n)
	}
	if v := vf.m.Settings.ObservationWindowMS; v != 0 {
		bad("settings.observation_window_ms", "%d, but a static-only bundle ran no T4 to observe", v)
	}
	if n := len(vf.m.Settings.TimeoutsMS); n > 0 {
		bad("settings.timeouts_ms", "%d stage time limit(s), but a static-only bundle ran none of T1–T4", n)
	}
	if v := vf.m.Static.InstalledSize; v != -1 {
		bad("static.installed_size", "%d, but a static-only bundle ran no T1 to install the package: its size is unknown (-1)", v)
	}
	for i, c := range vf.m.Conditions.Fixed {
		switch {
		case c.Name == assemble.CondBaseline:
			if !sameValue(c.Value, vf.m.Baseline) {
				bad(fmt.Sprintf("conditions.fixed[%d]", i), "%s is %q, but baseline is %q", c.Name, clipText(c.Value), clipText(vf.m.Baseline))
			}
		case crossChecked(c.Name):
			bad(fmt.Sprintf("conditions.fixed[%d]", i), "%s is %q, but a static-only bundle ran no sandbox with conditions", c.Name, clipText(c.Value))
		}
	}
	for i, d := range vf.m.Deviations {
		if d.What != assemble.DeviationBaseline && sandboxDeviation(d.What) {
			vf.ledger.matched[i] = true
			bad(fmt.Sprintf("deviations[%d]", i), "a %q deviation, but a static-only bundle ran no sandbox to deviate from", d.What)
		}
	}
}

// sandboxDeviation reports whether what names a deviation of SPEC.md
// "Deviation names" other than the baseline version: one from a
// condition of the sandbox.
func sandboxDeviation(what string) bool {
	switch what {
	case assemble.DeviationDSHVersion, assemble.DeviationObservationWindow, assemble.DeviationRepeatCount, assemble.DeviationNetwork,
		assemble.DeviationMemory, assemble.DeviationCPU, assemble.DeviationPids, assemble.DeviationUlimits,
		assemble.DeviationProfile, assemble.DeviationIsolation:
		return true
	}
	for _, s := range rules.DynamicStages {
		if what == assemble.DeviationCommand(s) || what == assemble.DeviationTimeout(s) {
			return true
		}
	}
	return false
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// checkEntrySchema ties a recorded entry schema to the recorded dsh
// (SPEC.md "What the verifier cross-checks", class 2; "5.1.6 Optional
// entry fields"): a schema takes precedence over the entry declaration,
// and its only source is the dsh of the image, so beside a dsh version
// not known to print one it is the writer's own and could turn a
// non-conforming entry field conforming or "not checkable".
func (vf *verification) checkEntrySchema() {
	if vf.m.Static.Evidence[manifest.RoleSchema] == "" || (!vf.m.Dynamic && vf.fingerprint == nil) {
		return
	}
	dsh := ""
	if vf.fingerprint != nil {
		dsh = vf.fingerprint.DSH
	}
	if !static.DSHPrintsEntrySchema(dsh) {
		vf.rep.addf(ClassConditionMismatch, "static.evidence.schema", "DSHIO/T 10 5.1.6", "an entry schema is recorded, but dsh %q (fingerprint) has no option that prints one: the entry definition is the image's entry declaration", dsh)
	}
}
