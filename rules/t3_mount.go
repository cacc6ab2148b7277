package rules

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dshaudit/dshaudit/rules/jsyaml"
)

// DumpEntry is one item of the root list of a --dump-config output.
type DumpEntry struct {
	ID   string
	Name string
	// Disabled is JavaScript's Boolean() of the item's `disabled` value
	// as js-yaml builds it, the test dsh's loader applies: true, a
	// non-empty string ("false" and "no" included), a non-zero number, a
	// list or a mapping disable the entry; false, null, 0, NaN and ""
	// do not.
	Disabled bool
	// DisabledExpr holds the source of a `disabled:` value that is a
	// `!!js` expression, which dsh's loader evaluates at activation and
	// dshaudit does not: whether the entry is in effect is undecided.
	DisabledExpr string
	// Line is the item's 1-based line in the dump.
	Line int
}

// ParseDump reads a `dsh --profile web --dump-config` output as dsh's
// loader reads it, js-yaml 4.3.1 with dsh's schema (rules/jsyaml; SPEC.md
// "Consumers"), and returns the entries of its root list: every item that
// is a mapping whose `id` is a string. `!!js` scalars are kept as
// expressions, never evaluated. A dump that js-yaml refuses, or that
// another plausible reader would read differently (duplicate keys, merge
// keys, ...), is an error naming both readings. Items nested inside
// another item's config are not entries of the composed tree and are never
// returned. The dump must be exactly one YAML document whose root is a
// list. SPEC.md "T3 mount".
//
// A dump in the block style dsh writes is read by a fast path that gives
// the same entries without a node tree (t3_dump_fast.go); any other dump
// is read through the yaml.v3 node tree.
func ParseDump(stdout []byte) ([]DumpEntry, error) {
	d, err := ReadDump(stdout)
	if err != nil {
		return nil, err
	}
	return d.Entries, nil
}

// Dump is a T3 dump as ReadDump read it, for the checks that read the
// same dump again (Dump.EntryPlacement) without finding out a second time
// whether the fast path reads it.
type Dump struct {
	// Entries are ParseDump's entries.
	Entries []DumpEntry
	raw     []byte
	fast    bool
	// whole is the dump read whole, once for all its entries, when the
	// fast path gives up on it: ReadDump's own reading when the dump is
	// at most keepWholeDump bytes, else a second reading on first use.
	whole wholeDump
	// cur walks the dump's lines for its entries, which come in line
	// order, so that placing every entry reads the dump once.
	cur lineCursor
}

// Reads reports whether dp is the reading of these bytes.
func (dp *Dump) Reads(stdout []byte) bool {
	return bytes.Equal(dp.raw, stdout)
}

// keepWholeDump is the largest dump whose whole reading ReadDump keeps for
// the checks of its entries, instead of reading it again when one is
// checked. A larger one is read item by item (jsyaml.LoadItems), so that a
// dump at the size limit of one-character items does not hold all their
// values at once (issue 48); dsh's own dumps are about 16 KB.
const keepWholeDump = 64 << 10

// ReadDump is ParseDump, keeping the dump for the checks of its entries.
func ReadDump(stdout []byte) (*Dump, error) {
	if d, ok := parseDumpFast(stdout); ok {
		return &Dump{Entries: d, raw: stdout, fast: true}, nil
	}
	if len(stdout) > keepWholeDump {
		entries, err := parseDumpYAML(stdout)
		if err != nil {
			return nil, err
		}
		return &Dump{Entries: entries, raw: stdout, whole: wholeDump{dump: stdout}}, nil
	}
	root, _, err := jsyaml.Load(stdout)
	if err := dumpRootError(root, err); err != nil {
		return nil, err
	}
	dp := &Dump{raw: stdout, whole: wholeDump{dump: stdout, read: true, root: root}}
	for _, item := range root.Items {
		dp.Entries = appendDumpEntry(dp.Entries, item)
	}
	return dp, nil
}

// parseDumpYAML is ParseDump through a yaml.v3 node tree read as js-yaml
// builds it, item by item: ReadDump's reading of a dump above
// keepWholeDump that the fast path gives up on, and the reference the
// fast path is tested against.
func parseDumpYAML(stdout []byte) ([]DumpEntry, error) {
	var out []DumpEntry
	root, _, err := jsyaml.LoadItems(stdout, func(item *jsyaml.Value) {
		out = appendDumpEntry(out, item)
	})
	if err := dumpRootError(root, err); err != nil {
		return nil, err
	}
	return out, nil
}

// appendDumpEntry appends the entry a root item is, if it is one: a
// mapping whose id is a string.
func appendDumpEntry(out []DumpEntry, item *jsyaml.Value) []DumpEntry {
	if item.Kind != jsyaml.Map {
		return out
	}
	id, ok := item.Get("id").String()
	if !ok {
		return out
	}
	e := DumpEntry{ID: id, Line: item.Line}
	e.Name, _ = item.Get("name").String()
	d := item.Get("disabled")
	if b, decided := jsyaml.Truthy(d); decided {
		e.Disabled = b
	} else {
		e.DisabledExpr = "!!js " + d.Str
	}
	return append(out, e)
}

// dumpRootError is the error of a dump that js-yaml refuses or whose
// root is not a list.
func dumpRootError(root *jsyaml.Value, err error) error {
	if err != nil {
		return fmt.Errorf("read as %s: %w", jsyaml.Consumer, err)
	}
	if root == nil {
		return errors.New("no YAML document")
	}
	if root.Kind != jsyaml.List {
		return fmt.Errorf("dump root is %s, want a list", jsyaml.Describe(root))
	}
	return nil
}

// DeriveT3 derives the T3 mount result (DSHIO/T 20 chapter 8). The command
// failing or timing out is config_failed, as is an exit-0 output that is
// not a config tree (not one YAML document with a list root) and an
// exit-0 output larger than lim.MaxDumpSize, which is not parsed (SPEC.md
// "T3 dump size limit"; a zero limit is DefaultMaxDumpSize). Otherwise
// every insert entry of the patch must appear as a root-list item with its
// id, its declared name and not literally disabled; any entry missing, or
// a patch with no insert entry, is installs_but_not_registered.
// SPEC.md "T3 mount".
func DeriveT3(entries []Entry, o Observation, lim Limits) StageResult {
	if o.TimedOut {
		return timeoutResult(T3, ConfigFailed, o)
	}
	if o.ExitCode != 0 {
		return failed(T3, ConfigFailed, commandFailedError(o),
			[]string{fmt.Sprintf("--dump-config exited with code %d", o.ExitCode)})
	}
	if max := lim.maxDumpSize(); int64(len(o.Stdout)) > max {
		reasons := []string{fmt.Sprintf("--dump-config exited 0 but its stdout is %d bytes, above the %d-byte dump size limit, so it is not parsed as a config tree", len(o.Stdout), max)}
		return failed(T3, ConfigFailed, disagreementError(Observation{Stderr: o.Stderr}, reasons), reasons)
	}
	dp, err := ReadDump(o.Stdout)
	if err != nil {
		reasons := []string{fmt.Sprintf("--dump-config exited 0 but its stdout is not a config tree: %v", err)}
		// The dump is data, so only stderr may hold a line locating the cause.
		return failed(T3, ConfigFailed, disagreementError(Observation{Stderr: o.Stderr}, reasons), reasons)
	}
	dump := dp.Entries
	// Only the ids the patch's entries name are indexed: a dump holds
	// every plugin's entries and the patch a few.
	byID := make(map[string][]DumpEntry, len(entries))
	for _, e := range entries {
		byID[e.ID] = nil
	}
	for _, d := range dump {
		if items, ok := byID[d.ID]; ok {
			byID[d.ID] = append(items, d)
		}
	}
	var bad, good []string
	if len(entries) == 0 {
		bad = append(bad, "the patch declares no insert entry, so nothing of the plugin can reach the config tree")
	}
	// Each distinct entry is looked up once: a patch can repeat one id as
	// often as its size admits and the dump hold as many roots of it, and
	// the reason then lists the dump's every line of it (issue 48).
	type mount struct {
		ok  bool
		why string
	}
	mounted := map[Entry]mount{}
	for i, e := range entries {
		m, seen := mounted[e]
		if !seen {
			m.ok, m.why = entryMounted(e, byID[e.ID])
			mounted[e] = m
		}
		ok, why := m.ok, m.why
		if ok {
			good = append(good, why)
		} else {
			bad = append(bad, fmt.Sprintf("insert entry #%d: %s", i+1, why))
		}
	}
	if len(bad) == 0 {
		bad = packageConflicts(entries, dump)
	}
	if len(bad) > 0 {
		// No output line locates this cause: the dump is a well-formed tree.
		r := failed(T3, InstallsButNotRegistered, boundLine(SyntheticPrefix+bad[0]), bad)
		r.Dump = dp
		return r
	}
	r := passed(T3, good)
	r.Dump = dp
	return r
}

// maxListedLines bounds the dump lines a reason names: every insert
// entry of an id gets the reason, and a patch and a dump can each repeat
// one id as often as their size limits admit, so listing them all held
// the list once per entry (about 1 GiB at the limits, issue 48).
const maxListedLines = 16

// entryMounted decides one insert entry against the dump items with its
// id: exactly one, with the package's name, and in effect (not disabled
// by JavaScript's truthiness, not a !!js expression). Several items with
// the id conflict: which one dsh keeps is not in the dump, so none counts.
func entryMounted(e Entry, items []DumpEntry) (bool, string) {
	if e.ID == "" || e.Name == "" {
		return false, fmt.Sprintf("entry declares id %q and name %q; both must be non-empty to be found", e.ID, e.Name)
	}
	switch len(items) {
	case 0:
		return false, fmt.Sprintf("no root entry with id %q in the dump", e.ID)
	case 1:
	default:
		lines := make([]string, 0, min(len(items), maxListedLines))
		for _, d := range items[:min(len(items), maxListedLines)] {
			lines = append(lines, strconv.Itoa(d.Line))
		}
		listed := strings.Join(lines, ", ")
		if len(items) > maxListedLines {
			listed += fmt.Sprintf(" and %d more", len(items)-maxListedLines)
		}
		return false, fmt.Sprintf("the dump has %d root entries with id %q (lines %s); they conflict, since the dump does not say which one dsh's loader keeps", len(items), e.ID, listed)
	}
	d := items[0]
	switch {
	case d.Name != e.Name:
		return false, fmt.Sprintf("entry id %q is in the dump with name %q, want %q", e.ID, d.Name, e.Name)
	case d.Disabled:
		return false, fmt.Sprintf("entry id %q with name %q is in the dump at line %d but disabled: its disabled value is truthy to JavaScript, the test dsh's loader applies", e.ID, e.Name, d.Line)
	case d.DisabledExpr != "":
		return false, fmt.Sprintf("entry id %q with name %q is in the dump at line %d, but its disabled value %q is an expression dsh's loader evaluates at activation and dshaudit does not, so whether it is in effect is undecided", e.ID, e.Name, d.Line, d.DisabledExpr)
	}
	return true, fmt.Sprintf("entry id %q with name %q is in the dump at line %d", e.ID, e.Name, d.Line)
}

// packageConflicts lists the dump items that name the package but are
// not in effect (disabled or undecided), beside insert entries that are:
// every entry that names the plugin must agree. SPEC.md "T3 mount".
func packageConflicts(targets []Entry, dump []DumpEntry) []string {
	if len(targets) == 0 {
		return nil
	}
	pkg := targets[0].Name
	var out []string
	for _, d := range dump {
		if pkg == "" || d.Name != pkg || (!d.Disabled && d.DisabledExpr == "") {
			continue
		}
		state := "disabled (its disabled value is truthy to JavaScript)"
		if !d.Disabled {
			state = fmt.Sprintf("of undecided state (disabled is the expression %q)", d.DisabledExpr)
		}
		out = append(out, fmt.Sprintf("root entry id %q at line %d also names the package %q and is %s: the entries naming the plugin disagree", d.ID, d.Line, pkg, state))
	}
	return out
}
