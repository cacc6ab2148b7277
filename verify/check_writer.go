package verify

import (
	"fmt"

	"github.com/dshaudit/dshaudit/assemble"
)

// checkWriterFacts cross-checks everything the writer states that the
// derivation does not recompute (SPEC.md "What the verifier
// cross-checks"), then lists what remains unverified metadata. It sets
// the fingerprint, the condition index and the deviation ledger the
// checks after it read.
func (vf *verification) checkWriterFacts() {
	vf.fingerprint = vf.checkFingerprint()
	vf.conditions = vf.indexConditions()
	vf.ledger = newLedger(vf.rep, vf.m)
	vf.checkEditions()
	vf.checkConditions()
	vf.checkEntrySchema()
	vf.checkSequence()
	vf.checkTimes()
	vf.checkDates()
	vf.checkTarball()
	vf.checkSubject()
	vf.checkInputs()
	vf.checkVariableConditions()
	models := vf.stageModels()
	vf.checkOutputFacts(models)
	vf.checkRunModel(models)
	vf.checkInstallSource(models)
	vf.checkDumpAgainstPatch()
	vf.listUnverified(vf.ledger.unmatched())
}

// crossChecked are the fixed conditions checkConditions and
// checkEditions compare with other recorded facts and the edition: every
// name conditions.fixed may hold (checkInputs refuses any other).
func crossChecked(name string) bool { return assemble.IsFixedCondition(name) }

// listUnverified fills rep.Unverified: the manifest fields the verifier
// neither derives nor cross-checks (SPEC.md "Manifest fields and how each
// is checked"). They are shown as the writer's word, never as verified.
func (vf *verification) listUnverified(unmatched []int) {
	u := vf.rep.unverified
	u("tool.name", vf.m.Tool.Name)
	u("tool.version", vf.m.Tool.Version)
	u("subject.source", vf.m.Subject.Source)
	// With the tested tarball held, the subject's digests are derived
	// from it (checkTarball); without it they are the writer's word and
	// never name the package in a summary.
	if vf.m.Subject.Integrity != "" && vf.rep.Tarball == nil {
		u("subject.integrity", vf.m.Subject.Integrity)
	}
	if vf.m.Subject.TarballSHA256 != "" && vf.rep.Tarball == nil {
		u("subject.tarball_sha256", vf.m.Subject.TarballSHA256)
	}
	for i, c := range vf.m.Conditions.Fixed {
		if !crossChecked(c.Name) {
			u(fmt.Sprintf("conditions.fixed[%d] %s", i, c.Name), c.Value)
		}
	}
	for i, c := range vf.m.Conditions.Variable {
		u(fmt.Sprintf("conditions.variable[%d] %s", i, c.Name), c.Value)
	}
	for i, d := range vf.m.Deviations {
		u(fmt.Sprintf("deviations[%d].why", i), d.Why)
		if d.Clause != "" {
			u(fmt.Sprintf("deviations[%d].clause", i), d.Clause)
		}
	}
	if v, ok := vf.m.Settings.TimeoutsMS[timeoutVersionsKey]; ok {
		u("settings.timeouts_ms.version", fmt.Sprintf("%d ms", v))
	}
	for _, i := range unmatched {
		d := vf.m.Deviations[i]
		u(fmt.Sprintf("deviations[%d]", i), fmt.Sprintf("%s: %s → %s (a deviation the verifier does not recognise; it only makes the result not usable)", d.What, d.Standard, d.ChangedTo))
	}
	if vf.m.Static.PatchFetchError != "" {
		u("static.patch_fetch_error", vf.m.Static.PatchFetchError)
	}
	u("static.installed_size", fmt.Sprint(vf.m.Static.InstalledSize))
	u("started_at", vf.m.StartedAt)
	u("finished_at", vf.m.FinishedAt)
	// Each stage's times and exit status are recorded observations: held
	// to one another, the settings and the output (SPEC.md "Time and
	// process facts"), but the clock and the process were the writer's.
	for i, rp := range vf.m.Repetitions {
		for _, st := range rp.Stages {
			if st.ExitCode != nil {
				u(repField(i+1, st.Stage, "started_at, ended_at, exit_code"), fmt.Sprintf("%s → %s, exit %d", st.StartedAt, st.EndedAt, *st.ExitCode))
			}
		}
	}
}
