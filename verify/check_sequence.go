package verify

import (
	"maps"
	"slices"
	"strings"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// isSequenceProblem says a derivation problem is about the sequence's
// shape (a stage that had to run has no observation), not a lost file.
func isSequenceProblem(p assemble.Problem) bool {
	return strings.HasPrefix(p.Path, "repetitions[") && !strings.Contains(p.Path, ".")
}

// repetitionOf returns "repetitions[n]" for a field of repetition n.
func repetitionOf(path string) (string, bool) {
	if !strings.HasPrefix(path, "repetitions[") {
		return "", false
	}
	i := strings.IndexByte(path, ']')
	if i < 0 {
		return "", false
	}
	return path[:i+1], true
}

// checkSequence checks the shape of the recorded sequence (SPEC.md "What
// the verifier cross-checks", class 3): repetitions numbered 1..N with N
// the recorded repeat count, each holding T1–T4 in order once, executed
// up to the first failure and not after it, every evidence path where
// SPEC.md "Evidence file layout" puts it, and every listed file
// referenced exactly once.
func (vf *verification) checkSequence() {
	bad := func(field, clause, format string, args ...any) {
		vf.rep.addf(ClassSequenceShape, field, clause, format, args...)
	}
	ref := func(field, role, path, want string) {
		if path != want {
			bad(field+"."+role, `SPEC.md "Evidence file layout"`, "%q, the layout puts %s at %q: no rule reads the file", path, role, want)
		}
	}
	for _, role := range slices.Sorted(maps.Keys(vf.m.Static.Evidence)) {
		ref("static.evidence", role, vf.m.Static.Evidence[role], staticPlace(role))
	}
	for _, role := range slices.Sorted(maps.Keys(vf.m.Environment.Evidence)) {
		ref("environment.evidence", role, vf.m.Environment.Evidence[role], environmentPlace(role))
	}

	if !vf.m.Dynamic && (len(vf.m.Repetitions) > 0 || vf.m.Settings.Repeat != 0) {
		bad("dynamic", "DSHIO/T 20 4", "false, but %d repetition(s) are recorded and settings.repeat is %d", len(vf.m.Repetitions), vf.m.Settings.Repeat)
	}
	if vf.m.Dynamic && len(vf.m.Repetitions) != vf.m.Settings.Repeat {
		bad("repetitions", "DSHIO/T 21 5.1.9", "%d repetitions recorded, settings.repeat says %d", len(vf.m.Repetitions), vf.m.Settings.Repeat)
	}
	if vf.m.Dynamic && len(vf.m.Repetitions) == 0 {
		bad("repetitions", "DSHIO/T 21 5.1.9", "the dynamic layer ran but no repetition is recorded")
	}
	for i, rp := range vf.m.Repetitions {
		n := i + 1
		if rp.Index != n {
			bad(repField(n, "", "index"), "DSHIO/T 21 5.1.9", "%d; repetitions are numbered 1..N in order, this is repetition %d", rp.Index, n)
		}
		if len(rp.Stages) != len(rules.DynamicStages) {
			bad(repField(n, "", "stages"), "DSHIO/T 20 11.2", "%d stages recorded; every one of T1–T4 is recorded once, executed or not", len(rp.Stages))
		}
		var derived []rules.StageResult
		if i < len(vf.derived.Repetitions) {
			derived = vf.derived.Repetitions[i].Stages
		}
		// Where the sequence stopped is known only from intact evidence
		// and from earlier stages whose claimed status is the derived
		// one (else the verdict mismatch is the finding).
		intact := !vf.untrusted[repField(n, "")]
		for j, st := range rp.Stages {
			field := repField(n, st.Stage)
			if j >= len(rules.DynamicStages) || st.Stage != string(rules.DynamicStages[j]) {
				switch {
				case strings.EqualFold(st.Stage, "T5"):
					bad(field, "DSHIO/T 20 scope notice", "a T5 (tool invocation) result is void until T5 is formally included")
				case !isDynamicStage(st.Stage):
					bad(field, "DSHIO/T 20 4", "%q is not a stage of T1–T4", st.Stage)
				default:
					bad(field, "DSHIO/T 20 4", "stage %s is recorded at position %d; the sequence is T1, T2, T3, T4, each once", st.Stage, j+1)
				}
				continue
			}
			executed := st.ExitCode != nil
			var ds *rules.StageResult
			if j < len(derived) {
				ds = &derived[j]
			}
			if executed && intact && ds != nil && ds.Status == rules.StageNotExecuted && len(ds.Reasons) > 0 {
				bad(field+".exit_code", "DSHIO/T 20 11.2", "stage %s ran after the sequence stopped (%s): nothing after the first failure is part of the sequence", st.Stage, ds.Reasons[0])
			}
			if !executed {
				if len(st.Evidence) > 0 || len(st.Argv) > 0 || st.Liveness != nil || st.StartedAt != "" || st.EndedAt != "" || st.DurationMS != 0 || st.TimedOut {
					bad(field, "DSHIO/T 20 11.2", "stage %s is not executed (exit_code null) but records argv, times, evidence or liveness", st.Stage)
				}
				continue
			}
			intact = intact && !anyUntrusted(st.Evidence, vf.untrusted) && ds != nil && st.Status == string(ds.Status)
			for _, role := range slices.Sorted(maps.Keys(st.Evidence)) {
				ref(field+".evidence", role, st.Evidence[role], stagePlace(n, st.Stage, role))
			}
			if st.Liveness != nil && st.Stage != string(rules.T4) {
				bad(field+".liveness", "DSHIO/T 20 9.3", "a liveness observation belongs to T4 only")
			}
		}
	}
	for _, f := range vf.m.Files {
		switch c := vf.references[f.Path]; {
		case vf.untrusted[f.Path] && !vf.misreferred[f.Path]:
			// reported as missing or changed
		case c == 0:
			bad("files", `SPEC.md "Evidence file layout"`, "%q is listed but no evidence role refers to it", f.Path)
		case c > 1:
			bad("files", `SPEC.md "Evidence file layout"`, "%q is referred to %d times; each evidence file has one role: no rule reads it", f.Path, c)
		}
	}
}

// noSuchRole is the place of a role the layout does not have: no path.
const noSuchRole = "(no such role)"

// staticPlace, environmentPlace and stagePlace are where SPEC.md
// "Evidence file layout" puts a role's file, noSuchRole for a role it
// does not have. n is the repetition's position from 1.
func staticPlace(role string) string {
	if !slices.Contains(manifest.StaticRoles, role) {
		return noSuchRole
	}
	return manifest.StaticPath(role)
}

func environmentPlace(role string) string {
	if !slices.Contains(manifest.EnvironmentRoles, role) {
		return noSuchRole
	}
	return manifest.EnvironmentPath(role)
}

func stagePlace(n int, stage, role string) string {
	switch role {
	case manifest.RoleStdout, manifest.RoleStderr, manifest.RoleMerged:
	case manifest.RoleProfilePackageJSON:
		if stage != "T1" {
			return noSuchRole
		}
	default:
		return noSuchRole
	}
	return manifest.StagePath(n, stage, role)
}

// checkReferences moves out of trusted every file that an evidence map
// refers to at another path than the layout gives its role, and every
// file that more than one role refers to (SPEC.md "Evidence file
// layout"): which stage's evidence such a file is would be the writer's
// word, and a file read once per reference would let one file multiply
// the verifier's work and findings by the references a manifest can hold
// (DESIGN.md "Work an author can multiply"). It runs before any rule
// reads a file, and keeps how often each path is referred to in
// vf.references; checkSequence reports each such reference.
func (vf *verification) checkReferences() {
	count := map[string]int{}
	vf.references = count
	refer := func(path, want string) {
		count[path]++
		if path != want {
			vf.misrefer(path)
		}
	}
	for role, p := range vf.m.Static.Evidence {
		refer(p, staticPlace(role))
	}
	for role, p := range vf.m.Environment.Evidence {
		refer(p, environmentPlace(role))
	}
	for i, rp := range vf.m.Repetitions {
		for _, st := range rp.Stages {
			for role, p := range st.Evidence {
				want := stagePlace(i+1, st.Stage, role)
				if st.ExitCode == nil {
					want = noSuchRole // a stage not executed has no evidence
				}
				refer(p, want)
			}
		}
	}
	for p, c := range count {
		if c > 1 {
			vf.misrefer(p)
		}
	}
}

// misrefer moves a file referred to against the layout out of trusted.
func (vf *verification) misrefer(path string) {
	if _, ok := vf.trusted[path]; !ok {
		return // not listed, missing or changed: reported as such
	}
	delete(vf.trusted, path)
	vf.untrusted[path] = true
	if vf.misreferred == nil {
		vf.misreferred = map[string]bool{}
	}
	vf.misreferred[path] = true
}
