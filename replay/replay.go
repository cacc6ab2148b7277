package replay

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/internal/owner"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/replay/compare"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/runner"
	"github.com/dshaudit/dshaudit/verify"
)

// Failure classes of a replay (SPEC.md "Replay").
var (
	// ErrNotVerified: the original did not verify and the override was
	// not given; nothing ran.
	ErrNotVerified = errors.New("original bundle does not verify")
	// ErrOriginal: the original cannot be read as a bundle at all.
	ErrOriginal = errors.New("original bundle unreadable")
	// ErrSubjectMismatch: the package obtained is not the recorded one.
	ErrSubjectMismatch = errors.New("package is not the recorded subject")
	// ErrPackageFile: a local subject needs --package-file.
	ErrPackageFile = errors.New("local package not given")
	// ErrCouldNotRun: the replay itself could not run (engine, image,
	// registry, disk); never a plugin result.
	ErrCouldNotRun = errors.New("replay could not run")
)

// Options say what to replay and how.
type Options struct {
	// Original is the path of the bundle to reproduce.
	Original string
	// Policy verifies the original (exactly one key or trusted root).
	Policy attest.Policy
	// UnverifiedUnsafe replays an original that does not verify; the
	// new bundle records that it did.
	UnverifiedUnsafe bool
	// ImageSource says where the recorded image digest is obtained.
	ImageSource engine.Source
	// PackageFile is the tarball or directory of a local subject.
	PackageFile string
	// Out is where the new bundle is written (atomically).
	Out string
	// Signer signs the new bundle (a key or keyless).
	Signer attest.BundleSigner
	// CACert is the host CA bundle T1 trusts ("" for none).
	CACert string
	// Tool names this program in the new bundle.
	Tool manifest.Tool
}

// Run verifies the original, re-runs its sequence under its recorded
// conditions with r, writes the new bundle and compares the two. An error
// wrapping ErrCouldNotRun means the environment stopped it; the returned
// Result then has Outcome CouldNotRun.
func Run(ctx context.Context, r runner.Runner, o Options) (*compare.Result, error) {
	raw, err := os.ReadFile(o.Original)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOriginal, err)
	}
	sum := sha256.Sum256(raw)
	res := &compare.Result{Original: o.Original, OriginalSHA256: "sha256:" + hex.EncodeToString(sum[:])}
	rep, err := verify.Verify(ctx, o.Original, bytes.NewReader(raw), verify.Options{Policy: o.Policy})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOriginal, err)
	}
	res.Verified = rep.OK()
	if !res.Verified && !o.UnverifiedUnsafe {
		return res, fmt.Errorf("%w: %s (%d finding(s)); nothing was run", ErrNotVerified, rep.Status, len(rep.Findings))
	}
	res.Unsafe = !res.Verified
	arc, err := bundle.Read(bytes.NewReader(raw), bundle.DefaultLimits())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOriginal, err)
	}
	old, err := manifest.Decode(arc.RawManifest)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOriginal, err)
	}
	// A local subject is the tarball the bundle holds, unless the user
	// gives one: a year-old replay needs no copy of the package.
	if o.PackageFile == "" && old.Subject.Source != runner.SourceRegistry && old.Dynamic {
		if tgz, ok := arc.Files[old.Static.Evidence[manifest.RoleTarball]]; ok {
			file, err := heldTarball(old, tgz, r.TempDir)
			if err != nil {
				return nil, err
			}
			defer os.RemoveAll(filepath.Dir(file))
			o.PackageFile = file
		}
	}
	ro, err := runOptions(old, o)
	if err != nil {
		return nil, err
	}

	// The package must be the recorded subject, byte for byte.
	resolve := r.Resolve
	r.Resolve = func(ctx context.Context, spec string) (*runner.Package, error) {
		p, err := resolve(ctx, spec)
		if err != nil {
			return nil, err
		}
		if p.Name != old.Subject.Name || p.Version != old.Subject.Version || (old.Subject.Integrity != "" && p.Integrity != old.Subject.Integrity) ||
			(old.Subject.TarballSHA256 != "" && p.TarballSHA256 != old.Subject.TarballSHA256) {
			return nil, fmt.Errorf("%w: got %s@%s (%s), the original tested %s@%s (%s)", ErrSubjectMismatch,
				p.Name, p.Version, p.Integrity, old.Subject.Name, old.Subject.Version, old.Subject.Integrity)
		}
		return p, nil
	}
	out, err := r.Run(ctx, ro)
	if err != nil {
		if errors.Is(err, runner.ErrEnvironment) {
			res.Outcome, res.Why = compare.CouldNotRun, err.Error()
			return res, fmt.Errorf("%w: %w", ErrCouldNotRun, err)
		}
		return res, err
	}
	// Name the original in the new bundle, and the override if used.
	out.Input.Conditions.Variable = append(out.Input.Conditions.Variable, manifest.Condition{Name: compare.ConditionReplayOf, Value: res.OriginalSHA256})
	if res.Unsafe {
		out.Input.Conditions.Variable = append(out.Input.Conditions.Variable, manifest.Condition{Name: compare.ConditionReplayOfUnverified, Value: string(rep.Status)})
	}
	if out.Manifest, out.Files, err = assemble.Build(out.Input); err != nil {
		return res, err
	}
	w, err := runner.WriteBundle(ctx, o.Out, out, o.Signer)
	if err != nil {
		if errors.Is(err, runner.ErrEnvironment) {
			res.Outcome, res.Why = compare.CouldNotRun, err.Error()
			return res, fmt.Errorf("%w: %w", ErrCouldNotRun, err)
		}
		return res, err
	}
	res.Written = w
	c := compare.Compare(compare.Side{Manifest: old, Files: arc.Files}, compare.Side{Manifest: out.Manifest, Files: out.Files})
	res.Comparison, res.Outcome = &c, c.Outcome
	return res, nil
}

// runOptions rebuilds the runner options the original recorded.
func runOptions(m *manifest.Manifest, o Options) (runner.Options, error) {
	ro := runner.Options{
		Image:       m.Image.Name + "@" + m.Image.Digest,
		ImageSource: o.ImageSource,
		Repeat:      m.Settings.Repeat,
		Baseline:    m.Baseline,
		Window:      time.Duration(m.Settings.ObservationWindowMS) * time.Millisecond,
		Tool:        o.Tool,
		CACert:      o.CACert,
		Timeouts: runner.Timeouts{
			T1: ms(m.Settings.TimeoutsMS["T1"]), T2: ms(m.Settings.TimeoutsMS["T2"]),
			T3: ms(m.Settings.TimeoutsMS["T3"]), T4: ms(m.Settings.TimeoutsMS["T4"]),
		},
	}
	if !m.Dynamic {
		return ro, fmt.Errorf("%w: the original ran the static layer only; there is no sequence to replay", ErrOriginal)
	}
	switch m.Subject.Source {
	case runner.SourceRegistry:
		ro.Spec = m.Subject.Name + "@" + m.Subject.Version
	default:
		if o.PackageFile == "" {
			return ro, fmt.Errorf("%w: the original tested a %s (%s@%s, sha256 %s) that the bundle does not hold (written before specification version 1.15); give it with --package-file",
				ErrPackageFile, m.Subject.Source, m.Subject.Name, m.Subject.Version, m.Subject.TarballSHA256)
		}
		ro.Spec = o.PackageFile
	}
	for _, rep := range m.Repetitions {
		for _, st := range rep.Stages {
			switch rules.Stage(st.Stage) {
			case rules.T1:
				ro.T1WorkspaceRoot = ro.T1WorkspaceRoot || slices.Contains(st.Argv, "-w")
			case rules.T4:
				ro.T4NoOpen = ro.T4NoOpen || slices.Contains(st.Argv, "--no-open")
			}
		}
	}
	// A deviation records the command even when the stage never ran.
	for _, d := range m.Deviations {
		switch d.What {
		case assemble.DeviationCommand(rules.T1):
			ro.T1WorkspaceRoot = ro.T1WorkspaceRoot || bytes.Contains([]byte(d.ChangedTo), []byte(" -w"))
		case assemble.DeviationCommand(rules.T4):
			ro.T4NoOpen = ro.T4NoOpen || bytes.Contains([]byte(d.ChangedTo), []byte("--no-open"))
		}
	}
	return ro, nil
}

func ms(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

// heldTarball writes the tarball the original holds, under its npm pack
// name, into a fresh directory the caller removes, and returns the
// file's path.
func heldTarball(m *manifest.Manifest, tgz []byte, tmp string) (string, error) {
	name, err := runner.TarballFileName(m.Subject.Name, m.Subject.Version)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrOriginal, err)
	}
	// The runner's prefix and owner token: a sweep removes what a killed
	// replay left (DESIGN.md "Leftovers of a killed run").
	dir, err := owner.MkdirTemp(tmp, runner.TempPrefixPackage)
	if err != nil {
		return "", fmt.Errorf("%w: held tarball: %w", runner.ErrEnvironment, err)
	}
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, tgz, 0o644); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("%w: held tarball: %w", runner.ErrEnvironment, err)
	}
	return file, nil
}
