package assemble

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// Edition is what a set of cited editions fixes (SPEC.md "Edition
// facts"): a bundle that records any other value needs a deviation for
// it, in either direction (DSHIO/T 21 8.1). Values are in the form the
// manifest records them.
type Edition struct {
	// Standards are the editions cited, in order.
	Standards []string
	// Baseline is the DSH baseline version (DSHIO/T 21 5.1.1).
	Baseline string
	// WindowMS is the T4 liveness window (DSHIO/T 21 5.1.6).
	WindowMS int64
	// TimeoutsMS are the stage time limits. The table of DSHIO/T 21 5.1.6
	// was lost: these are the project's decision (SPEC.md "Edition facts").
	TimeoutsMS map[rules.Stage]int64
	// Memory, CPU, Pids and Ulimits are the resource limits (DSHIO/T 21
	// 5.1.3, 5.1.5); the table was lost, the values are the project's
	// decision, memory and CPU from the DSHIO/T 21 5.2 example fingerprint.
	Memory  string
	CPU     string
	Pids    string
	Ulimits string
	// Profile and Isolation are the profile and isolation conditions
	// (DSHIO/T 21 5.1.7, 5.1.5) in the words of their fixed conditions: a
	// fresh empty profile directory per repetition, a fresh container per
	// command. The first of each is what the reference writer records;
	// the others are the same conditions as earlier writers worded them
	// (SPEC.md "Edition facts"). Any other value is a deviation.
	Profile, Isolation []string
	// Repeat is the repetition count (DSHIO/T 21 5.1.9, DSHIO/T 10 7.4).
	Repeat int
	// Published is when the editions were published: no run citing them
	// can have started before (SPEC.md "Edition facts").
	Published time.Time
}

// Edition2026 is fixed by DSHIO/T 10—2026, DSHIO/T 20—2026 and
// DSHIO/T 21—2026.
var Edition2026 = Edition{
	Standards: Standards,
	Baseline:  "0.2.2-rc.1",
	WindowMS:  MinObservationWindowMS,
	TimeoutsMS: map[rules.Stage]int64{
		rules.T1: 300_000, rules.T2: 60_000, rules.T3: 60_000,
		rules.T4: MinObservationWindowMS + 30_000,
	},
	Memory:  "768m",
	CPU:     "1",
	Pids:    "256",
	Ulimits: "nofile=1024:1024 nproc=1024:1024",
	Profile: []string{
		"web; DSH_HOME=/dsh-home, a fresh empty host directory per repetition",
		"web; DSH_HOME=/dsh-home, fresh volume per case",
	},
	Isolation: []string{
		"a fresh container per command; environment only DSH_HOME (and NODE_EXTRA_CA_CERTS, npm_config_registry in T1)",
		"a fresh container per command",
	},
	Repeat: MinRepeat,
	// DSHIO/T 20—2026's "Published 2026-11-07"; DSHIO/T 10 and T 21 state
	// no date and are cited with it (SPEC.md "Edition facts").
	Published: time.Date(2026, 11, 7, 0, 0, 0, 0, time.UTC),
}

// Editions are every edition set this tool knows.
var Editions = []Edition{Edition2026}

// EditionFor returns the edition a manifest's standards cite: the cited
// list must equal a known one exactly.
func EditionFor(standards []string) (Edition, bool) {
	for _, e := range Editions {
		if slices.Equal(e.Standards, standards) {
			return e, true
		}
	}
	return Edition{}, false
}

// Deviation "what" names for the edition facts beyond those in
// conditions.go (SPEC.md "Deviation names").
const (
	DeviationBaseline = "baseline version"
	DeviationMemory   = "memory limit"
	DeviationCPU      = "cpu limit"
	DeviationPids     = "pids limit"
	DeviationUlimits  = "ulimits"
	// DeviationProfile and DeviationIsolation name a profile or an
	// isolation other than the edition's (a profile kept across
	// repetitions, one container for every command, no container,
	// privileges or a seccomp profile changed).
	DeviationProfile   = "profile"
	DeviationIsolation = "isolation"
)

// StandardValue returns the edition's value of a condition that has
// several accepted wordings (Profile, Isolation): got itself when it is
// one of them, so that a comparison finds no difference, else the
// first, the one a deviation names as the standard's.
func StandardValue(accepted []string, got string) string {
	if slices.Contains(accepted, got) {
		return got
	}
	if len(accepted) == 0 {
		return ""
	}
	return accepted[0]
}

// DeviationTimeout is the deviation name for a changed stage time limit.
func DeviationTimeout(stage rules.Stage) string { return string(stage) + " time limit" }

// Fixed-condition names (DESIGN.md "Conditions and deviations"). The
// verifier cross-checks a condition of each of these names with the
// settings, the fingerprint, the image and the stages.
const (
	CondDSHVersion    = "dsh version (DSHIO/T 21 5.1.1)"
	CondBaseline      = "baseline (DSHIO/T 21 5.1.1)"
	CondImage         = "container image (DSHIO/T 21 5.1.2)"
	CondMemory        = "memory limit (DSHIO/T 21 5.1.3)"
	CondCPU           = "cpu limit (DSHIO/T 21 5.1.3)"
	CondPids          = "pids limit (DSHIO/T 21 5.1.5)"
	CondUlimits       = "ulimits (DSHIO/T 21 5.1.5)"
	CondNetworkT1     = "network T1 (DSHIO/T 21 5.1.4)"
	CondNetworkT2T4   = "network T2-T4 (DSHIO/T 21 5.1.4)"
	CondWindow        = "T4 liveness window (DSHIO/T 21 5.1.6)"
	CondProfile       = "profile (DSHIO/T 21 5.1.7)"
	CondIsolation     = "isolation (DSHIO/T 21 5.1.5)"
	CondRepeat        = "repeat count (DSHIO/T 21 5.1.9)"
	NetworkT1Value    = "on (host network)"
	NetworkT2T4Value  = "none"
	conditionTimeTail = " time limit (DSHIO/T 21 5.1.6)"
)

// IsFixedCondition reports whether name is one of the fixed conditions
// above, a stage's time limit or a stage's command: the closed set of
// names conditions.fixed may hold (SPEC.md "Recorded conditions").
func IsFixedCondition(name string) bool {
	switch name {
	case CondDSHVersion, CondBaseline, CondImage, CondMemory, CondCPU, CondPids, CondUlimits,
		CondNetworkT1, CondNetworkT2T4, CondWindow, CondProfile, CondIsolation, CondRepeat:
		return true
	}
	for _, s := range rules.DynamicStages {
		if name == CondTimeout(s) || name == CondCommand(s) {
			return true
		}
	}
	return false
}

// CondCommand is the fixed-condition name of a stage's command.
func CondCommand(stage rules.Stage) string {
	return string(stage) + " command (DSHIO/T 21 5.1.8)"
}

// CondTimeout is the fixed-condition name of a stage's time limit.
func CondTimeout(stage rules.Stage) string { return string(stage) + conditionTimeTail }

// FixedFacts are the values FixedConditions records.
type FixedFacts struct {
	DSH, Baseline, ImageRef    string
	Memory, CPU, Pids, Ulimits string
	Window                     time.Duration
	Profile, Isolation         string
	Repeat                     int
	Timeouts                   map[rules.Stage]time.Duration
	Argv                       map[rules.Stage][]string
}

// FixedConditions lists the DSHIO/T 21 5.1 fixed conditions under the
// names the verifier cross-checks. The runner and the test-vector
// generator both record them through this function.
func FixedConditions(f FixedFacts) []manifest.Condition {
	c := []manifest.Condition{
		{Name: CondDSHVersion, Value: f.DSH},
		{Name: CondBaseline, Value: f.Baseline},
		{Name: CondImage, Value: f.ImageRef},
		{Name: CondMemory, Value: f.Memory},
		{Name: CondCPU, Value: f.CPU},
		{Name: CondPids, Value: f.Pids},
		{Name: CondUlimits, Value: f.Ulimits},
		{Name: CondNetworkT1, Value: NetworkT1Value},
		{Name: CondNetworkT2T4, Value: NetworkT2T4Value},
		{Name: CondWindow, Value: f.Window.String()},
		{Name: CondProfile, Value: f.Profile},
		{Name: CondIsolation, Value: f.Isolation},
		{Name: CondRepeat, Value: fmt.Sprint(f.Repeat)},
	}
	for _, s := range rules.DynamicStages {
		c = append(c, manifest.Condition{Name: CondTimeout(s), Value: f.Timeouts[s].String()})
	}
	for _, s := range rules.DynamicStages {
		c = append(c, manifest.Condition{Name: CondCommand(s), Value: strings.Join(f.Argv[s], " ")})
	}
	return c
}

// EditionDeviations lists the deviations a run with these facts must
// record against edition e for the values that are the edition's (baseline,
// window, time limits, resource limits, repeat count, profile,
// isolation), each with why.
func EditionDeviations(e Edition, f FixedFacts, why func(what string) string) []manifest.Deviation {
	var ds []manifest.Deviation
	add := func(what, std, got, clause string) {
		if std != got {
			ds = append(ds, manifest.Deviation{What: what, Standard: std, ChangedTo: got, Why: why(what), Clause: clause})
		}
	}
	add(DeviationBaseline, e.Baseline, f.Baseline, "DSHIO/T 21 5.1.1")
	add(DeviationRepeatCount, fmt.Sprint(e.Repeat), fmt.Sprint(f.Repeat), "DSHIO/T 21 5.1.9")
	add(DeviationObservationWindow, ms(e.WindowMS).String(), f.Window.String(), "DSHIO/T 21 5.1.6")
	for _, s := range rules.DynamicStages {
		add(DeviationTimeout(s), ms(e.TimeoutsMS[s]).String(), f.Timeouts[s].String(), "DSHIO/T 21 5.1.6")
	}
	add(DeviationMemory, e.Memory, f.Memory, "DSHIO/T 21 5.1.3")
	add(DeviationCPU, e.CPU, f.CPU, "DSHIO/T 21 5.1.3")
	add(DeviationPids, e.Pids, f.Pids, "DSHIO/T 21 5.1.5")
	add(DeviationUlimits, e.Ulimits, f.Ulimits, "DSHIO/T 21 5.1.5")
	add(DeviationProfile, StandardValue(e.Profile, f.Profile), f.Profile, "DSHIO/T 21 5.1.7")
	add(DeviationIsolation, StandardValue(e.Isolation, f.Isolation), f.Isolation, "DSHIO/T 21 5.1.5")
	return ds
}

func ms(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
