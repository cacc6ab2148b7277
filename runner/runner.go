package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/rules/static"

	"github.com/dshaudit/dshaudit/internal/owner"
)

// Runner runs tests. Engine and Resolve are required; Clock defaults to
// time.Now. A Runner holds no state between runs.
type Runner struct {
	Engine  engine.Engine
	Resolve Resolver
	// Clock stamps every stage's start and end (and so its duration).
	Clock func() time.Time
	// Progress, if set, receives an Event as each step starts and ends.
	Progress func(Event)
	// TempDir is where the per-repetition profile directories and the
	// local package directory are made ("" means os.TempDir()). Every
	// directory made is removed before Run returns, on every path.
	TempDir string
	// Resolved, if set, is called once T0 knows the package's exact name
	// and version, before the first sandbox stage; an error it returns
	// stops the run (the command takes the lock of a default bundle
	// name there, DESIGN.md "Two runs, one --out").
	Resolved func(name, version string) error
	// Kernel returns the host kernel release for the variable conditions
	// (default: /proc/sys/kernel/osrelease).
	Kernel func() string
}

// Result is a completed run: what was observed, and the manifest and
// evidence files assemble.Build made of it, ready for WriteBundle.
type Result struct {
	Input    assemble.Input
	Manifest *manifest.Manifest
	Files    map[string][]byte
	// Warnings are what the user should see (T0's DSHIO/T 20 5.6
	// warning, discrepancies found while fetching, truncated output).
	Warnings []string
}

// Run runs T0 and then the T1–T4 sequence o.Repeat times (DESIGN.md
// "Running a test"). It returns an error wrapping ErrOptions,
// ErrUnresolvable, ErrEnvironment, ErrEvidence or the context's error;
// then no container and no temporary directory is left.
func (r *Runner) Run(ctx context.Context, o Options) (*Result, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	if r.Engine == nil || r.Resolve == nil {
		return nil, fmt.Errorf("%w: runner needs an engine and a resolver", ErrOptions)
	}
	if o.CACert != "" {
		if st, err := os.Stat(o.CACert); err != nil || !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%w: CA bundle %q is not a readable file", ErrOptions, o.CACert)
		}
	}
	now := r.Clock
	if now == nil {
		now = time.Now
	}
	pinned, _ := engine.ParsePinned(o.Image) // validated above
	started := now()
	loadAtStart := hostLoad()
	var warnings []string
	warn := func(msg string) {
		warnings = append(warnings, msg)
		r.report(Event{Phase: PhaseWarning, Message: msg})
	}

	// The engine and the image, pinned by digest (DSHIO/T 21 5.1.2),
	// are checked first, so that a missing image or engine costs no
	// fetching.
	t0 := now()
	r.report(Event{Phase: PhaseImage, Message: o.Image})
	engineVersion, err := r.Engine.Version(ctx)
	if err != nil {
		return nil, runErr(ctx, "container engine", err)
	}
	img, err := r.Engine.EnsureImage(ctx, o.Image, o.ImageSource)
	if err != nil {
		return nil, runErr(ctx, "image "+o.Image, err)
	}
	r.report(Event{Phase: PhaseImage, Done: true, Elapsed: now().Sub(t0), Message: img.Digest})

	// T0 (DSHIO/T 20 5): fetch, then the clause checks. T0 never stops
	// T1–T4 (5.6); a critical non-conformance is a warning.
	t0 = now()
	r.report(Event{Phase: PhaseStatic, Message: o.Spec})
	pkg, err := r.Resolve(ctx, o.Spec)
	if err != nil {
		return nil, err
	}
	if err := pkg.validate(); err != nil {
		return nil, err
	}
	installSpec, err := pkg.installSpec()
	if err != nil {
		return nil, err
	}
	for _, w := range pkg.Warnings {
		warn(w)
	}
	pre := static.Check(static.Input{PackageJSON: pkg.Metadata, Patch: pkg.Patch, PatchFetchError: pkg.PatchFetchError,
		README: pkg.README, Baseline: o.Baseline, InstalledSize: -1})
	for _, w := range pre.Warnings {
		warn(w)
	}
	r.report(Event{Phase: PhaseStatic, Done: true, Elapsed: now().Sub(t0), Message: pkg.Name + "@" + pkg.Version})
	if r.Resolved != nil {
		if err := r.Resolved(pkg.Name, pkg.Version); err != nil {
			return nil, err
		}
	}

	// The versions inside the image the fingerprint is built from
	// (DSHIO/T 21 5.2), once the package is known to exist.
	t0 = now()
	r.report(Event{Phase: PhaseVersions})
	versions, err := r.observeVersions(ctx, o, img.ID)
	if err != nil {
		return nil, err
	}
	fp, err := fingerprint(versions, pinned, o)
	if err != nil {
		return nil, err
	}
	r.report(Event{Phase: PhaseVersions, Done: true, Elapsed: now().Sub(t0), Message: fp.String()})
	entryDecl, err := r.observeEntryDeclaration(ctx, o, img.ID)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}

	seq := sequence{
		o: o, imageID: img.ID, installSpec: installSpec, now: now,
		sub: rules.Subject{Name: pkg.Name, Version: pkg.Version},
	}
	seq.entries, _ = rules.InsertEntries(pkg.Patch, rules.Limits{}) // no entries: T3 cannot find any (SPEC.md "T3 mount")
	if pkg.isLocal() {
		dir, err := r.packageDir(pkg)
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		seq.pkgDir = dir
	} else if pkg.Registry != "" {
		seq.registry = pkg.Registry
	}

	size := int64(-1)
	reps := make([][]assemble.StageRun, 0, o.Repeat)
	for i := 1; i <= o.Repeat; i++ {
		runs, sz, trunc, err := r.repetition(ctx, &seq, i)
		if err != nil {
			return nil, err
		}
		for _, t := range trunc {
			warn(t)
		}
		if size < 0 && sz >= 0 {
			size = sz // the first repetition whose T1 left a node_modules
		}
		reps = append(reps, runs)
	}
	finished := now()
	seq.conditions = append(seq.conditions,
		manifest.Condition{Name: "host CPUs", Value: strconv.Itoa(runtime.NumCPU())},
		manifest.Condition{Name: "host load average (1, 5, 15 min) at start", Value: loadAtStart},
		manifest.Condition{Name: "host load average (1, 5, 15 min) at end", Value: hostLoad()})
	if seq.registry != "" {
		seq.conditions = append(seq.conditions, manifest.Condition{Name: "T1 registry", Value: seq.registry + " (npm_config_registry, the registry T0 used)"})
	} else {
		seq.conditions = append(seq.conditions, manifest.Condition{Name: "T1 registry", Value: "pnpm's default in the image (for the local package's dependencies)"})
	}

	kernel := r.Kernel
	if kernel == nil {
		kernel = hostKernel
	}
	in := assemble.Input{
		Tool: o.Tool,
		Subject: manifest.Subject{
			Name: pkg.Name, Version: pkg.Version, Spec: installSpec, Source: pkg.Source,
			Integrity: pkg.Integrity, TarballSHA256: pkg.TarballSHA256,
		},
		Baseline:    o.Baseline,
		Fingerprint: fp.String(),
		Image:       manifest.Image{Name: fp.ImageName, Digest: fp.ImageDigest},
		Conditions: manifest.Conditions{
			Fixed:    fixedConditions(o, fp.DSH, pinned.Original, installSpec),
			Variable: append(variableConditions(o, pkg, r.Engine.Name(), engineVersion, kernel()), seq.conditions...),
		},
		Deviations: deviations(o, fp.DSH, installSpec),
		Settings: manifest.Settings{
			ObservationWindowMS: o.Window.Milliseconds(),
			TimeoutsMS:          timeoutsMS(o),
			Repeat:              o.Repeat,
		},
		StartedAt:  started,
		FinishedAt: finished,
		Static: assemble.StaticInput{
			Metadata: pkg.Metadata, Patch: pkg.Patch, PatchFetchError: pkg.PatchFetchError,
			README: pkg.README, InstalledSize: size, EntryDeclaration: entryDecl,
			Tarball: pkg.Tarball,
		},
		Versions:    versions,
		Dynamic:     true,
		Repetitions: reps,
	}
	m, files, err := assemble.Build(in)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEvidence, err)
	}
	return &Result{Input: in, Manifest: m, Files: files, Warnings: warnings}, nil
}

// packageDir writes a local package's tarball under its npm pack name
// into a fresh directory, to be mounted read-only at PackageMount.
func (r *Runner) packageDir(pkg *Package) (string, error) {
	name, err := TarballFileName(pkg.Name, pkg.Version)
	if err != nil {
		return "", err
	}
	dir, err := owner.MkdirTemp(r.TempDir, TempPrefixPackage)
	if err != nil {
		return "", fmt.Errorf("%w: package directory: %w", ErrEnvironment, err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("%w: package directory: %w", ErrEnvironment, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), pkg.Tarball, 0o644); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("%w: write package tarball: %w", ErrEnvironment, err)
	}
	return dir, nil
}

// hostLoad is the host's load average, recorded because T4's 12-second
// window is sensitive to CPU starvation: on an oversubscribed host dsh can
// take longer than the window to print its startup line.
func hostLoad() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func hostKernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
