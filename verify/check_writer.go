package verify

import (
	"fmt"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest/signed"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// checkWriterFacts cross-checks everything the writer states that the
// derivation does not recompute (SPEC.md "What the verifier
// cross-checks"), then lists what remains unverified metadata.
func checkWriterFacts(rep *Report, m *manifest.Manifest, files map[string][]byte, untrusted map[string]bool, sig *signed.Result, d assemble.Derived, now time.Time, lim rules.Limits) {
	fp := checkFingerprint(rep, m, files)
	cond := indexConditions(rep, m)
	l := newLedger(rep, m)
	checkEditions(rep, m, l, fp, cond)
	checkConditions(rep, m, l, fp, cond)
	checkEntrySchema(rep, m, fp)
	checkSequence(rep, m, d, untrusted)
	checkTimes(rep, m)
	checkDates(rep, m, now)
	checkSubject(rep, m, files, sig, d)
	checkInputs(rep, m)
	checkOutputFacts(rep, m, files, untrusted)
	checkDumpAgainstPatch(rep, m, files, lim)
	listUnverified(rep, m, l.unmatched())
}

// crossChecked are the fixed conditions checkConditions and
// checkEditions compare with other recorded facts.
func crossChecked(name string) bool {
	switch name {
	case assemble.CondDSHVersion, assemble.CondBaseline, assemble.CondImage, assemble.CondMemory, assemble.CondCPU,
		assemble.CondPids, assemble.CondUlimits, assemble.CondNetworkT1, assemble.CondNetworkT2T4, assemble.CondWindow, assemble.CondRepeat:
		return true
	}
	for _, s := range []string{"T1", "T2", "T3", "T4"} {
		if name == fmt.Sprintf("%s command (DSHIO/T 21 5.1.8)", s) || name == s+" time limit (DSHIO/T 21 5.1.6)" {
			return true
		}
	}
	return false
}

// listUnverified fills rep.Unverified: the manifest fields the verifier
// neither derives nor cross-checks (SPEC.md "Manifest fields and how each
// is checked"). They are shown as the writer's word, never as verified.
func listUnverified(rep *Report, m *manifest.Manifest, unmatched []int) {
	u := rep.unverified
	u("tool.name", m.Tool.Name)
	u("tool.version", m.Tool.Version)
	u("subject.source", m.Subject.Source)
	if m.Subject.Integrity != "" {
		u("subject.integrity", m.Subject.Integrity)
	}
	if m.Subject.TarballSHA256 != "" {
		u("subject.tarball_sha256", m.Subject.TarballSHA256)
	}
	for i, c := range m.Conditions.Fixed {
		if !crossChecked(c.Name) {
			u(fmt.Sprintf("conditions.fixed[%d] %s", i, c.Name), c.Value)
		}
	}
	for i, c := range m.Conditions.Variable {
		u(fmt.Sprintf("conditions.variable[%d] %s", i, c.Name), c.Value)
	}
	for i, d := range m.Deviations {
		u(fmt.Sprintf("deviations[%d].why", i), d.Why)
		if d.Clause != "" {
			u(fmt.Sprintf("deviations[%d].clause", i), d.Clause)
		}
	}
	if v, ok := m.Settings.TimeoutsMS[timeoutVersionsKey]; ok {
		u("settings.timeouts_ms.version", fmt.Sprintf("%d ms", v))
	}
	for _, i := range unmatched {
		d := m.Deviations[i]
		u(fmt.Sprintf("deviations[%d]", i), fmt.Sprintf("%s: %s → %s (a deviation the verifier does not recognise; it only makes the result not usable)", d.What, d.Standard, d.ChangedTo))
	}
	if m.Static.PatchFetchError != "" {
		u("static.patch_fetch_error", m.Static.PatchFetchError)
	}
	u("static.installed_size", fmt.Sprint(m.Static.InstalledSize))
	u("started_at", m.StartedAt)
	u("finished_at", m.FinishedAt)
	// Each stage's times and exit status are recorded observations: held
	// to one another, the settings and the output (SPEC.md "Time and
	// process facts"), but the clock and the process were the writer's.
	for i, rp := range m.Repetitions {
		for _, st := range rp.Stages {
			if st.ExitCode != nil {
				u(repField(i+1, st.Stage, "started_at, ended_at, exit_code"), fmt.Sprintf("%s → %s, exit %d", st.StartedAt, st.EndedAt, *st.ExitCode))
			}
		}
	}
}
