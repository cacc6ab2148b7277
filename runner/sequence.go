package runner

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"

	"github.com/dshaudit/dshaudit/internal/owner"
)

// sequence is what every repetition of T1–T4 shares.
type sequence struct {
	o           Options
	imageID     string
	installSpec string
	sub         rules.Subject
	entries     []rules.Entry
	now         func() time.Time
	// pkgDir is the local package directory mounted at PackageMount, ""
	// for a registry package.
	pkgDir string
	// registry is the registry T1's pnpm is pointed at (the one T0
	// used), "" to leave the image's default.
	registry string
	// conditions collects variable conditions found while running.
	conditions []manifest.Condition
}

// repetition runs one T1–T4 sequence in a fresh profile (DSHIO/T 21
// 5.1.7, 5.1.9): each stage in a fresh container, derived as soon as it
// ends, and the sequence stops at the first failed stage (DSHIO/T 20
// 11.2). It returns the executed stages, the installed size measured
// after T1 (-1 if none), and notes about truncated output.
func (r *Runner) repetition(ctx context.Context, s *sequence, rep int) ([]assemble.StageRun, int64, []string, error) {
	dir, err := owner.MkdirTemp(r.TempDir, TempPrefixProfile)
	if err != nil {
		return nil, -1, nil, fmt.Errorf("%w: profile directory: %w", ErrEnvironment, err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, -1, nil, fmt.Errorf("%w: profile directory: %w", ErrEnvironment, err)
	}
	mounts := []engine.Mount{{Source: dir, Target: ProfileMount}}
	if s.pkgDir != "" {
		mounts = append(mounts, engine.Mount{Source: s.pkgDir, Target: PackageMount, ReadOnly: true})
	}

	var runs []assemble.StageRun
	var notes []string
	size := int64(-1)
	for _, st := range rules.DynamicStages {
		spec := engine.RunSpec{
			Image:   s.imageID,
			Argv:    s.o.argv(st, s.installSpec),
			Network: engine.NetworkNone,
			Env:     map[string]string{"DSH_HOME": ProfileMount},
			Mounts:  mounts,
			Limits:  s.o.Limits,
			Timeout: s.o.timeout(st),
			// Every stream of the run fits the reader's default limits.
			OutputLimit: OutputLimit(s.o.Repeat),
		}
		if st == rules.T1 {
			spec.Network = engine.NetworkOn
			spec.CACert = s.o.CACert
			if s.registry != "" {
				spec.Env["npm_config_registry"] = s.registry
			}
		}
		r.report(Event{Phase: PhaseStage, Repetition: rep, Stage: st})
		start := s.now()
		var res *engine.Result
		if st == rules.T4 {
			res, err = r.Engine.Observe(ctx, spec, s.o.Window)
		} else {
			res, err = r.Engine.Run(ctx, spec)
		}
		end := s.now()
		if err != nil {
			return nil, -1, nil, runErr(ctx, fmt.Sprintf("repetition %d %s", rep, st), err)
		}
		run := assemble.StageRun{
			Stage: st, Argv: spec.Argv, Network: spec.Network.String(),
			StartedAt: start, EndedAt: end, ExitCode: res.ExitCode, TimedOut: res.TimedOut,
			Stdout: res.Stdout, Stderr: res.Stderr, Merged: res.Merged,
		}
		if res.StdoutTruncated || res.StderrTruncated {
			n := fmt.Sprintf("repetition %d %s: output beyond the capture limit was dropped (stdout %v, stderr %v)", rep, st, res.StdoutTruncated, res.StderrTruncated)
			notes = append(notes, n)
			s.conditions = append(s.conditions, manifest.Condition{Name: fmt.Sprintf("repetition %d %s output truncated", rep, st), Value: n})
		}
		if st == rules.T1 {
			// DSHIO/T 20 6.4: the profile's package.json is an
			// observation of T1; 5.3.3 needs the installed size.
			if run.ProfilePackageJSON, err = readProfilePackageJSON(dir); err != nil {
				return nil, -1, nil, err
			}
			if size, err = installedSize(dir); err != nil {
				return nil, -1, nil, err
			}
		}
		if res.Liveness != nil {
			run.Liveness = &rules.Liveness{Window: res.Liveness.Window, AliveFor: res.Liveness.AliveFor, AliveAtEnd: res.Liveness.AliveAtEnd}
		}
		runs = append(runs, run)
		sr := s.derive(run)
		r.report(Event{Phase: PhaseStage, Repetition: rep, Stage: st, Done: true, Elapsed: end.Sub(start), Status: sr.Status, Verdict: sr.Verdict, Message: sr.FirstError})
		if sr.Status != rules.StagePassed {
			break // DSHIO/T 20 11.2: later stages are not executed
		}
	}
	if ctx.Err() != nil {
		return nil, -1, nil, ctx.Err()
	}
	return runs, size, notes, nil
}

// derive applies the stage's rule to one observation, as assemble and the
// verifier will.
func (s *sequence) derive(run assemble.StageRun) rules.StageResult {
	o := rules.Observation{
		Stage: run.Stage, ExitCode: run.ExitCode, TimedOut: run.TimedOut,
		Stdout: run.Stdout, Stderr: run.Stderr, Merged: run.Merged,
		ProfilePackageJSON: run.ProfilePackageJSON, Liveness: run.Liveness,
	}
	switch run.Stage {
	case rules.T1:
		return rules.DeriveT1(s.sub, o)
	case rules.T2:
		return rules.DeriveT2(s.sub, o)
	case rules.T3:
		return rules.DeriveT3(rules.MountTargets(s.sub, s.entries), o, rules.DefaultLimits()) // as assemble.Build and verify
	}
	return rules.DeriveT4(o, s.o.Window)
}
