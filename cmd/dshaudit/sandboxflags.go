package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/pkgsource"
	"github.com/dshaudit/dshaudit/runner"
)

// DefaultCACert is the host CA bundle T1 trusts when it exists (SANDBOX.md:
// Node in the container needs it to reach the registry through this
// machine's TLS interception).
const DefaultCACert = "/etc/ssl/certs/ca-certificates.crt"

// sandboxFlags are the flags `run` and `replay` share: the engine, the
// registry and CA bundle T1 uses, where profiles are made, and progress.
type sandboxFlags struct {
	Engine   string
	Registry string
	CACert   string
	TempDir  string
	// Progress forces progress lines on stderr even when it is not a
	// terminal ("auto", "always", "never").
	Progress string
}

func (o *sandboxFlags) register(f *pflag.FlagSet) {
	o.registerEnv(f)
	o.registerProgress(f)
}

// registerEnv registers the engine, registry, CA bundle and temp-dir
// flags.
func (o *sandboxFlags) registerEnv(f *pflag.FlagSet) {
	f.StringVar(&o.Engine, "engine", "podman", "container engine: podman, docker or auto")
	f.StringVar(&o.Registry, "registry", "", "npm registry for T0 and T1 (default: the one npm is configured with)")
	f.StringVar(&o.CACert, "ca-cert", "", "CA bundle T1's Node trusts via NODE_EXTRA_CA_CERTS (default "+DefaultCACert+" when present; \"none\" for none)")
	f.StringVar(&o.TempDir, "temp-dir", "", "where per-repetition profile directories are made (default: the system temp directory)")
}

// registerProgress registers --progress (batch has its own).
func (o *sandboxFlags) registerProgress(f *pflag.FlagSet) {
	f.StringVar(&o.Progress, "progress", "auto", "progress on stderr: auto (when stderr is a terminal), always, never")
}

func (o *sandboxFlags) caCert() string {
	switch o.CACert {
	case "none":
		return ""
	case "":
		if st, err := os.Stat(DefaultCACert); err == nil && st.Mode().IsRegular() {
			return DefaultCACert
		}
		return ""
	}
	return o.CACert
}

func (o *sandboxFlags) progressOn(w io.Writer) (bool, error) {
	switch o.Progress {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		f, ok := w.(*os.File)
		return ok && term.IsTerminal(int(f.Fd())), nil
	}
	return false, fmt.Errorf("%w: --progress %q: want auto, always or never", ErrUsage, o.Progress)
}

// newRunner makes the runner: the detected engine, the pkgsource
// resolver, warnings always and progress lines when asked on stderr. An
// engine that cannot be found is ErrCouldNotRun.
func (f *sandboxFlags) newRunner(ctx context.Context, showProgress bool, s *streams) (*runner.Runner, error) {
	eng, err := engine.Detect(ctx, f.Engine)
	if err != nil {
		if errors.Is(err, engine.ErrBadSpec) {
			return nil, fmt.Errorf("%w: --engine: %w", ErrUsage, err)
		}
		return nil, fmt.Errorf("%w: %w", ErrCouldNotRun, err)
	}
	// What killed runs left (DESIGN.md "Leftovers of a killed run").
	sweepBeforeRun(ctx, eng, f.TempDir, s)
	var mu sync.Mutex
	begin := time.Now()
	return &runner.Runner{
		Engine:  eng,
		Resolve: runner.PkgsourceResolver(pkgsource.Options{Registry: f.Registry}),
		Clock:   time.Now,
		TempDir: f.TempDir,
		Progress: func(e runner.Event) {
			mu.Lock()
			defer mu.Unlock()
			if e.Phase == runner.PhaseWarning {
				fmt.Fprintf(s.ErrOut, "dshaudit: warning: %s\n", termtext.Field(e.Message, s.Text.MaxText))
			} else if showProgress {
				fmt.Fprintln(s.ErrOut, termtext.Field(progressLine(time.Since(begin), e), s.Text.MaxText))
			}
		},
	}, nil
}
