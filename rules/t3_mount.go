package rules

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/dshaudit/dshaudit/rules/yamlmerge"
)

// DumpEntry is one item of the root list of a --dump-config output.
type DumpEntry struct {
	ID   string
	Name string
	// Disabled is true when the item carries a literal `disabled: true`,
	// written or merged in, or cannot be built (Unloadable).
	Disabled bool
	// Unloadable says why a YAML 1.1 loader with merge keys would refuse
	// the item's merges; such an item counts as disabled.
	Unloadable string
	// DisabledExpr holds the source of a `disabled:` value that is not a
	// literal boolean (e.g. a `!!js` expression), which is not evaluated.
	DisabledExpr string
	// Line is the item's 1-based line in the dump.
	Line int
}

// ParseDump decodes a `dsh --profile web --dump-config` output as YAML
// nodes (comments and custom tags such as `!!js` are kept as node data,
// never evaluated) and returns the entries of its root list: every item
// that is a mapping with exactly one scalar `id`. Keys are read through
// merge keys (`<<`) as a YAML 1.1 loader builds the mapping; an item whose
// merges such a loader refuses counts as disabled. Items nested inside
// another item's config are not entries of the composed tree and are never
// returned. The dump must be exactly one YAML document whose root is a
// list. SPEC.md "T3 mount".
//
// A dump in the block style dsh writes is read by a fast path that gives
// the same entries without a node tree (t3_dump_fast.go); any other dump
// is parsed with yaml.v3.
func ParseDump(stdout []byte) ([]DumpEntry, error) {
	if d, ok := parseDumpFast(stdout); ok {
		return d, nil
	}
	return parseDumpYAML(stdout)
}

// parseDumpYAML is ParseDump through a yaml.v3 node tree: the reference
// the fast path is tested against.
func parseDumpYAML(stdout []byte) ([]DumpEntry, error) {
	root, err := parseSingleDocument(stdout)
	if err != nil {
		return nil, err
	}
	if root.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("dump root is a %s, want a list", kindName(root))
	}
	var out []DumpEntry
	rd := yamlmerge.NewReader()
	for _, item := range root.Content {
		line := item.Line
		item = resolve(item)
		if item.Kind != yaml.MappingNode {
			continue
		}
		idNode, n := rd.Get(item, "id")
		if n != 1 {
			continue
		}
		id, ok := scalarString(idNode)
		if !ok {
			continue
		}
		e := DumpEntry{ID: id, Line: line}
		if nameNode, n := rd.Get(item, "name"); n == 1 {
			e.Name, _ = scalarString(nameNode)
		}
		if d, n := rd.Get(item, "disabled"); n > 0 {
			if d.Kind == yaml.ScalarNode && d.ShortTag() == "!!bool" {
				var b bool
				if d.Decode(&b) == nil {
					e.Disabled = b
				}
			} else {
				e.DisabledExpr = d.Tag + " " + d.Value
			}
			if n > 1 {
				e.Disabled = true // ambiguous: refuse to count it as in effect
			}
		}
		if p := rd.Problem(item); p != "" {
			e.Disabled, e.Unloadable = true, p
		}
		out = append(out, e)
	}
	return out, nil
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
	dump, err := ParseDump(o.Stdout)
	if err != nil {
		reasons := []string{fmt.Sprintf("--dump-config exited 0 but its stdout is not a config tree: %v", err)}
		// The dump is data, so only stderr may hold a line locating the cause.
		return failed(T3, ConfigFailed, disagreementError(Observation{Stderr: o.Stderr}, reasons), reasons)
	}
	byID := map[string][]DumpEntry{}
	for _, d := range dump {
		byID[d.ID] = append(byID[d.ID], d)
	}
	var bad, good []string
	if len(entries) == 0 {
		bad = append(bad, "the patch declares no insert entry, so nothing of the plugin can reach the config tree")
	}
	for i, e := range entries {
		ok, why := entryMounted(e, byID[e.ID])
		if ok {
			good = append(good, why)
		} else {
			bad = append(bad, fmt.Sprintf("insert entry #%d: %s", i+1, why))
		}
	}
	if len(bad) > 0 {
		// No output line locates this cause: the dump is a well-formed tree.
		return failed(T3, InstallsButNotRegistered, boundLine(SyntheticPrefix+bad[0]), bad)
	}
	return passed(T3, good)
}

// entryMounted decides one insert entry against the dump items with its id.
func entryMounted(e Entry, items []DumpEntry) (bool, string) {
	if e.ID == "" || e.Name == "" {
		return false, fmt.Sprintf("entry declares id %q and name %q; both must be non-empty to be found", e.ID, e.Name)
	}
	if len(items) == 0 {
		return false, fmt.Sprintf("no root entry with id %q in the dump", e.ID)
	}
	var names []string
	disabled, unloadable := false, ""
	for _, d := range items {
		if d.Name != e.Name {
			names = append(names, d.Name)
			continue
		}
		if d.Disabled {
			disabled = true
			if unloadable == "" {
				unloadable = d.Unloadable
			}
			continue
		}
		why := fmt.Sprintf("entry id %q with name %q is in the dump at line %d", e.ID, e.Name, d.Line)
		if d.DisabledExpr != "" {
			why += fmt.Sprintf(" (its disabled value %q is an expression, not evaluated)", d.DisabledExpr)
		}
		return true, why
	}
	if unloadable != "" {
		return false, fmt.Sprintf("entry id %q with name %q is in the dump, but a YAML loader with merge keys refuses its mapping (%s), so it counts as disabled", e.ID, e.Name, unloadable)
	}
	if disabled {
		return false, fmt.Sprintf("entry id %q with name %q is in the dump but disabled: true", e.ID, e.Name)
	}
	return false, fmt.Sprintf("entry id %q is in the dump with name %q, want %q", e.ID, names[0], e.Name)
}
