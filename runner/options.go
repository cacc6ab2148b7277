package runner

import (
	"fmt"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/rules/static"
)

// Defaults (DESIGN.md "One repetition"). DSHIO/T 21 5.1.6
// fixes only the 12-second T4 window; the stage time limits are the
// tool's own decision, generous enough that a slow but working machine
// is not mistaken for a failing plugin.
const (
	DefaultRepeat         = assemble.MinRepeat // DSHIO/T 21 5.1.9
	DefaultWindow         = rules.DefaultWindow
	DefaultTimeoutT1      = 300 * time.Second
	DefaultTimeoutT2      = 60 * time.Second
	DefaultTimeoutT3      = 60 * time.Second
	DefaultT4Grace        = 30 * time.Second // T4 limit = window + grace
	DefaultTimeoutVersion = 60 * time.Second
	// MaxRepeat bounds --repeat.
	MaxRepeat = 10
)

// Timeouts are the per-stage wall-clock limits. Zero means the default;
// T4's default is the window plus DefaultT4Grace.
type Timeouts struct {
	T1, T2, T3, T4 time.Duration
	// Version bounds each version command run to build the fingerprint.
	Version time.Duration
}

// Options say what to test and under which conditions.
type Options struct {
	// Spec is the PACKAGE-SPEC as the user gave it.
	Spec string
	// Image is NAME[:TAG]@sha256:HEX; a reference without digest is
	// refused (DSHIO/T 21 5.1.2).
	Image string
	// ImageSource is where EnsureImage gets the image (default: the
	// engine's store).
	ImageSource engine.Source
	// Repeat is how many times the T1–T4 sequence runs (default 2).
	Repeat int
	// Baseline is the DSH baseline version (default 0.2.2-rc.1).
	Baseline string
	// T1WorkspaceRoot adds -w to the T1 command, recorded as a T1
	// command deviation (dsh 0.1.0-rc.8 needs it).
	T1WorkspaceRoot bool
	// T4NoOpen adds --no-open to the T4 command, recorded as a T4
	// command deviation. Off by default: the verbatim command boots in a
	// container (DESIGN.md "T4 command").
	T4NoOpen bool
	// Window is the T4 liveness window (default 12 s, DSHIO/T 21 5.1.6).
	Window   time.Duration
	Timeouts Timeouts
	// CACert is a host CA bundle T1 trusts (NODE_EXTRA_CA_CERTS), "" for
	// none.
	CACert string
	// Limits are the container limits (zero value: engine defaults,
	// which equal the DSHIO/T 21 5.2 example mem=768m, cpu=1).
	Limits engine.Limits
	// Tool names this program in the bundle.
	Tool manifest.Tool
}

// withDefaults returns o with every zero field defaulted.
func (o Options) withDefaults() Options {
	if o.Repeat == 0 {
		o.Repeat = DefaultRepeat
	}
	if o.Baseline == "" {
		o.Baseline = static.DefaultBaseline
	}
	if o.Window == 0 {
		o.Window = DefaultWindow
	}
	if o.Timeouts.T1 == 0 {
		o.Timeouts.T1 = DefaultTimeoutT1
	}
	if o.Timeouts.T2 == 0 {
		o.Timeouts.T2 = DefaultTimeoutT2
	}
	if o.Timeouts.T3 == 0 {
		o.Timeouts.T3 = DefaultTimeoutT3
	}
	if o.Timeouts.T4 == 0 {
		o.Timeouts.T4 = o.Window + DefaultT4Grace
	}
	if o.Timeouts.Version == 0 {
		o.Timeouts.Version = DefaultTimeoutVersion
	}
	if o.Limits.Memory == "" && o.Limits.CPUs == "" && o.Limits.Pids == 0 && o.Limits.Ulimits == nil {
		o.Limits = engine.DefaultLimits()
	}
	if o.ImageSource == (engine.Source{}) {
		o.ImageSource = engine.FromStore()
	}
	return o
}

// validate reports every problem with defaulted options.
func (o Options) validate() error {
	var probs []string
	if strings.TrimSpace(o.Spec) == "" {
		probs = append(probs, "no package spec")
	}
	if _, err := engine.ParsePinned(o.Image); err != nil {
		probs = append(probs, fmt.Sprintf("image: %v", err))
	}
	if o.Repeat < 1 || o.Repeat > MaxRepeat {
		probs = append(probs, fmt.Sprintf("repeat %d: want 1 to %d", o.Repeat, MaxRepeat))
	}
	if o.Window <= 0 {
		probs = append(probs, fmt.Sprintf("window %v: want a positive duration", o.Window))
	}
	for _, t := range []struct {
		s string
		d time.Duration
	}{{"T1", o.Timeouts.T1}, {"T2", o.Timeouts.T2}, {"T3", o.Timeouts.T3}, {"T4", o.Timeouts.T4}, {"version", o.Timeouts.Version}} {
		if t.d < 0 {
			probs = append(probs, fmt.Sprintf("%s timeout %v: want a positive duration", t.s, t.d))
		}
	}
	if o.Timeouts.T4 <= o.Window {
		probs = append(probs, fmt.Sprintf("T4 timeout %v must exceed the window %v", o.Timeouts.T4, o.Window))
	}
	if o.Limits.Memory == "" || o.Limits.CPUs == "" {
		probs = append(probs, "limits: memory and CPUs must be set (they are part of the fingerprint)")
	}
	if o.Tool.Name == "" || o.Tool.Version == "" {
		probs = append(probs, "tool name and version must be set")
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: %s", ErrOptions, strings.Join(probs, "; "))
	}
	return nil
}

// timeout returns the limit of a stage.
func (o Options) timeout(s rules.Stage) time.Duration {
	switch s {
	case rules.T1:
		return o.Timeouts.T1
	case rules.T2:
		return o.Timeouts.T2
	case rules.T3:
		return o.Timeouts.T3
	}
	return o.Timeouts.T4
}

// argv is the command of a stage as run: the DSHIO/T 21 5.1.8 command
// with -w (T1) or --no-open (T4) added only when asked, each recorded as
// a deviation by deviations.
func (o Options) argv(s rules.Stage, spec string) []string {
	a := assemble.StandardArgv(s, spec)
	switch {
	case s == rules.T1 && o.T1WorkspaceRoot:
		// dsh plugin --profile web add -w <spec>
		return append(append(a[:len(a)-1:len(a)-1], "-w"), spec)
	case s == rules.T4 && o.T4NoOpen:
		return append(a, "--no-open")
	}
	return a
}
