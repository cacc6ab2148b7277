package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/batch"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/pkgsource"
	"github.com/dshaudit/dshaudit/report"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/verify"
)

// batchOptions are the flags of `dshaudit batch`.
type batchOptions struct {
	Args     []string
	Image    string
	Sign     signFlags
	Out      string
	On       string
	Parallel int
	Retries  int
	Backoff  time.Duration
	Poll     time.Duration
	// Slurm engine settings.
	SlurmMem  string
	SlurmCPUs int
	SbatchArg []string
	// TaskDshaudit is the dshaudit executable the tasks run.
	TaskDshaudit string
	// Report, when set, is the directory that gets dshaudit report's
	// site of the output directory: index.html and a page per bundle.
	Report string
	JSON   bool
	// Run holds the run flags (registerConditionFlags, sandbox flags);
	// runFlags is their set, to hand each task the ones given.
	Run      runOptions
	runFlags *pflag.FlagSet
	// Trust is verify's trust policy, with verify's flags: it checks
	// every bundle batch finds in DIR (to skip its spec) and every one
	// a task writes. With --signing-key it defaults to the key's public
	// half; a --key given must be that half. With --keyless it is
	// --trusted-root and the identity rule.
	Trust trustFlags
}

// BatchMediaType identifies the --json object of `dshaudit batch`.
const BatchMediaType = "application/vnd.dshaudit.batch-result.v1+json"

// batchResult is batch --json (schema/batch-result.schema.json).
type batchResult struct {
	MediaType     string          `json:"media_type"`
	SchemaVersion int             `json:"schema_version"`
	Engine        string          `json:"engine"`
	Image         string          `json:"image"`
	Dir           string          `json:"dir"`
	Tasks         []batch.Outcome `json:"tasks"`
	Summary       verify.Summary  `json:"summary"`
	Bundles       []verify.Item   `json:"bundles"`
}

func newBatchCmd(s *streams) *cobra.Command { return batchCommand(&batchOptions{}, s) }

// batchCommand builds the command around o.
func batchCommand(o *batchOptions, s *streams) *cobra.Command {
	c := &cobra.Command{
		Use:   "batch PLAN|SPEC... --image NAME@sha256:DIGEST --signing-key KEY --out DIR [--on local|slurm] [flags]",
		Short: "Run many plugins on Slurm or locally, resumably, and verify what comes back",
		Long: `batch runs an ordinary "dshaudit run" for every package spec of a plan, on
Slurm (one array job, one task per spec) or on this machine, writes each
signed bundle atomically into DIR, verifies every bundle that comes back, and
ends with the summary "dshaudit verify DIR" prints (counts by verdict code,
compare DSHIO/T 20 Annex B). DESIGN.md "Batch runs"; docs/batch.md.

PLAN is a file (or - for stdin) with one PACKAGE-SPEC a line, as
"dshaudit run" takes them; blank lines and # comments are skipped. Specs may
instead be given on the command line. A single argument that names an
existing file other than a package tarball is a plan.

Each spec is first resolved to its exact name@version (registry metadata,
or the local package.json); its bundle is DIR/<name>-<version>.img-<first
12 hex digits of the image digest>.dshaudit.tar.zst. A registry spec runs
as that exact name@version, a local one by its absolute path, which must be
the same on every node (shared storage).

Resumable: a spec whose bundle is already in DIR and verifies is not run
again. batch verifies the bundles it finds in DIR, and those its tasks
write, with the code and the trust flags of "dshaudit verify" (signature,
files, verdicts re-derived; and the same package, the same image digest):
with --signing-key, by the key's public half (--key PUB, when given, must
be that half); with --keyless, by --trusted-root and the identity rule
(--certificate-identity[-regexp], --certificate-oidc-issuer[-regexp], or
--insecure-any-identity). "dshaudit verify DIR" with the same trust flags
prints what batch's summary prints.

--keyless: every task signs its bundle with a Fulcio certificate for the
OIDC identity (SPEC.md "Signature"), each fetching its token when it signs
(--identity-token FILE, $SIGSTORE_ID_TOKEN, or the GitHub Actions token
request, all handed to the tasks); --trusted-root with
--certificate-identity and --certificate-oidc-issuer verifies what comes
back. A task that fails (exit 3, killed, cancelled,
lost with its node, a bundle that does not verify) is retried up to
--retries times, the wait doubling from --retry-backoff. Ctrl-C cancels the
job (scancel) and waits for its tasks to stop: no half-written bundle.

--on slurm submits "sbatch --parsable --array=0-N%K -c 1 --mem=…" with
DIR/.dshaudit-batch/<attempt>/task.sh; every task pre-flights its node
(the container engine, the dshaudit executable; the image by digest is the
run's first step) and fails with exit 3 saying why. Results come from the
exit codes the tasks write and the bundles, never from sacct. --on local
runs the same task script, --parallel at once (default: half the CPUs,
so that T4's 12 s window is not starved).

Every flag of "dshaudit run" that sets how a run is made (--repeat,
--t1-workspace-root, --window, --timeout-*, --image-archive, --pull,
--registry, --ca-cert, --engine, --temp-dir, …) is passed to each task.

Progress (submitted, queued, running with the engine's own state, done,
failed) goes to stderr; the per-spec table and the verify summary to
stdout, or with --json the object ` + BatchMediaType + `.
--report SITE also writes what "dshaudit report DIR -o SITE" writes: an
index page with the distribution of verdicts and one page per bundle.

Exit codes:
  0    every spec has a verified bundle, every verdict pass
  1    every spec finished, but a verdict is not pass, a spec is
       unresolvable, or a bundle in DIR does not verify
  2    usage error: bad flags, a plan line that is not a spec (named by
       line number), image not pinned by digest, unreadable key
  3    could not run: Slurm unreachable, engine or image missing (local),
       registry unreachable, or a task still failed after its retries
  130  interrupted: the job is cancelled, nothing half-written is left`,
		Example: `  # a plan on the local Slurm cluster, fixtures with the -w deviation
  dshaudit batch plan.txt --on slurm --image localhost/dsh-sandbox:0.1.0-rc.8@sha256:… \
      --signing-key dshaudit.key --out bundles/ --t1-workspace-root

  # the same specs on this machine, given on the command line
  dshaudit batch ./plugin-a ./plugin-b hello-dsh-plugin@^1 --on local \
      --image dsh-sandbox@sha256:… --signing-key k.pem --out bundles/ --t1-workspace-root

  # keyless, from a GitHub Actions job with id-token: write
  dshaudit batch plan.txt --on local --image … --keyless --out bundles/ \
      --trusted-root trusted_root.json --certificate-oidc-issuer https://token.actions.githubusercontent.com \
      --certificate-identity https://github.com/OWNER/REPO/.github/workflows/audit.yml@refs/heads/main

  # run it again: only specs without a verified bundle run; --key pins the
  # public key that the bundles in bundles/ must verify with
  dshaudit batch plan.txt --on slurm --image … --signing-key k.pem --key k.pub --out bundles/ --t1-workspace-root

  # check the outputs later, anywhere, with the same trust flags
  dshaudit verify bundles/ --key k.pub`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Args = args
			return runBatch(cmd, o, s)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Image, "image", "", "sandbox image NAME[:TAG]@sha256:DIGEST (required)")
	o.Sign.register(f, "private signing key every task signs with (required unless --keyless; its public half verifies the bundles)")
	o.Trust.register(f)
	f.StringVar(&o.Out, "out", "", "directory for the bundles, on storage every node shares (required)")
	f.StringVar(&o.On, "on", "local", "engine: local (processes on this machine) or slurm (one array job)")
	f.IntVar(&o.Parallel, "parallel", 0, "tasks at once (local default: half the CPUs; slurm: the array's %K, default unlimited)")
	f.IntVar(&o.Retries, "retries", batch.DefaultRetries, "how many more attempts a failed task gets")
	f.DurationVar(&o.Backoff, "retry-backoff", batch.DefaultBackoff, "wait before the first retry, doubled for each further one")
	f.DurationVar(&o.Poll, "poll", batch.DefaultPoll, "how often the engine's state and the tasks' exit codes are read")
	f.StringVar(&o.SlurmMem, "slurm-mem", batch.DefaultSlurmMem, "slurm: each task's --mem")
	f.IntVar(&o.SlurmCPUs, "slurm-cpus", 1, "slurm: each task's -c (a run's containers use one CPU)")
	f.StringArrayVar(&o.SbatchArg, "sbatch-arg", nil, "slurm: one more sbatch argument, e.g. --sbatch-arg=--partition=audit (repeatable)")
	f.StringVar(&o.TaskDshaudit, "task-dshaudit", "", "the dshaudit executable the tasks run (default: this one; must exist on every node)")
	f.StringVar(&o.Report, "report", "", "also write dshaudit report's site of DIR here: index.html and one page per bundle")
	f.BoolVar(&o.JSON, "json", false, "print the result object ("+BatchMediaType+")")
	o.runFlags = pflag.NewFlagSet("run", pflag.ContinueOnError)
	o.Run.registerConditionFlags(o.runFlags)
	o.Run.sandboxFlags.registerEnv(o.runFlags)
	f.AddFlagSet(o.runFlags)
	return c
}

// entries reads the plan file or the specs given.
func (o *batchOptions) entries(stdin io.Reader) ([]batch.Entry, error) {
	if len(o.Args) == 1 {
		a := o.Args[0]
		if a == "-" {
			return batch.ParsePlan(stdin, "stdin")
		}
		if st, err := os.Stat(a); err == nil && st.Mode().IsRegular() {
			if sp, err := pkgsource.ParseSpec(a); err != nil || sp.Source != pkgsource.SourceLocalTarball {
				f, err := os.Open(a)
				if err != nil {
					return nil, err
				}
				defer f.Close()
				return batch.ParsePlan(f, a)
			}
		}
	}
	return batch.ParseArgs(o.Args)
}

// taskArgs are the run flags given to batch, as --name=value, for every
// task: the same registration as run's, so they mean what they mean there.
func (o *batchOptions) taskArgs() []string {
	var out []string
	o.runFlags.VisitAll(func(fl *pflag.Flag) {
		if fl.Changed {
			out = append(out, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	return out
}

func (o *batchOptions) scheduler() (batch.Scheduler, error) {
	switch o.On {
	case "local":
		return &batch.LocalScheduler{}, nil
	case "slurm":
		return &batch.SlurmScheduler{Mem: o.SlurmMem, CPUs: o.SlurmCPUs, Extra: o.SbatchArg}, nil
	}
	return nil, fmt.Errorf("%w: --on %q: want local or slurm", ErrUsage, o.On)
}

func runBatch(cmd *cobra.Command, o *batchOptions, s *streams) error {
	ctx := cmd.Context()
	o.applyOldSpelling(s.ErrOut)
	if o.Image == "" || (o.Sign.SigningKey == "" && !o.Sign.Keyless.Keyless) || o.Out == "" {
		return fmt.Errorf("%w: --image NAME@sha256:DIGEST, --signing-key KEY and --out DIR are required", ErrUsage)
	}
	digest, err := batch.ImageDigest(o.Image)
	if err != nil {
		return fmt.Errorf("%w: --image: %w (DSHIO/T 21 5.1.2: a tag can be overwritten, a digest cannot)", ErrUsage, err)
	}
	signArgs, policy, err := o.signing(ctx)
	if err != nil {
		return err
	}
	if o.Parallel < 0 || o.Retries < 0 || o.Poll <= 0 || o.Backoff < 0 {
		return fmt.Errorf("%w: --parallel, --retries and --retry-backoff must not be negative, --poll must be positive", ErrUsage)
	}
	if o.Run.Repeat < 1 {
		return fmt.Errorf("%w: --repeat must be at least 1", ErrUsage)
	}
	src, err := o.Run.imageSource()
	if err != nil {
		return err
	}
	entries, err := o.entries(s.In)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	sched, err := o.scheduler()
	if err != nil {
		return err
	}
	vopts := verify.Options{Policy: policy, Limits: bundle.DefaultLimits()}
	res, err := batch.RunPlan(ctx, batch.PlanOptions{
		Entries: entries, Image: o.Image, Digest: digest,
		ImageSource: src, ContainerEngine: o.Run.Engine, // "auto": the pre-flight accepts podman or docker
		Scheduler: sched, Out: o.Out, SigningKey: o.Sign.SigningKey, Verify: vopts, Registry: o.Run.Registry,
		Dshaudit: o.TaskDshaudit, RunArgs: append(signArgs, o.taskArgs()...),
		Parallel: o.Parallel, Retries: o.Retries, Backoff: o.Backoff, Poll: o.Poll,
		Probe:    func(dir string) error { return checkOutDir(filepath.Join(dir, "x")) },
		Progress: func(line string) { fmt.Fprintf(s.ErrOut, "dshaudit batch: %s\n", line) },
	})
	switch {
	case res == nil && errors.Is(err, batch.ErrOption):
		return fmt.Errorf("%w: %w", ErrUsage, err)
	case res == nil && errors.Is(err, batch.ErrEnvironment):
		return fmt.Errorf("%w: %w", ErrCouldNotRun, err)
	case res == nil:
		return err
	}
	runErr := err // the context's: interrupted while the tasks ran

	if o.JSON {
		if err := writeJSON(s.Out, batchResult{BatchMediaType, 1, res.Scheduler, o.Image, res.Dir, res.Tasks, res.Summary, res.Bundles}); err != nil {
			return err
		}
	} else {
		st := s.style()
		printBatch(s.Out, st, res.Tasks)
		fmt.Fprintf(s.Out, "\ndshaudit verify %s:\n", st.Field(res.Dir))
		printVerifySummary(s.Out, st, res.Bundles, res.Summary)
	}
	if runErr != nil {
		return fmt.Errorf("interrupted; the job was cancelled, no bundle half-written: %w", runErr)
	}
	if o.Report != "" && len(res.Bundles) > 0 {
		// dshaudit report's site, with the same code; its listing goes
		// to stderr when stdout carries the JSON object.
		rs := s
		if o.JSON {
			rs = &streams{In: s.In, Out: s.ErrOut, ErrOut: s.ErrOut, Text: s.Text}
		}
		paths := make([]string, len(res.Bundles))
		for i, it := range res.Bundles {
			paths[i] = it.Path
		}
		ro := &reportOptions{Out: o.Report, Layout: report.Layout{MaxLines: report.DefaultMaxLines, Context: report.DefaultContext}}
		fmt.Fprintln(rs.Out)
		if err := runReportSite(cmd, ro, rs, paths, vopts); err != nil && !errors.Is(err, ErrFindings) {
			return err
		}
	}
	return batchExit(res.Tasks, res.Summary)
}

// batchExit maps the outcomes to the exit code classes.
func batchExit(outs []batch.Outcome, sum verify.Summary) error {
	unfinished, notPass := 0, 0
	for _, o := range outs {
		switch {
		case !o.Finished():
			unfinished++
		case o.State == batch.StateUnresolvable || o.Verdict != string(rules.Pass) && o.State != batch.StateDuplicate:
			notPass++
		}
	}
	switch {
	case unfinished > 0:
		return silentError{fmt.Errorf("%w: %d spec(s) without a verified bundle after their retries; run the batch again to finish them", ErrCouldNotRun, unfinished)}
	case notPass > 0 || len(sum.Failed) > 0:
		return silentError{fmt.Errorf("%w: %d spec(s) not pass, %d bundle(s) not verified", ErrFindings, notPass, len(sum.Failed))}
	}
	return nil
}

// printBatch prints one row per spec: state, verdict, plan line, spec,
// package, attempts, and why when it did not finish. The table escapes
// every cell (SPEC.md "Output safety"): specs come from the plan, reasons
// from task logs.
func printBatch(w io.Writer, st termtext.Style, outs []batch.Outcome) {
	tb := termtext.NewTable("", "STATE", "VERDICT", "LINE", "SPEC", "PACKAGE", "TRIES", "WHY")
	for _, o := range outs {
		line := "-"
		if o.Line > 0 {
			line = strconv.Itoa(o.Line)
		}
		tb.Row(o.State, dash(o.Verdict), line, o.Spec, dash(o.Package), strconv.Itoa(o.Attempts), dash(o.Why))
	}
	tb.Write(w, st.Width)
}

// applyOldSpelling reads batch's old flag, with a warning on errOut:
// --key was the signing key's name. A --key with neither --signing-key
// nor --keyless is that spelling; with either, --key is the trusted key,
// as on verify.
func (o *batchOptions) applyOldSpelling(errOut io.Writer) {
	if o.Trust.Key == "" || o.Sign.SigningKey != "" || o.Sign.Keyless.Keyless {
		return
	}
	fmt.Fprintln(errOut, "dshaudit: --key is deprecated for the signing key; use --signing-key (--key with it names the public key the bundles verify with)")
	o.Sign.SigningKey, o.Sign.usedLegacy, o.Trust.Key = o.Trust.Key, true, ""
}

// signing is how the tasks sign and how batch verifies the bundles it
// finds and those that come back: with --signing-key, the key (RunPlan
// hands it to the tasks) and its public half, which a --key given must
// be; with --keyless, the keyless flags handed to every task (each task
// fetches its own token when it signs) and the trusted root with the
// identity rule given. It returns the extra task arguments and the policy.
func (o *batchOptions) signing(ctx context.Context) ([]string, attest.Policy, error) {
	k := &o.Sign.Keyless
	if !k.Keyless {
		if err := k.check(); err != nil {
			return nil, attest.Policy{}, err
		}
		if o.Trust.TrustedRoot != "" {
			return nil, attest.Policy{}, fmt.Errorf("%w: --trusted-root verifies keyless bundles: give it with --keyless", ErrUsage)
		}
		signer, err := attest.LoadSigner(o.Sign.SigningKey)
		if err != nil {
			return nil, attest.Policy{}, fmt.Errorf("%w: %s: %w", ErrUsage, o.Sign.flag(), err)
		}
		pub := signer.PublicKey()
		if o.Trust.Key != "" {
			pol, err := o.Trust.policy()
			if err != nil {
				return nil, attest.Policy{}, err
			}
			if pol.Key.Fingerprint() != pub.Fingerprint() {
				return nil, attest.Policy{}, fmt.Errorf("%w: --key %q (%s) is not the public half of --signing-key %q (%s): no bundle its tasks sign would verify",
					ErrUsage, o.Trust.Key, pol.Key.Fingerprint(), o.Sign.SigningKey, pub.Fingerprint())
			}
		}
		return nil, attest.Policy{Key: pub}, nil
	}
	if o.Sign.SigningKey != "" {
		return nil, attest.Policy{}, fmt.Errorf("%w: give %s or --keyless, not both", ErrUsage, o.Sign.flag())
	}
	if o.Trust.Key != "" {
		return nil, attest.Policy{}, fmt.Errorf("%w: --key verifies key-signed bundles; the bundles --keyless signs verify with --trusted-root and an identity rule", ErrUsage)
	}
	// Fails now when there is no token or the config is bad.
	if _, err := k.signer(ctx); err != nil {
		return nil, attest.Policy{}, err
	}
	if o.Trust.TrustedRoot == "" {
		return nil, attest.Policy{}, fmt.Errorf("%w: --keyless needs --trusted-root and an identity rule to verify the bundles that come back", ErrUsage)
	}
	pol, err := o.Trust.policy()
	if err != nil {
		return nil, attest.Policy{}, err
	}
	args, err := k.taskArgs()
	return args, pol, err
}
