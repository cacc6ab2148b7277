package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/runner"
)

// runOptions are the flags of `dshaudit run`.
type runOptions struct {
	Spec            string
	Image           string
	ImageArchive    string
	ImageLayout     string
	Pull            bool
	InsecureLoop    bool
	Sign            signFlags
	Out             string
	Repeat          int
	Baseline        string
	T1WorkspaceRoot bool
	T4NoOpen        bool
	TimeoutT1       time.Duration
	TimeoutT2       time.Duration
	TimeoutT3       time.Duration
	TimeoutT4       time.Duration
	Window          time.Duration
	JSON            bool
	sandboxFlags
}

func newRunCmd(s *streams) *cobra.Command {
	o := &runOptions{}
	c := &cobra.Command{
		Use:   "run PACKAGE-SPEC --image NAME@sha256:DIGEST (--signing-key KEY | --keyless) [flags]",
		Short: "Run T0–T4 for real and write a signed evidence bundle",
		Long: `run tests one DSH plugin as DSHIO/T 20 describes, under the conditions of
DSHIO/T 21, and writes everything it observed into a signed, deterministic
evidence bundle that "dshaudit verify" checks offline (DESIGN.md "Running
a test").

PACKAGE-SPEC is an npm name with an optional version, range or dist-tag
(name, name@1.2.3, name@^1.2, @scope/name@latest), or a local tarball or
directory (./plugin, ./plugin-1.0.0.tgz) for testing before publishing.
The bundle names the exact version tested (DSHIO/T 10 7.2).

  T0  registry metadata, the patch from a public CDN (or the tarball,
      recorded), the clause checks; a critical non-conformance is a warning
      and never stops T1–T4 (DSHIO/T 20 5.6)
  T1  dsh plugin --profile web add <spec>       network on
  T2  dsh plugin --profile web list             network none
  T3  dsh --profile web --dump-config           network none
  T4  dsh --profile web, observed for 12 s      network none

The bundle is signed with --signing-key, or with --keyless by a
short-lived Fulcio certificate for the job's OIDC identity, timestamped
and logged (SPEC.md "Signature"): the token from --identity-token FILE,
$SIGSTORE_ID_TOKEN or the GitHub Actions token request, fetched when the
bundle is signed; the services from --signing-config or --fulcio-url,
--timestamp-url, --rekor-url (default: the Sigstore public-good instance).

Each command runs in a fresh container of the image pinned by digest, with
a fresh empty profile per repetition; the sequence stops at the first
failing stage and runs --repeat times (default 2; differing verdicts give
"unstable"). The fingerprint is built from the dsh, node and pnpm versions
read inside the image. Every deviation from a fixed condition is recorded
item by item and makes the result unusable for certification.

dsh 0.1.0-rc.8 fails every T1 with ERR_PNPM_ADDING_TO_ROOT unless -w is
added: --t1-workspace-root adds it and records the changed T1 command as a
deviation. It is never added silently.

Progress goes to stderr when it is a terminal; the summary (stage tables,
T0 clauses, fingerprint, deviations, overall verdict, the DSHIO/T 10 8.1
declaration with the bundle digest) goes to stdout, or with --json the
object ` + runner.SummaryMediaType + `.

Exit codes:
  0    bundle written, overall verdict pass
  1    bundle written, verdict not pass or unstable; or T0 unresolvable
       (unknown package or version: no bundle)
  2    usage error (bad flags, image not pinned by digest, bad key, no
       identity token or signing service for --keyless)
  3    could not run: engine or image missing, registry unreachable, disk
       full, a Sigstore service refused to sign; no bundle
  130  interrupted: no bundle, no container, no temporary file left`,
		Example: `  # a local plugin directory, with the -w deviation dsh 0.1.0-rc.8 needs
  dshaudit run ./my-plugin --image dsh-sandbox:1@sha256:… --signing-key dshaudit.key \
      --t1-workspace-root

  # a published version, one repetition (recorded as a deviation)
  dshaudit run my-plugin@1.2.3 --image dsh-sandbox:1@sha256:… --signing-key k.pem \
      --t1-workspace-root --repeat 1 --out my-plugin.dshaudit.tar.zst --json

  # keyless, in a GitHub Actions job with permissions id-token: write
  dshaudit run my-plugin@1.2.3 --image dsh-sandbox:1@sha256:… --keyless \
      --t1-workspace-root`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("%w: want exactly one PACKAGE-SPEC, got %d arguments", ErrUsage, len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Spec = args[0]
			return runRun(cmd.Context(), o, s)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Image, "image", "", "sandbox image NAME[:TAG]@sha256:DIGEST (required; a tag alone is refused)")
	o.Sign.register(f, "private signing key (PKCS #8 PEM, see dshaudit key generate) (required unless --keyless)")
	o.Sign.registerLegacyKey(f)
	f.StringVar(&o.Out, "out", "", "bundle file (default <name>-<version>"+manifest.BundleSuffix+" in the current directory)")
	f.BoolVar(&o.JSON, "json", false, "print the result object ("+runner.SummaryMediaType+") instead of the text summary")
	o.registerConditionFlags(f)
	o.sandboxFlags.register(f)
	return c
}

// registerConditionFlags registers the flags that set how a run is made
// (image source, repetitions, commands, time limits). `dshaudit batch`
// registers the same ones and hands those given to each task's run.
func (o *runOptions) registerConditionFlags(f *pflag.FlagSet) {
	f.StringVar(&o.ImageArchive, "image-archive", "", "load the image from this OCI archive (checked against the digest)")
	f.StringVar(&o.ImageLayout, "image-layout", "", "load the image from this OCI layout directory (checked against the digest)")
	f.BoolVar(&o.Pull, "pull", false, "pull the image by digest from its registry if the engine lacks it")
	f.BoolVar(&o.InsecureLoop, "insecure-loopback-registry", false, "with --pull: allow plain HTTP to a registry on a loopback address")
	f.IntVar(&o.Repeat, "repeat", runner.DefaultRepeat, "how many times the T1–T4 sequence runs (DSHIO/T 21 5.1.9; any value but 2 is a recorded deviation)")
	f.StringVar(&o.Baseline, "baseline", "", "DSH baseline version (default 0.2.2-rc.1, DSHIO/T 21 5.1.1; another value is a recorded deviation)")
	f.BoolVar(&o.T1WorkspaceRoot, "t1-workspace-root", false, "add -w to the T1 command (dsh 0.1.0-rc.8 needs it); recorded as a T1 command deviation")
	f.BoolVar(&o.T4NoOpen, "t4-no-open", false, "add --no-open to the T4 command; recorded as a T4 command deviation (not needed: the verbatim command boots in a container)")
	f.DurationVar(&o.TimeoutT1, "timeout-t1", runner.DefaultTimeoutT1, "T1 time limit (a timeout is install_failed)")
	f.DurationVar(&o.TimeoutT2, "timeout-t2", runner.DefaultTimeoutT2, "T2 time limit")
	f.DurationVar(&o.TimeoutT3, "timeout-t3", runner.DefaultTimeoutT3, "T3 time limit (a timeout is config_failed)")
	f.DurationVar(&o.TimeoutT4, "timeout-t4", 0, "T4 time limit (default: the window + 30s; a timeout is boot_failed)")
	f.DurationVar(&o.Window, "window", runner.DefaultWindow, "T4 liveness window (DSHIO/T 21 5.1.6; any value but 12s is a recorded deviation)")
}

// imageSource is where EnsureImage gets the image.
func (o *runOptions) imageSource() (engine.Source, error) {
	n := 0
	src := engine.FromStore()
	if o.ImageArchive != "" {
		n++
		src = engine.FromOCIArchive(o.ImageArchive)
	}
	if o.ImageLayout != "" {
		n++
		src = engine.FromOCILayout(o.ImageLayout)
	}
	if o.Pull {
		n++
		src = engine.FromRegistry(o.InsecureLoop)
	}
	if n > 1 {
		return src, fmt.Errorf("%w: give at most one of --image-archive, --image-layout, --pull", ErrUsage)
	}
	if o.InsecureLoop && !o.Pull {
		return src, fmt.Errorf("%w: --insecure-loopback-registry needs --pull", ErrUsage)
	}
	return src, nil
}

// checkOutDir fails early, before minutes of testing, when the bundle
// could not be written where asked.
func checkOutDir(path string) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".dshaudit-probe-*")
	if err != nil {
		return fmt.Errorf("%w: --out %q: directory not writable: %w", ErrUsage, path, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

func runRun(ctx context.Context, o *runOptions, s *streams) error {
	if o.Image == "" {
		return fmt.Errorf("%w: --image NAME@sha256:DIGEST is required", ErrUsage)
	}
	if _, err := engine.ParsePinned(o.Image); err != nil {
		return fmt.Errorf("%w: --image: %w (DSHIO/T 21 5.1.2: a tag can be overwritten, a digest cannot)", ErrUsage, err)
	}
	signer, err := o.Sign.signer(ctx, s.ErrOut)
	if err != nil {
		return err
	}
	src, err := o.imageSource()
	if err != nil {
		return err
	}
	showProgress, err := o.progressOn(s.ErrOut)
	if err != nil {
		return err
	}
	if o.Out != "" {
		if err := checkOutDir(o.Out); err != nil {
			return err
		}
	} else if err := checkOutDir(filepath.Join(".", "x")); err != nil {
		return err
	}

	// One run at a time per bundle path (DESIGN.md "Two runs, one
	// --out"): a given --out is held from the start, a default name from
	// the moment T0 knows it.
	var lock *runner.OutLock
	defer func() { lock.Release() }()
	if o.Out != "" {
		if lock, err = runner.LockOut(o.Out); err != nil {
			return fmt.Errorf("%w: %w", ErrCouldNotRun, err)
		}
	}

	r, err := o.newRunner(ctx, showProgress, s)
	if err != nil {
		return err
	}
	if o.Out == "" {
		r.Resolved = func(name, ver string) (err error) {
			lock, err = runner.LockOut(runner.DefaultOutName(name, ver))
			return err
		}
	}
	res, err := r.Run(ctx, runner.Options{
		Spec: o.Spec, Image: o.Image, ImageSource: src, Repeat: o.Repeat, Baseline: o.Baseline,
		T1WorkspaceRoot: o.T1WorkspaceRoot, T4NoOpen: o.T4NoOpen, Window: o.Window,
		Timeouts: runner.Timeouts{T1: o.TimeoutT1, T2: o.TimeoutT2, T3: o.TimeoutT3, T4: o.TimeoutT4},
		CACert:   o.caCert(),
		Tool:     manifest.Tool{Name: "dshaudit", Version: version},
	})
	if err != nil {
		return classifyRunErr(ctx, err, s)
	}
	out := o.Out
	if out == "" {
		out = runner.DefaultOutName(res.Manifest.Subject.Name, res.Manifest.Subject.Version)
	}
	w, err := runner.WriteBundle(ctx, out, res, signer)
	if err != nil {
		return classifyRunErr(ctx, err, s)
	}
	sum := runner.Summarize(res, w)
	if o.JSON {
		if err := writeJSON(s.Out, sum); err != nil {
			return err
		}
	} else if err := printRunSummary(s.Out, s.style(), sum); err != nil {
		return err
	}
	if sum.Verdict != string(rules.Pass) {
		return silentError{fmt.Errorf("%w: overall verdict %s", ErrFindings, sum.Verdict)}
	}
	return nil
}

// classifyRunErr maps a runner error to the exit code classes.
func classifyRunErr(ctx context.Context, err error, s *streams) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("interrupted; no bundle written, no container left: %w", ctx.Err())
	case errors.Is(err, runner.ErrOptions):
		return fmt.Errorf("%w: %w", ErrUsage, err)
	case errors.Is(err, runner.ErrEnvironment), errors.Is(err, runner.ErrOutBusy):
		return fmt.Errorf("%w: %w", ErrCouldNotRun, err)
	case errors.Is(err, runner.ErrUnresolvable):
		fmt.Fprintf(s.ErrOut, "dshaudit: T0: unresolvable (DSHIO/T 20 5.5): %s\n", termtext.Field(err.Error(), s.Text.MaxText))
		fmt.Fprintln(s.ErrOut, "dshaudit: no package to install, so T1–T4 did not run and no bundle was written")
		return silentError{fmt.Errorf("%w: %w", ErrFindings, err)}
	}
	return fmt.Errorf("%w: %w", ErrCouldNotRun, err)
}

func progressLine(since time.Duration, e runner.Event) string {
	ts := fmt.Sprintf("[%6.1fs]", since.Seconds())
	switch {
	case e.Phase == runner.PhaseStage && !e.Done:
		return fmt.Sprintf("%s repetition %d %s …", ts, e.Repetition, e.Stage)
	case e.Phase == runner.PhaseStage:
		v := string(e.Status)
		if e.Verdict != "" {
			v += " " + string(e.Verdict)
		}
		return fmt.Sprintf("%s repetition %d %s %s (%.1fs)", ts, e.Repetition, e.Stage, v, e.Elapsed.Seconds())
	case !e.Done:
		return fmt.Sprintf("%s %s %s …", ts, e.Phase, e.Message)
	}
	return fmt.Sprintf("%s %s done (%.1fs) %s", ts, e.Phase, e.Elapsed.Seconds(), e.Message)
}
