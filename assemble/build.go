package assemble

import (
	"errors"
	"fmt"
	"time"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// Standards are the editions this tool implements, cited in every manifest.
var Standards = []string{"DSHIO/T 10—2026", "DSHIO/T 20—2026", "DSHIO/T 21—2026"}

// ErrInput marks an Input that cannot make a bundle.
var ErrInput = errors.New("invalid bundle input")

// Build lays out the evidence files, records every observation in a
// manifest, and fills the claimed results by calling Derive — the same
// function the verifier calls. It returns the manifest (Files filled) and
// the evidence files by path.
func Build(in Input) (*manifest.Manifest, map[string][]byte, error) {
	files := map[string][]byte{}
	m := &manifest.Manifest{
		MediaType:     manifest.MediaType,
		SchemaVersion: manifest.SchemaVersion,
		Tool:          in.Tool,
		Standards:     append([]string(nil), Standards...),
		Subject:       in.Subject,
		Baseline:      in.Baseline,
		Fingerprint:   in.Fingerprint,
		Image:         in.Image,
		Conditions:    in.Conditions,
		Deviations:    append([]manifest.Deviation{}, in.Deviations...),
		Settings:      in.Settings,
		StartedAt:     rfc3339(in.StartedAt),
		FinishedAt:    rfc3339(in.FinishedAt),
		TestDate:      in.FinishedAt.UTC().Format("2006-01-02"), // SPEC.md "Manifest fields": the date the test finished
		Dynamic:       in.Dynamic,
		Repetitions:   []manifest.Repetition{},
	}
	if m.Conditions.Fixed == nil {
		m.Conditions.Fixed = []manifest.Condition{}
	}
	if m.Conditions.Variable == nil {
		m.Conditions.Variable = []manifest.Condition{}
	}
	if m.Settings.TimeoutsMS == nil {
		m.Settings.TimeoutsMS = map[string]int64{}
	}

	// T0 evidence.
	m.Static.Evidence = map[string]string{}
	m.Static.PatchFetchError = in.Static.PatchFetchError
	m.Static.InstalledSize = in.Static.InstalledSize
	for role, b := range map[string][]byte{manifest.RoleMetadata: in.Static.Metadata, manifest.RolePatch: in.Static.Patch, manifest.RoleREADME: in.Static.README, manifest.RoleSchema: in.Static.Schema,
		manifest.RoleEntryDeclaration: in.Static.EntryDeclaration, manifest.RoleTarball: in.Static.Tarball} {
		if b != nil {
			p := manifest.StaticPath(role)
			files[p] = b
			m.Static.Evidence[role] = p
		}
	}
	m.Environment.Evidence = map[string]string{}
	for role, b := range in.Versions {
		p := manifest.EnvironmentPath(role)
		files[p] = b
		m.Environment.Evidence[role] = p
	}

	if !in.Dynamic && len(in.Repetitions) > 0 {
		return nil, nil, fmt.Errorf("%w: repetitions given for a static-only run", ErrInput)
	}
	for i, runs := range in.Repetitions {
		rep := manifest.Repetition{Index: i + 1}
		byStage := map[rules.Stage]StageRun{}
		for _, r := range runs {
			if _, dup := byStage[r.Stage]; dup {
				return nil, nil, fmt.Errorf("%w: repetition %d: stage %s recorded twice", ErrInput, i+1, r.Stage)
			}
			byStage[r.Stage] = r
		}
		for _, st := range rules.DynamicStages {
			r, ok := byStage[st]
			if !ok {
				rep.Stages = append(rep.Stages, manifest.Stage{Stage: string(st), Status: string(rules.StageNotExecuted)})
				continue
			}
			rep.Stages = append(rep.Stages, stageRecord(i+1, r, files))
		}
		m.Repetitions = append(m.Repetitions, rep)
	}

	// Claimed results: the same derivation the verifier runs (or ran,
	// in.Derived).
	var d Derived
	if in.Derived != nil {
		d = *in.Derived
	} else {
		var probs []Problem
		d, probs = Derive(m, files, in.RuleLimits)
		if len(probs) > 0 {
			return nil, nil, fmt.Errorf("%w: %s", ErrInput, probs[0])
		}
	}
	for i := range m.Repetitions {
		for j, st := range m.Repetitions[i].Stages {
			if st.ExitCode != nil && d.Repetitions[i].Stages[j].Status == rules.StageNotExecuted {
				return nil, nil, fmt.Errorf("%w: repetition %d: %s ran after an earlier stage failed (DSHIO/T 20 11.2)", ErrInput, i+1, st.Stage)
			}
		}
	}
	Claim(m, d)
	m.Files = bundle.FileListKnown(files, in.KnownSum)
	return m, files, nil
}

func stageRecord(rep int, r StageRun, files map[string][]byte) manifest.Stage {
	code := r.ExitCode
	st := manifest.Stage{
		Stage:      string(r.Stage),
		Argv:       append([]string(nil), r.Argv...),
		Network:    r.Network,
		StartedAt:  rfc3339(r.StartedAt),
		EndedAt:    rfc3339(r.EndedAt),
		DurationMS: wallDurationMS(r.StartedAt, r.EndedAt),
		ExitCode:   &code,
		TimedOut:   r.TimedOut,
		Evidence:   map[string]string{},
	}
	put := func(role string, b []byte) {
		if b == nil {
			b = []byte{}
		}
		p := manifest.StagePath(rep, string(r.Stage), role)
		files[p] = b
		st.Evidence[role] = p
	}
	put(manifest.RoleStdout, r.Stdout)
	put(manifest.RoleStderr, r.Stderr)
	put(manifest.RoleMerged, r.Merged)
	if r.Stage == rules.T1 && r.ProfilePackageJSON != nil {
		put(manifest.RoleProfilePackageJSON, r.ProfilePackageJSON)
	}
	if r.Liveness != nil {
		st.Liveness = &manifest.Liveness{
			WindowMS:   r.Liveness.Window.Milliseconds(),
			AliveMS:    r.Liveness.AliveFor.Milliseconds(),
			AliveAtEnd: r.Liveness.AliveAtEnd,
		}
	}
	return st
}

// wallDurationMS is end − start on the wall clock the recorded times
// are read from, truncated to whole milliseconds (SPEC.md "Time and
// process facts"). time.Time.Sub would use the monotonic readings Go keeps
// beside times from time.Now: when the wall clock is stepped or slewed
// during a stage (NTP, a VM's clock sync), the two differ and an honest
// bundle's duration_ms disagreed with its own ended_at − started_at (seen
// in CI on 2026-12-01: by 9 to 13 ms on stages of 1.7 to 2.5 s).
func wallDurationMS(start, end time.Time) int64 {
	return end.Round(0).Sub(start.Round(0)).Milliseconds()
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
