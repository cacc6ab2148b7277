package verify

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/rules"
)

var certifiedWord = regexp.MustCompile(`(?i)\bcertified\b`)

// checkRules applies the report rules of SPEC.md "Verification", step 5.
func checkRules(rep *Report, m *bundle.Manifest, files map[string][]byte) {
	viol := func(field, clause, format string, args ...any) {
		rep.add(Finding{Class: ClassRuleViolation, File: bundle.ManifestPath, Field: field, Clause: clause, Message: fmt.Sprintf(format, args...)})
	}
	deviated := func(what string) bool {
		return slices.ContainsFunc(m.Deviations, func(d bundle.Deviation) bool { return d.What == what })
	}

	// No certified state exists (DSHIO/T 10 8.2).
	texts := map[string]string{"declaration": m.Declaration}
	for i, d := range m.Deviations {
		texts[fmt.Sprintf("deviations[%d]", i)] = d.What + " " + d.ChangedTo + " " + d.Why
	}
	for i, c := range append(append([]bundle.Condition{}, m.Conditions.Fixed...), m.Conditions.Variable...) {
		texts[fmt.Sprintf("conditions[%d]", i)] = c.Name + " " + c.Value
	}
	for _, field := range slices.Sorted(maps.Keys(texts)) {
		if certifiedWord.MatchString(texts[field]) {
			viol(field, "DSHIO/T 10 8.2", "claims a certified state; while v1.0 is in force no such state exists")
		}
	}

	// T0 evidence (DSHIO/T 20 12.1).
	if !m.Static.Report.Unresolvable && m.Static.Evidence[assemble.RoleMetadata] == "" {
		viol("static.evidence.metadata", "DSHIO/T 20 12.1", "the registry metadata is not retained")
	}
	if m.Static.Evidence[assemble.RoleMetadata] != "" && m.Static.PatchFetchError == "" && m.Static.Evidence[assemble.RolePatch] == "" {
		viol("static.evidence.patch", "DSHIO/T 20 12.1", "the raw patch file is not retained and no fetch error explains why")
	}

	for i, rp := range m.Repetitions {
		for _, st := range rp.Stages {
			stage := rules.Stage(st.Stage)
			field := fmt.Sprintf("repetitions[%d].%s", i, st.Stage)
			if !slices.Contains(rules.DynamicStages, stage) {
				if strings.EqualFold(st.Stage, "T5") {
					viol(field, "DSHIO/T 20 scope notice", "a T5 (tool invocation) result is void until T5 is formally included")
				} else {
					viol(field, "DSHIO/T 20 4", "%q is not a stage code", st.Stage)
				}
				continue
			}
			if st.ExitCode == nil {
				continue
			}
			if want := assemble.StandardArgv(stage, m.Subject.Spec); !slices.Equal(st.Argv, want) && !deviated(assemble.DeviationCommand(stage)) {
				viol(field+".argv", "DSHIO/T 21 5.1.8", "command %q differs from the standard's %q and no %q deviation is recorded", strings.Join(st.Argv, " "), strings.Join(want, " "), assemble.DeviationCommand(stage))
			}
			if want := assemble.StandardNetwork(stage); st.Network != want && !deviated(assemble.DeviationNetwork) {
				viol(field+".network", "DSHIO/T 21 5.1.4", "network %q, the standard requires %q", st.Network, want)
			}
		}
	}

	if !m.Dynamic {
		return
	}
	if m.Settings.ObservationWindowMS < assemble.MinObservationWindowMS && !deviated(assemble.DeviationObservationWindow) {
		viol("settings.observation_window_ms", "DSHIO/T 21 5.1.6", "%d ms is shorter than 12 s and no %q deviation is recorded", m.Settings.ObservationWindowMS, assemble.DeviationObservationWindow)
	}
	if len(m.Repetitions) != m.Settings.Repeat {
		viol("repetitions", "DSHIO/T 21 5.1.9", "%d repetitions recorded, settings.repeat says %d", len(m.Repetitions), m.Settings.Repeat)
	}
	if len(m.Repetitions) < assemble.MinRepeat && !deviated(assemble.DeviationRepeatCount) {
		viol("repetitions", "DSHIO/T 21 5.1.9", "%d repetition(s); the sequence runs %d times unless a %q deviation is recorded", len(m.Repetitions), assemble.MinRepeat, assemble.DeviationRepeatCount)
	}
	checkFingerprint(rep, m, files, viol, deviated)
}

func checkFingerprint(rep *Report, m *bundle.Manifest, files map[string][]byte, viol func(string, string, string, ...any), deviated func(string) bool) {
	fp, err := rules.ParseFingerprint(m.Fingerprint)
	if err != nil {
		viol("fingerprint", "DSHIO/T 21 5.2", "%v", err)
		return
	}
	if fp.ImageDigest != m.Image.Digest {
		viol("fingerprint", "DSHIO/T 21 5.1.2", "image digest %q differs from image.digest %q", fp.ImageDigest, m.Image.Digest)
	}
	if fp.ImageName != m.Image.Name {
		viol("fingerprint", "DSHIO/T 21 5.2", "image name %q differs from image.name %q", fp.ImageName, m.Image.Name)
	}
	observed := map[string]string{
		assemble.RoleDSHVersion:  fp.DSH,
		assemble.RoleNodeVersion: fp.Node,
		assemble.RolePNPMVersion: fp.PNPM,
	}
	for _, role := range slices.Sorted(maps.Keys(observed)) {
		p := m.Environment.Evidence[role]
		b, ok := files[p]
		if p == "" || !ok {
			viol("environment.evidence."+role, "DSHIO/T 21 5.2", "no observed %s output backs the fingerprint", role)
			continue
		}
		if got := NormaliseVersion(string(b)); got != observed[role] {
			viol("fingerprint", "DSHIO/T 21 5.2", "%s is %q in the fingerprint but the image printed %q (%s)", role, observed[role], got, p)
		}
	}
	if fp.DSH != m.Baseline && !deviated(assemble.DeviationDSHVersion) {
		viol("fingerprint", "DSHIO/T 21 5.1.1", "dsh %s is not the baseline %s and no %q deviation is recorded", fp.DSH, m.Baseline, assemble.DeviationDSHVersion)
	}
}

// NormaliseVersion turns a version command's output into a bare version:
// the first line, trimmed, without a leading "v" (node prints v24.11.1).
func NormaliseVersion(out string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	return strings.TrimPrefix(strings.TrimSpace(line), "v")
}
