package batch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/pkgsource"
	"github.com/dshaudit/dshaudit/verify"
)

// Error classes of RunPlan, beside the context's error. Each wraps the
// error that says what went wrong, and its message is that error's.
var (
	// ErrOption marks options that cannot be used: an output directory
	// that cannot be made or written, a key path that has no absolute
	// form, an output directory another batch holds (ErrBusy).
	ErrOption = errors.New("invalid batch option")
	// ErrEnvironment marks what stopped the batch from outside: the
	// scheduler, the container engine or image (local), the registry, the
	// state directory.
	ErrEnvironment = errors.New("batch could not run")
)

// classed is an error of class class whose message is err's own.
type classed struct {
	class, err error
}

func (c classed) Error() string   { return c.err.Error() }
func (c classed) Unwrap() []error { return []error{c.class, c.err} }

func optionError(format string, a ...any) error {
	return classed{ErrOption, fmt.Errorf(format, a...)}
}

func environmentError(err error) error { return classed{ErrEnvironment, err} }

// PlanOptions configure RunPlan: a whole `dshaudit batch`, its flags
// parsed and checked.
type PlanOptions struct {
	// Entries are the plan's specs (ParsePlan, ParseArgs).
	Entries []Entry
	// Image is the sandbox image, pinned by digest; Digest its digest
	// (ImageDigest).
	Image  string
	Digest string
	// ImageSource is where a local batch gets the image if the container
	// engine lacks it; ContainerEngine the engine the tasks use ("auto":
	// podman or docker).
	ImageSource     engine.Source
	ContainerEngine string
	// Scheduler runs the tasks; with a *LocalScheduler the container
	// engine and the image are checked here once, before the tasks, and
	// Parallel defaults to DefaultLocalParallel.
	Scheduler Scheduler
	// Out is the output directory as given; RunPlan makes it.
	Out string
	// SigningKey is the private key every task signs with; "" when the
	// tasks sign keylessly (--keyless and its flags are in RunArgs).
	SigningKey string
	// Verify verifies each bundle that comes back (with the public half
	// of SigningKey, or the keyless policy) and the output directory at
	// the end.
	Verify verify.Options
	// Registry is the npm registry that resolves specs ("": the default).
	Registry string
	// Dshaudit is the dshaudit executable the tasks run ("": this one).
	Dshaudit string
	// RunArgs are further `dshaudit run` arguments given to every task.
	RunArgs []string
	// Parallel, Retries, Backoff and Poll are Options'.
	Parallel int
	Retries  int
	Backoff  time.Duration
	Poll     time.Duration
	// Probe checks that a directory can be written, before any task runs
	// (nil: not checked).
	Probe func(dir string) error
	// Progress receives one line per event (nil: none).
	Progress func(line string)
}

// PlanResult is what a batch ended with.
type PlanResult struct {
	// Scheduler is the scheduler's name; Dir the output directory,
	// absolute.
	Scheduler string
	Dir       string
	// Tasks is one outcome per spec: the tasks in plan order, then the
	// specs that could not be resolved.
	Tasks []Outcome
	// Bundles and Summary are what `dshaudit verify DIR` finds in Dir.
	Bundles []verify.Item
	Summary verify.Summary
}

// RunPlan runs a whole batch: it checks the scheduler (and, locally,
// the container engine and the image), makes the output directory,
// resolves every spec to its exact version and bundle name, runs the
// tasks whose bundle does not already verify (Run), and verifies the
// output directory as `dshaudit verify DIR` does. Errors are of class
// ErrOption or ErrEnvironment, or the context's. When the context is
// cancelled while the tasks run, RunPlan returns the result so far with
// the context's error.
func RunPlan(ctx context.Context, o PlanOptions) (*PlanResult, error) {
	progress := func(line string) {
		if o.Progress != nil {
			o.Progress(line)
		}
	}
	if err := o.Scheduler.Check(ctx); err != nil {
		return nil, environmentError(err)
	}
	dshaudit := o.Dshaudit
	if dshaudit == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, environmentError(fmt.Errorf("cannot find this dshaudit executable for the tasks: %w", err))
		}
		dshaudit = exe
	}
	_, local := o.Scheduler.(*LocalScheduler)
	if local {
		// The tasks run here: check the engine and the image once, before
		// N tasks each fail the same way.
		e, err := engine.Detect(ctx, o.ContainerEngine)
		if err != nil {
			return nil, environmentError(err)
		}
		if _, err := e.EnsureImage(ctx, o.Image, o.ImageSource); err != nil {
			return nil, environmentError(fmt.Errorf("image %s: %w", o.Image, err))
		}
	}
	var signArgs []string
	if o.SigningKey != "" {
		keyAbs, err := filepath.Abs(o.SigningKey)
		if err != nil {
			return nil, optionError("--signing-key: %w", err)
		}
		signArgs = []string{"--signing-key=" + keyAbs}
	}
	dir, err := filepath.Abs(o.Out)
	if err != nil {
		return nil, optionError("--out: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, optionError("--out %q: %w", o.Out, err)
	}
	if o.Probe != nil {
		if err := o.Probe(dir); err != nil {
			return nil, err
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}

	progress(fmt.Sprintf("resolving %d spec(s) to exact versions", len(o.Entries)))
	identify := func(ctx context.Context, sp pkgsource.Spec) (string, string, error) {
		return pkgsource.Identify(ctx, sp, pkgsource.Options{Registry: o.Registry})
	}
	tasks, unresolved, err := Identify(ctx, o.Entries, identify, dir, o.Digest)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, environmentError(err)
	}
	for _, u := range unresolved {
		progress(fmt.Sprintf("line %d %q: %s: %s", u.Line, u.Spec, u.State, u.Why))
	}

	par := o.Parallel
	if par == 0 && local {
		par = DefaultLocalParallel()
	}
	outs, runErr := Run(ctx, tasks, Options{
		Dir: dir, WorkDir: cwd, Scheduler: o.Scheduler, Parallel: par, Retries: o.Retries, Backoff: o.Backoff, Poll: o.Poll,
		Dshaudit: dshaudit, EngineTool: o.ContainerEngine,
		TaskArgs: func(t Task) []string {
			args := append([]string{t.RunSpec, "--image=" + o.Image}, signArgs...)
			return append(append(args, "--out="+t.Bundle, "--progress=always"), o.RunArgs...)
		},
		Check:    BundleChecker(o.Verify, o.Digest),
		Progress: o.Progress,
	})
	if runErr != nil && ctx.Err() == nil {
		if errors.Is(runErr, ErrBusy) {
			return nil, classed{ErrOption, runErr}
		}
		return nil, environmentError(runErr)
	}
	res := &PlanResult{Scheduler: o.Scheduler.Name(), Dir: dir, Tasks: append(outs, unresolved...)}

	// The summary `dshaudit verify DIR` prints, with the same code.
	if paths, err := verify.Expand([]string{dir}); err == nil && len(paths) > 0 && ctx.Err() == nil {
		res.Bundles = verify.All(ctx, paths, o.Verify, 0)
	}
	res.Summary = verify.Summarise(res.Bundles)
	return res, runErr
}
