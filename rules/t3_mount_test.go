package rules

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var helloEntries = []Entry{{ID: "hello-dsh", Name: "hello-dsh-plugin"}}

const dumpHead = "# == @deepseek-ai/dsh-base\n- id: timer\n  name: '@deepseek-ai/cordis-plugin-timer'\n- id: sandbox-policy\n  name: '@deepseek-ai/dsh-sandbox-policy'\n  config:\n    mode: !!js process.env.DSH_PERMISSION_MODE ?? 'workspace-write'\n"

func TestDeriveT3(t *testing.T) {
	tests := []struct {
		name    string
		entries []Entry
		o       Observation
		status  StageStatus
		verdict Verdict
		fe      string
		reason  string
	}{
		{name: "pass", entries: helloEntries,
			o: obs(T3, 0, dumpHead+"# == hello-dsh-plugin\n- id: hello-dsh\n  name: hello-dsh-plugin\n", ""), status: StagePassed},
		{name: "pass with quoted name and !!js config", entries: helloEntries,
			o: obs(T3, 0, dumpHead+"- id: 'hello-dsh'\n  name: \"hello-dsh-plugin\"\n  config:\n    x: !!js >-\n      1 +\n      2\n", ""), status: StagePassed},
		{name: "!!js disabled expression is undecided", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n  disabled: !!js process.platform === 'win32'\n", ""), status: StageFailed,
			verdict: InstallsButNotRegistered, reason: "undecided"},
		{name: "pass via anchor", entries: helloEntries,
			o: obs(T3, 0, "- &e\n  id: hello-dsh\n  name: hello-dsh-plugin\n", ""), status: StagePassed},
		{name: "an alias repeats the entry: two entries with its id", entries: helloEntries,
			o: obs(T3, 0, "- &e\n  id: hello-dsh\n  name: hello-dsh-plugin\n- *e\n", ""), status: StageFailed, verdict: InstallsButNotRegistered,
			reason: "they conflict"},
		{name: "two entries with the id, one disabled", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n- id: hello-dsh\n  name: hello-dsh-plugin\n  disabled: true\n", ""), status: StageFailed,
			verdict: InstallsButNotRegistered, reason: "2 root entries with id \"hello-dsh\" (lines 1, 3)"},
		{name: "another entry naming the package is disabled", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n- id: hello-2\n  name: hello-dsh-plugin\n  disabled: 'yes'\n", ""), status: StageFailed,
			verdict: InstallsButNotRegistered, reason: "the entries naming the plugin disagree"},
		{name: "a number id is not the string id", entries: []Entry{{ID: "123", Name: "hello-dsh-plugin"}},
			o: obs(T3, 0, "- id: 123\n  name: hello-dsh-plugin\n", ""), status: StageFailed, verdict: InstallsButNotRegistered,
			reason: "no root entry with id \"123\""},
		{name: "name mismatch", entries: helloEntries,
			o: obs(T3, 0, dumpHead+"- id: hello-dsh\n  name: other-plugin\n", ""), status: StageFailed, verdict: InstallsButNotRegistered,
			fe: SyntheticPrefix + "insert entry #1: entry id \"hello-dsh\" is in the dump with name \"other-plugin\", want \"hello-dsh-plugin\""},
		{name: "id only inside a config value", entries: helloEntries,
			o:      obs(T3, 0, dumpHead+"- id: group\n  name: '@deepseek-ai/cordis-plugin-group'\n  config:\n    children:\n      - id: hello-dsh\n        name: hello-dsh-plugin\n    note: 'id: hello-dsh'\n", ""),
			status: StageFailed, verdict: InstallsButNotRegistered, reason: "no root entry with id \"hello-dsh\""},
		{name: "id only inside a group's config list", entries: helloEntries,
			o:      obs(T3, 0, "- id: group\n  name: group\n  config:\n    - id: hello-dsh\n      name: hello-dsh-plugin\n", ""),
			status: StageFailed, verdict: InstallsButNotRegistered, reason: "no root entry"},
		{name: "id only in a comment and a string", entries: helloEntries,
			o:      obs(T3, 0, "# - id: hello-dsh\n#   name: hello-dsh-plugin\n- id: x\n  name: y\n  config:\n    text: |\n      - id: hello-dsh\n        name: hello-dsh-plugin\n", ""),
			status: StageFailed, verdict: InstallsButNotRegistered, reason: "no root entry"},
		{name: "entry disabled by a later layer", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n  disabled: true\n", ""), status: StageFailed, verdict: InstallsButNotRegistered,
			reason: "truthy to JavaScript"},
		// Merge keys: js-yaml's JSON schema (dsh's) reads << as a plain key,
		// a YAML 1.1 loader merges: the readings differ, the dump is
		// refused. SPEC.md "Consumers".
		{name: "disabled by a merge key", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n  <<: {disabled: true}\n", ""), status: StageFailed, verdict: ConfigFailed,
			reason: "merge key"},
		{name: "disabled by a merged alias", entries: helloEntries,
			o:      obs(T3, 0, "- id: x\n  name: y\n  config: &off {disabled: true}\n- id: hello-dsh\n  name: hello-dsh-plugin\n  <<: *off\n", ""),
			status: StageFailed, verdict: ConfigFailed, reason: "merge key"},
		{name: "disabled by a later map of a merge list", entries: helloEntries,
			o:      obs(T3, 0, "- id: x\n  name: y\n  config: {a: &a {x: 1}, b: &b {disabled: true}}\n- id: hello-dsh\n  name: hello-dsh-plugin\n  <<: [*a, *b]\n", ""),
			status: StageFailed, verdict: ConfigFailed, reason: "merge key"},
		{name: "disabled by a nested merge", entries: helloEntries,
			o:      obs(T3, 0, "- id: x\n  name: y\n  config: {a: &a {<<: {disabled: true}}}\n- id: hello-dsh\n  name: hello-dsh-plugin\n  <<: *a\n", ""),
			status: StageFailed, verdict: ConfigFailed, reason: "merge key"},
		{name: "disabled by a !!merge-tagged key", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n  !!merge <<: {disabled: true}\n", ""), status: StageFailed, verdict: ConfigFailed,
			reason: "explicit tag"},
		{name: "explicit disabled false wins over a merged true", entries: helloEntries,
			o: obs(T3, 0, "- <<: {disabled: true}\n  id: hello-dsh\n  name: hello-dsh-plugin\n  disabled: false\n", ""), status: StageFailed, verdict: ConfigFailed, reason: "merge key"},
		{name: "explicit disabled true wins over a merged false", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n  disabled: true\n  <<: {disabled: false}\n", ""), status: StageFailed, verdict: ConfigFailed, reason: "merge key"},
		{name: "earlier map of a merge list wins", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n  <<: [{disabled: false}, {disabled: true}]\n", ""), status: StageFailed, verdict: ConfigFailed, reason: "merge key"},
		{name: "quoted << is an ordinary key", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n  \"<<\": {disabled: true}\n", ""), status: StagePassed},
		{name: "!!str << is an ordinary key", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n  !!str <<: {disabled: true}\n", ""), status: StagePassed},
		{name: "id and name from a merge", entries: helloEntries,
			o: obs(T3, 0, "- <<: {id: hello-dsh, name: hello-dsh-plugin}\n", ""), status: StageFailed, verdict: ConfigFailed, reason: "merge key"},
		{name: "name from a merge overridden", entries: helloEntries,
			o: obs(T3, 0, "- <<: {id: hello-dsh, name: hello-dsh-plugin}\n  name: other\n", ""), status: StageFailed, verdict: ConfigFailed,
			reason: "merge key"},
		{name: "merge value a scalar", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n  <<: true\n", ""), status: StageFailed, verdict: ConfigFailed,
			reason: "merge key"},
		{name: "merge list holding a scalar", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n  <<: [{x: 1}, off]\n", ""), status: StageFailed, verdict: ConfigFailed,
			reason: "merge key"},
		{name: "two merge keys", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n  <<: {disabled: false}\n  <<: {disabled: true}\n", ""), status: StageFailed, verdict: ConfigFailed,
			reason: "merge key"},
		{name: "merge cycle", entries: helloEntries,
			o: obs(T3, 0, "- &a\n  id: hello-dsh\n  name: hello-dsh-plugin\n  <<: *a\n", ""), status: StageFailed, verdict: ConfigFailed,
			reason: "merge key"},
		{name: "two disabled keys in a merged map", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n  <<: {disabled: false, disabled: false}\n", ""), status: StageFailed, verdict: ConfigFailed, reason: "merge key"},
		{name: "duplicate id key in an item", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  id: other\n  name: hello-dsh-plugin\n", ""), status: StageFailed, verdict: ConfigFailed,
			reason: "duplicated mapping key"},
		{name: "one of two entries missing", entries: append([]Entry{{ID: "timer", Name: "@deepseek-ai/cordis-plugin-timer"}}, helloEntries...),
			o: obs(T3, 0, dumpHead, ""), status: StageFailed, verdict: InstallsButNotRegistered, reason: "insert entry #2"},
		{name: "no insert entries", entries: nil, o: obs(T3, 0, dumpHead, ""), status: StageFailed, verdict: InstallsButNotRegistered,
			fe: SyntheticPrefix + "the patch declares no insert entry*"},
		{name: "entry without id", entries: []Entry{{Name: "hello-dsh-plugin"}}, o: obs(T3, 0, dumpHead, ""), status: StageFailed,
			verdict: InstallsButNotRegistered, reason: "both must be non-empty"},
		{name: "command fails", entries: helloEntries,
			o:      obs(T3, 1, "", "file:///x/index.js:839\n\t\tthrow new Error(`x`);\n\nError: dsh: failed to parse overlay /p: YAMLException: bad\n"),
			status: StageFailed, verdict: ConfigFailed, fe: "Error: dsh: failed to parse overlay /p: YAMLException: bad"},
		{name: "command fails although the dump is fine", entries: helloEntries,
			o: obs(T3, 1, "- id: hello-dsh\n  name: hello-dsh-plugin\n", ""), status: StageFailed, verdict: ConfigFailed},
		{name: "timeout", entries: helloEntries,
			o: func() Observation {
				o := obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n", "")
				o.TimedOut = true
				return o
			}(), status: StageFailed, verdict: ConfigFailed, fe: "timeout: T3 did not finish within its time limit"},
		{name: "exit 0 but unparseable", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: @x\n", "(node:9) [DEP0169] DeprecationWarning: x\n"), status: StageFailed, verdict: ConfigFailed,
			fe: SyntheticPrefix + "--dump-config exited 0 but its stdout is not a config tree*"},
		{name: "exit 0 with a mapping root", entries: helloEntries,
			o: obs(T3, 0, "id: hello-dsh\nname: hello-dsh-plugin\n", ""), status: StageFailed, verdict: ConfigFailed, reason: "root is a mapping"},
		{name: "exit 0 with empty stdout", entries: helloEntries,
			o: obs(T3, 0, "", ""), status: StageFailed, verdict: ConfigFailed, reason: "no YAML document"},
		{name: "exit 0 with two documents", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n---\n- id: x\n", ""), status: StageFailed, verdict: ConfigFailed,
			reason: "more than one"},
		{name: "stderr is not parsed as the dump", entries: helloEntries,
			o: obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n", "(node:9) [DEP0169] DeprecationWarning: x\n"), status: StagePassed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DeriveT3(tt.entries, tt.o, Limits{})
			checkResult(t, r, tt.status, tt.verdict, tt.fe)
			if tt.reason != "" && !hasReason(r, tt.reason) {
				t.Errorf("no reason containing %q in %q", tt.reason, r.Reasons)
			}
		})
	}
}

// A dump above the limit derives config_failed without being parsed; at
// the limit it is parsed as usual. SPEC.md "T3 dump size limit".
func TestDeriveT3DumpSizeLimit(t *testing.T) {
	dump := "- id: hello-dsh\n  name: hello-dsh-plugin\n"
	o := obs(T3, 0, dump, "")
	at := Limits{MaxDumpSize: int64(len(dump))}
	checkResult(t, DeriveT3(helloEntries, o, at), StagePassed, "", "")

	below := Limits{MaxDumpSize: int64(len(dump)) - 1}
	r := DeriveT3(helloEntries, o, below)
	checkResult(t, r, StageFailed, ConfigFailed, SyntheticPrefix+"--dump-config exited 0 but its stdout is 41 bytes, above the 40-byte dump size limit*")

	// Not parsed: a dump that is not YAML at all gets the same result.
	r2 := DeriveT3(helloEntries, obs(T3, 0, "- [unclosed\n"+dump[12:], ""), Limits{MaxDumpSize: 8})
	if r2.Verdict != ConfigFailed || !hasReason(r2, "dump size limit") {
		t.Errorf("oversized unparseable dump: %s %q", r2.Verdict, r2.Reasons)
	}

	// The zero limit is the default.
	big := obs(T3, 0, dump+strings.Repeat("# padding\n", DefaultMaxDumpSize/10), "")
	if r := DeriveT3(helloEntries, big, Limits{}); r.Verdict != ConfigFailed || !hasReason(r, fmt.Sprintf("above the %d-byte", DefaultMaxDumpSize)) {
		t.Errorf("default limit: %s %q", r.Verdict, r.Reasons)
	}
}

// Merges naming the same anchors over and over (billion-laughs style) are
// refused at the first merge key, not expanded: a dump at the size limit
// derives quickly. SPEC.md "Consumers".
func TestDeriveT3MergeBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("- id: l0\n  name: x\n  config:\n    a0: &a0 {k: v}\n")
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&b, "    a%d: &a%d {<<: [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]}\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	for b.Len() < DefaultMaxDumpSize-200 {
		b.WriteString("- <<: *a39\n")
	}
	b.WriteString("- id: hello-dsh\n  name: hello-dsh-plugin\n  <<: [*a39, *a39, {disabled: true}]\n")
	start := time.Now()
	r := DeriveT3(helloEntries, obs(T3, 0, b.String(), ""), Limits{})
	checkResult(t, r, StageFailed, ConfigFailed, "")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// disabled is tested by JavaScript's truthiness, as dsh's loader tests it
// (Boolean(options.disabled)), on the value js-yaml builds with dsh's
// JSON schema. SPEC.md "T3 mount", "Consumers".
func TestDeriveT3DisabledTruthiness(t *testing.T) {
	for _, tt := range []struct {
		value   string
		mounted bool
	}{
		{"true", false}, {"True", false}, {"TRUE", false},
		{"false", true}, {"False", true}, {"FALSE", true},
		{"'false'", false}, {"\"false\"", false}, {"no", false}, {"'no'", false}, {"off", false}, {"n", false},
		{"yes", false}, {"'0'", false}, {"' '", false},
		{"0", true}, {"-0", true}, {"+0", true}, {"0x0", true}, {"0o0", true}, {"0b0", true}, {"0.0", true}, {"-0.0", true}, {".nan", true},
		{"1", false}, {"0x1", false}, {".inf", false}, {"-1", false},
		{"null", true}, {"~", true}, {"", true}, {"''", true}, {"\"\"", true},
		{"{}", false}, {"[]", false}, {"[false]", false}, {"{a: 0}", false},
		{"!!str false", false}, {"!!str ''", true},
	} {
		dump := "- id: hello-dsh\n  name: hello-dsh-plugin\n  disabled: " + tt.value + "\n"
		r := DeriveT3(helloEntries, obs(T3, 0, dump, ""), Limits{})
		if got := r.Status == StagePassed; got != tt.mounted {
			t.Errorf("disabled: %s: mounted %v, want %v (%s %q)", tt.value, got, tt.mounted, r.Verdict, r.Reasons)
		}
		// The fast path and the reference agree on each.
		if fast, ok := parseDumpFast([]byte(dump)); ok {
			ref, err := parseDumpYAML([]byte(dump))
			if err != nil || fmt.Sprint(fast) != fmt.Sprint(ref) {
				t.Errorf("disabled: %s: fast path %v, reference %v %v", tt.value, fast, ref, err)
			}
		}
	}
}

// Aliases naming the same anchors over and over (billion-laughs style)
// are not expanded: an alias is its anchor's value, built once, as in
// js-yaml.
func TestDeriveT3AliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("- id: l0\n  name: x\n  config:\n    a0: &a0 {k: v}\n")
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&b, "    a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("- id: hello-dsh\n  name: hello-dsh-plugin\n")
	start := time.Now()
	r := DeriveT3(helloEntries, obs(T3, 0, b.String(), ""), Limits{})
	checkResult(t, r, StagePassed, "", "")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// A patch that repeats one id N times against a dump with M roots of
// that id builds the reason that lists the M lines once, not once per
// entry: N×M work an author controls within the patch and dump limits
// (11,396 entries against 14,562 roots took 10.8 s and allocated 8.7 GiB,
// issue 48). Each entry's reason still holds the list, so the bytes of
// the reasons stay N×M; allocations per entry stay flat from N to 4N.
func TestDeriveT3ListsDuplicateRootsOnce(t *testing.T) {
	build := func(n int) ([]Entry, Observation) {
		var d strings.Builder
		entries := make([]Entry, n)
		for i := range entries {
			entries[i] = Entry{ID: "a", Name: "p"}
			d.WriteString("- id: a\n  name: p\n")
		}
		return entries, obs(T3, 0, d.String(), "")
	}
	perEntry := func(n int) (allocs, size float64) {
		entries, o := build(n)
		var r StageResult
		allocs = testing.AllocsPerRun(1, func() { r = DeriveT3(entries, o, Limits{}) })
		if r.Status != StageFailed || len(r.Reasons) != n || !strings.Contains(r.Reasons[n-1], fmt.Sprintf("the dump has %d root entries with id \"a\" (lines 1, 3, 5, ", n)) ||
			!strings.Contains(r.Reasons[n-1], fmt.Sprintf(" and %d more)", n-maxListedLines)) {
			t.Fatalf("%d entries: %s, %d reasons, the last %.200q", n, r.Status, len(r.Reasons), r.Reasons[len(r.Reasons)-1])
		}
		for _, why := range r.Reasons {
			size += float64(len(why))
		}
		return allocs / float64(n), size / float64(n)
	}
	a, as := perEntry(250)
	b, bs := perEntry(1000)
	t.Logf("250 entries: %.1f allocations and %.0f bytes of reasons each; 1000: %.1f and %.0f", a, as, b, bs)
	if b > 1.5*a {
		t.Errorf("%.1f allocations per entry for 1000 entries, %.1f for 250: the duplicate roots are listed again per entry", b, a)
	}
	// Each reason names at most maxListedLines lines, so the reasons
	// held do not grow with the square of the entries.
	if bs > 1.5*as {
		t.Errorf("%.0f bytes of reasons per entry for 1000 entries, %.0f for 250: each reason lists every duplicate root", bs, as)
	}
}
