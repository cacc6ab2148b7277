package runner

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// DeviationBaseline names a baseline other than the DSHIO/T 21 5.1.1 one.
const DeviationBaseline = assemble.DeviationBaseline

// deviations lists every condition deviation item by item (DSHIO/T 21
// 8.1, 8.2): what, the standard's value, what it was changed to, and why.
// dsh is the version observed in the image. Every value the edition fixes
// (SPEC.md "Edition facts") that this run changed, in either direction,
// is one deviation.
func deviations(o Options, dsh, spec string) []manifest.Deviation {
	edition := assemble.EditionDeviations(assemble.Edition2026, facts(o, dsh, "", spec), func(what string) string {
		switch what {
		case assemble.DeviationBaseline:
			return "the baseline was set with --baseline"
		case assemble.DeviationRepeatCount:
			return "requested with --repeat; instability cannot be detected with fewer than two repetitions"
		case assemble.DeviationObservationWindow:
			return "requested with --window"
		}
		return "requested on the command line"
	})
	// Order: the baseline, the dsh version, the commands, then the other
	// edition facts.
	var ds, rest []manifest.Deviation
	for _, d := range edition {
		if d.What == assemble.DeviationBaseline {
			ds = append(ds, d)
		} else {
			rest = append(rest, d)
		}
	}
	if dsh != o.Baseline {
		ds = append(ds, manifest.Deviation{
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
		ds = append(ds, manifest.Deviation{
			What: assemble.DeviationCommand(s), Standard: strings.Join(std, " "), ChangedTo: strings.Join(got, " "),
			Why: why, Clause: "DSHIO/T 21 5.1.8",
		})
	}
	return append(ds, rest...)
}

// facts are the fixed-condition values of this run.
func facts(o Options, dsh, imageRef, spec string) assemble.FixedFacts {
	f := assemble.FixedFacts{
		DSH: dsh, Baseline: o.Baseline, ImageRef: imageRef,
		Memory: o.Limits.Memory, CPU: o.Limits.CPUs, Pids: strconv.Itoa(o.Limits.Pids), Ulimits: strings.Join(o.Limits.Ulimits, " "),
		Window: o.Window,
		// The edition's own words (TestProfileConditionNamesMount: they
		// name ProfileMount).
		Profile:   assemble.Edition2026.Profile[0],
		Isolation: assemble.Edition2026.Isolation[0],
		Repeat:    o.Repeat,
		Timeouts:  map[rules.Stage]time.Duration{},
		Argv:      map[rules.Stage][]string{},
	}
	for _, s := range rules.DynamicStages {
		f.Timeouts[s] = o.timeout(s)
		f.Argv[s] = o.argv(s, spec)
	}
	return f
}

// fixedConditions are the DSHIO/T 21 5.1 conditions this run held fixed.
func fixedConditions(o Options, dsh, imageRef, spec string) []manifest.Condition {
	return assemble.FixedConditions(facts(o, dsh, imageRef, spec))
}

// variableConditions are conditions allowed to vary, recorded item by
// item (DSHIO/T 21 3.2).
func variableConditions(o Options, pkg *Package, engineName, engineVersion, kernel string) []manifest.Condition {
	c := []manifest.Condition{
		{Name: "package spec given", Value: pkg.Spec},
		{Name: "package source", Value: pkg.Source},
		{Name: "container engine", Value: engineName + " " + engineVersion},
		{Name: "host kernel", Value: kernel},
	}
	if o.CACert != "" {
		c = append(c, manifest.Condition{Name: "T1 extra CA bundle", Value: o.CACert})
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
