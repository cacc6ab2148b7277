package verify

import (
	"strconv"
	"strings"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/internal/lazyregexp"
	"github.com/dshaudit/dshaudit/rules"
)

// PNPMRoundingMS is how far pnpm's own "Done in" time may exceed the
// stage's duration: pnpm rounds it to a tenth of a second (pretty-ms),
// and it measures from pnpm's start, inside the stage.
const PNPMRoundingMS = 100

// pnpmUnit is one part of pnpm's elapsed time ("1m", "2.3s", "523ms").
var pnpmUnit = lazyregexp.New(`(\d+(?:\.\d+)?)(ms|s|m|h|d)`)

// profileHome is the DSH_HOME the profile condition records.
var profileHome = lazyregexp.New(`\bDSH_HOME=([^\s,;]+)`)

// checkOutputFacts holds what a stage's own output says about the run
// against what the manifest records (SPEC.md "Time and process facts"):
// the profile directory dsh names (where it set the profile up or ran
// pnpm) is the recorded DSH_HOME's;
// pnpm's elapsed time is within the stage's duration, and a T1 whose
// pnpm gave up, or a T1 or T2 whose dsh reports pnpm failing, did not
// exit 0. The output is the stage's trusted merged
// stream, read once into its run model (stageModels).
func (vf *verification) checkOutputFacts(models []stageModel) {
	name, home := vf.recordedProfile()
	for _, sm := range models {
		st := sm.st
		if home != "" {
			// The directories dsh names for the profile: where it set the
			// profile up, and where pnpm failed (dsh plugin's
			// resolveProfileDir, the same directory).
			type named struct{ says, dir string }
			dirs := make([]named, 0, len(sm.model.Profiles)+len(sm.model.PNPMFailed))
			for _, p := range sm.model.Profiles {
				if p.Name == name { // another name is checkRunModel's finding
					dirs = append(dirs, named{"set up the profile at", p.Dir})
				}
			}
			for _, p := range sm.model.PNPMFailed {
				dirs = append(dirs, named{"ran pnpm for the profile in", p.Value})
			}
			for _, d := range dirs {
				if want := home + "/profiles/" + name; d.dir != want {
					vf.rep.addf(ClassConditionMismatch, "conditions.fixed "+assemble.CondProfile, "DSHIO/T 21 5.1.7",
						"records DSH_HOME=%s, but %s's output says dsh %s %q, not %q", home, sm.field, d.says, d.dir, want)
					home = "" // one finding
					break
				}
			}
		}
		for _, d := range sm.model.Done {
			if ms, ok := pnpmElapsedMS(d.Elapsed); ok && ms > st.DurationMS+PNPMRoundingMS {
				vf.rep.addf(ClassTimeInconsistent, sm.field+".duration_ms", `SPEC.md "Time and process facts"`,
					"%d ms, but the stage's output says pnpm took %s (%q)", st.DurationMS, strings.TrimSpace(d.Elapsed), strings.TrimSpace(d.Line))
			}
		}
		// T1 and T2 are pnpm's runs (dsh plugin exits with pnpm's
		// status); T3's and T4's dsh may survive one. In T2 only an
		// indented line counts: pnpm list writes a listed package's name
		// at column 0, and pnpm its error label after white space.
		if e, ok := pnpmGaveUp(st.Stage, sm.model.PNPMErrors); ok && *st.ExitCode == 0 {
			vf.rep.addf(ClassTimeInconsistent, sm.field+".exit_code", `SPEC.md "Time and process facts"`,
				"0, but the stage's output reports pnpm giving up (%q), after which pnpm exits 1", strings.TrimSpace(e.Line[:strings.Index(e.Line, e.Value)+len(e.Value)]))
		} else if (st.Stage == string(rules.T1) || st.Stage == string(rules.T2)) && *st.ExitCode == 0 && len(sm.model.PNPMFailed) > 0 {
			// dsh plugin (T1, T2) prints the line only when pnpm exited
			// non-zero, and then exits with pnpm's status.
			vf.rep.addf(ClassTimeInconsistent, sm.field+".exit_code", `SPEC.md "Time and process facts"`,
				"0, but the stage's output has dsh report pnpm failing (%q), after which dsh plugin exits with pnpm's non-zero status", strings.TrimSpace(sm.model.PNPMFailed[0].Line))
		}
	}
}

// pnpmGaveUp returns the first line of errs (the stage's pnpm-error
// lines) that says pnpm gave up in a stage whose command is pnpm's run:
// any in T1, an indented one in T2 (SPEC.md "Time and process facts").
func pnpmGaveUp(stage string, errs []rules.Printed) (rules.Printed, bool) {
	for _, e := range errs {
		switch {
		case stage == string(rules.T1):
			return e, true
		case stage == string(rules.T2) && e.Line != "" && e.Line[0] != 'E':
			return e, true
		}
	}
	return rules.Printed{}, false
}

// pnpmElapsedMS reads pnpm's elapsed time in milliseconds.
func pnpmElapsedMS(s string) (int64, bool) {
	var total float64
	n := 0
	for _, u := range pnpmUnit.FindAllStringSubmatch(s, -1) {
		v, err := strconv.ParseFloat(u[1], 64)
		if err != nil {
			return 0, false
		}
		switch u[2] {
		case "ms":
			total += v
		case "s":
			total += v * 1000
		case "m":
			total += v * 60_000
		case "h":
			total += v * 3_600_000
		case "d":
			total += v * 86_400_000
		}
		n++
	}
	return int64(total), n > 0
}
