package compare

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dshaudit/dshaudit/manifest"
)

// Outcome is the overall replay result. Its JSON values are
// lower-kebab-case like every enum value in dshaudit's JSON (SPEC.md
// "Result objects"); Text gives the text output's REPRODUCED, DIFFERENT,
// COULD-NOT-RUN.
type Outcome string

// Text is the outcome as the text output shows it; a value that is not
// one of the outcomes (read from someone else's JSON) is shown as it is.
func (o Outcome) Text() string {
	switch o {
	case Reproduced, Different, CouldNotRun:
		return strings.ToUpper(string(o))
	}
	return string(o)
}

// Outcomes. CouldNotRun is never a plugin result: the replay itself could
// not run (engine missing, image unavailable, registry down).
const (
	Reproduced  Outcome = "reproduced"
	Different   Outcome = "different"
	CouldNotRun Outcome = "could-not-run"
)

// Side is one bundle's content as the comparison needs it.
type Side struct {
	Manifest *manifest.Manifest
	Files    map[string][]byte
}

// Row is one stage of one repetition, old beside new.
type Row struct {
	Repetition    int      `json:"repetition"`
	Stage         string   `json:"stage"`
	OldStatus     string   `json:"old_status"`
	NewStatus     string   `json:"new_status"`
	OldVerdict    string   `json:"old_verdict,omitempty"`
	NewVerdict    string   `json:"new_verdict,omitempty"`
	OldExit       *int     `json:"old_exit_code"`
	NewExit       *int     `json:"new_exit_code"`
	OldFirstError string   `json:"old_first_error,omitempty"`
	NewFirstError string   `json:"new_first_error,omitempty"`
	Same          bool     `json:"same"`
	Differences   []string `json:"differences,omitempty"`
}

// Comparison is the stage-by-stage result.
type Comparison struct {
	Outcome Outcome `json:"outcome"`
	// FirstDifferent names the first stage that differs ("repetition 1
	// T4"), or the first other difference, when DIFFERENT.
	FirstDifferent string `json:"first_different,omitempty"`
	OldVerdict     string `json:"old_verdict"`
	NewVerdict     string `json:"new_verdict"`
	Rows           []Row  `json:"stages"`
	// Diff holds, for evidence that still differs after normalisation,
	// a short line diff per file.
	Diff []string `json:"diff"`
	// FingerprintsEqual compares the two fingerprint strings exactly
	// (DSHIO/T 21 5.2: same fingerprint = same conditions).
	FingerprintsEqual bool `json:"fingerprints_equal"`
	// ChangedConditions lists the recorded conditions whose values
	// differ between the runs (DSHIO/T 21 9).
	ChangedConditions []string `json:"changed_conditions"`
	Normalisation     []string `json:"normalisation"`
}

// Compare compares an original run with its replay.
func Compare(old, new Side) Comparison {
	c := Comparison{
		OldVerdict:        old.Manifest.Claimed.Verdict,
		NewVerdict:        new.Manifest.Claimed.Verdict,
		FingerprintsEqual: old.Manifest.Fingerprint == new.Manifest.Fingerprint,
		ChangedConditions: changedConditions(old.Manifest, new.Manifest),
		Normalisation:     RuleNames(),
		Diff:              []string{},
		Rows:              []Row{},
	}
	differ := func(where string) {
		if c.FirstDifferent == "" {
			c.FirstDifferent = where
		}
	}
	n := max(len(old.Manifest.Repetitions), len(new.Manifest.Repetitions))
	for i := 0; i < n; i++ {
		if i >= len(old.Manifest.Repetitions) || i >= len(new.Manifest.Repetitions) {
			differ(fmt.Sprintf("repetition %d: present in only one run", i+1))
			continue
		}
		or, nr := old.Manifest.Repetitions[i], new.Manifest.Repetitions[i]
		for _, os := range or.Stages {
			ns, ok := stageOf(nr, os.Stage)
			row := Row{Repetition: i + 1, Stage: os.Stage, OldStatus: os.Status, OldVerdict: os.Verdict, OldExit: os.ExitCode, OldFirstError: os.FirstError}
			if ok {
				row.NewStatus, row.NewVerdict, row.NewExit, row.NewFirstError = ns.Status, ns.Verdict, ns.ExitCode, ns.FirstError
				row.Differences, c.Diff = compareStage(os, ns, old.Files, new.Files, c.Diff, i+1)
			} else {
				row.Differences = []string{"stage not recorded in the replay"}
			}
			row.Same = len(row.Differences) == 0
			if !row.Same {
				differ(fmt.Sprintf("repetition %d %s", i+1, os.Stage))
			}
			c.Rows = append(c.Rows, row)
		}
	}
	if c.OldVerdict != c.NewVerdict {
		differ(fmt.Sprintf("overall verdict %s → %s", c.OldVerdict, c.NewVerdict))
	}
	c.Outcome = Reproduced
	if c.FirstDifferent != "" {
		c.Outcome = Different
	}
	return c
}

func stageOf(r manifest.Repetition, stage string) (manifest.Stage, bool) {
	for _, s := range r.Stages {
		if s.Stage == stage {
			return s, true
		}
	}
	return manifest.Stage{}, false
}

// compareStage compares what must reproduce: status, verdict, exit code,
// timeout, first_error, the liveness outcome, and every evidence file
// after normalisation. Durations and times are not compared.
func compareStage(o, n manifest.Stage, of, nf map[string][]byte, diff []string, rep int) ([]string, []string) {
	var d []string
	cmp := func(what, a, b string) {
		if a != b {
			d = append(d, fmt.Sprintf("%s: %q → %q", what, a, b))
		}
	}
	cmp("status", o.Status, n.Status)
	cmp("verdict", o.Verdict, n.Verdict)
	cmp("exit code", exitText(o.ExitCode), exitText(n.ExitCode))
	cmp("timed out", fmt.Sprint(o.TimedOut), fmt.Sprint(n.TimedOut))
	cmp("first_error", string(Normalise([]byte(o.FirstError))), string(Normalise([]byte(n.FirstError))))
	cmp("argv", strings.Join(o.Argv, " "), strings.Join(n.Argv, " "))
	if (o.Liveness == nil) != (n.Liveness == nil) || (o.Liveness != nil && o.Liveness.AliveAtEnd != n.Liveness.AliveAtEnd) {
		d = append(d, "liveness: alive at the end of the window differs")
	}
	roles := map[string]bool{}
	for r := range o.Evidence {
		roles[r] = true
	}
	for r := range n.Evidence {
		roles[r] = true
	}
	for _, role := range slices.Sorted(maps.Keys(roles)) {
		a, aok := of[o.Evidence[role]]
		b, bok := nf[n.Evidence[role]]
		if aok != bok {
			d = append(d, fmt.Sprintf("evidence %s: present in only one run", role))
			continue
		}
		na, nb := Normalise(a), Normalise(b)
		if !bytes.Equal(na, nb) {
			d = append(d, fmt.Sprintf("evidence %s differs after normalisation", role))
			diff = append(diff, lineDiff(fmt.Sprintf("repetition %d %s %s", rep, o.Stage, role), na, nb))
		}
	}
	return d, diff
}

func exitText(p *int) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}

// lineDiff shows the first few lines that differ (a short, not a
// minimal, diff: enough for a person to see what changed).
func lineDiff(title string, a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	var out strings.Builder
	fmt.Fprintf(&out, "--- original %s\n+++ replay %s\n", title, title)
	shown := 0
	for i := 0; i < max(len(al), len(bl)) && shown < 10; i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			fmt.Fprintf(&out, "@@ line %d\n-%s\n+%s\n", i+1, x, y)
			shown++
		}
	}
	return out.String()
}

func changedConditions(o, n *manifest.Manifest) []string {
	out := []string{}
	idx := func(cs []manifest.Condition) map[string]string {
		m := map[string]string{}
		for _, c := range cs {
			m[c.Name] = c.Value
		}
		return m
	}
	for _, kind := range []string{"fixed", "variable"} {
		var a, b map[string]string
		if kind == "fixed" {
			a, b = idx(o.Conditions.Fixed), idx(n.Conditions.Fixed)
		} else {
			a, b = idx(o.Conditions.Variable), idx(n.Conditions.Variable)
		}
		names := map[string]bool{}
		for k := range a {
			names[k] = true
		}
		for k := range b {
			names[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(names)) {
			if kind == "variable" && (k == ConditionReplayOf || k == ConditionReplayOfUnverified) {
				continue // what the bundle is, not a condition it ran under
			}
			if a[k] != b[k] {
				out = append(out, fmt.Sprintf("%s condition %s: %q → %q", kind, k, a[k], b[k]))
			}
		}
	}
	if o.Image.Digest != n.Image.Digest {
		out = append(out, fmt.Sprintf("image digest: %s → %s", o.Image.Digest, n.Image.Digest))
	}
	return out
}
