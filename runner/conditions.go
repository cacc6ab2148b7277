package runner

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/rules/static"
)

// DeviationBaseline names a baseline other than the DSHIO/T 21 5.1.1 one.
const DeviationBaseline = "baseline version"

// deviations lists every condition deviation item by item (DSHIO/T 21
// 8.1, 8.2): what, the standard's value, what it was changed to, and why.
// dsh is the version observed in the image.
func deviations(o Options, dsh, spec string) []bundle.Deviation {
	var ds []bundle.Deviation
	if o.Baseline != static.DefaultBaseline {
		ds = append(ds, bundle.Deviation{
			What: DeviationBaseline, Standard: static.DefaultBaseline, ChangedTo: o.Baseline,
			Why: "the baseline was set with --baseline", Clause: "DSHIO/T 21 5.1.1",
		})
	}
	if dsh != o.Baseline {
		ds = append(ds, bundle.Deviation{
			What: assemble.DeviationDSHVersion, Standard: o.Baseline, ChangedTo: dsh,
			Why:    fmt.Sprintf("the sandbox image %s holds dsh %s (read with dsh --version inside it), not the baseline", o.Image, dsh),
			Clause: "DSHIO/T 21 5.1.1",
		})
	}
	for _, s := range rules.DynamicStages {
		std, got := assemble.StandardArgv(s, spec), o.argv(s, spec)
		if strings.Join(std, "\x00") == strings.Join(got, "\x00") {
			continue
		}
		why := ""
		switch s {
		case rules.T1:
			why = "requested with --t1-workspace-root: dsh 0.1.0-rc.8's plugin add without -w always fails with pnpm ERR_PNPM_ADDING_TO_ROOT, whatever the plugin"
		case rules.T4:
			why = "requested with --t4-no-open: dsh --profile web tries to open a browser unless --no-open"
		}
		ds = append(ds, bundle.Deviation{
			What: assemble.DeviationCommand(s), Standard: strings.Join(std, " "), ChangedTo: strings.Join(got, " "),
			Why: why, Clause: "DSHIO/T 21 5.1.8",
		})
	}
	if o.Repeat < assemble.MinRepeat {
		ds = append(ds, bundle.Deviation{
			What: assemble.DeviationRepeatCount, Standard: strconv.Itoa(assemble.MinRepeat), ChangedTo: strconv.Itoa(o.Repeat),
			Why: "requested with --repeat; instability cannot be detected with fewer than two repetitions", Clause: "DSHIO/T 21 5.1.9",
		})
	}
	if o.Window.Milliseconds() < assemble.MinObservationWindowMS {
		ds = append(ds, bundle.Deviation{
			What: assemble.DeviationObservationWindow, Standard: (time.Duration(assemble.MinObservationWindowMS) * time.Millisecond).String(),
			ChangedTo: o.Window.String(), Why: "requested with --window", Clause: "DSHIO/T 21 5.1.6",
		})
	}
	return ds
}

// fixedConditions are the DSHIO/T 21 5.1 conditions this run held fixed.
func fixedConditions(o Options, dsh, imageRef, spec string) []bundle.Condition {
	c := []bundle.Condition{
		{Name: "dsh version (DSHIO/T 21 5.1.1)", Value: dsh},
		{Name: "baseline (DSHIO/T 21 5.1.1)", Value: o.Baseline},
		{Name: "container image (DSHIO/T 21 5.1.2)", Value: imageRef},
		{Name: "memory limit (DSHIO/T 21 5.1.3)", Value: o.Limits.Memory},
		{Name: "cpu limit (DSHIO/T 21 5.1.3)", Value: o.Limits.CPUs},
		{Name: "pids limit (DSHIO/T 21 5.1.5)", Value: strconv.Itoa(o.Limits.Pids)},
		{Name: "ulimits (DSHIO/T 21 5.1.5)", Value: strings.Join(o.Limits.Ulimits, " ")},
		{Name: "network T1 (DSHIO/T 21 5.1.4)", Value: "on (host network)"},
		{Name: "network T2-T4 (DSHIO/T 21 5.1.4)", Value: "none"},
		{Name: "T4 liveness window (DSHIO/T 21 5.1.6)", Value: o.Window.String()},
		{Name: "profile (DSHIO/T 21 5.1.7)", Value: "web; DSH_HOME=" + ProfileMount + ", a fresh empty host directory per repetition"},
		{Name: "isolation (DSHIO/T 21 5.1.5)", Value: "a fresh container per command; environment only DSH_HOME (and NODE_EXTRA_CA_CERTS, npm_config_registry in T1)"},
		{Name: "repeat count (DSHIO/T 21 5.1.9)", Value: strconv.Itoa(o.Repeat)},
	}
	for _, s := range rules.DynamicStages {
		c = append(c, bundle.Condition{Name: fmt.Sprintf("%s command (DSHIO/T 21 5.1.8)", s), Value: strings.Join(o.argv(s, spec), " ")})
	}
	return c
}

// variableConditions are conditions allowed to vary, recorded item by
// item (DSHIO/T 21 3.2).
func variableConditions(o Options, pkg *Package, engineName, engineVersion, kernel string) []bundle.Condition {
	c := []bundle.Condition{
		{Name: "package spec given", Value: pkg.Spec},
		{Name: "package source", Value: pkg.Source},
		{Name: "container engine", Value: engineName + " " + engineVersion},
		{Name: "host kernel", Value: kernel},
	}
	for _, s := range rules.DynamicStages {
		c = append(c, bundle.Condition{Name: fmt.Sprintf("%s time limit", s), Value: o.timeout(s).String()})
	}
	if o.CACert != "" {
		c = append(c, bundle.Condition{Name: "T1 extra CA bundle", Value: o.CACert})
	}
	return append(c, pkg.Conditions...)
}

// timeoutsMS is the settings' per-stage limits.
func timeoutsMS(o Options) map[string]int64 {
	m := map[string]int64{}
	for _, s := range rules.DynamicStages {
		m[string(s)] = o.timeout(s).Milliseconds()
	}
	return m
}
