package rules

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/dshaudit/dshaudit/rules/yamlmerge"
)

// InsertEntries returns the insert entries of a plugin's patch file
// (DSHIO/T 10 5.1.4, 5.1.5): for every top-level item that is a mapping
// with an "insert" list, one Entry per item of that list, in file order.
// An insert item that is not a mapping, or whose id or name is missing or
// not a scalar, yields an Entry with that field empty: T3 then cannot find
// it, which is the honest outcome (SPEC.md "T3 mount"). Keys are read
// through merge keys (`<<`) as for the dump; an insert item whose merges a
// YAML 1.1 loader refuses yields an Entry with both fields empty. The patch must be
// exactly one YAML document whose root is a list, of at most
// lim.MaxStaticInput bytes (a larger one is not parsed, as T0's clause
// 5.1.3 does not parse it); otherwise the error wraps ErrPatch.
func InsertEntries(patch []byte, lim Limits) ([]Entry, error) {
	if max := lim.maxStaticInput(); int64(len(patch)) > max {
		return nil, fmt.Errorf("%w: %d bytes, above the %d-byte limit, not parsed", ErrPatch, len(patch), max)
	}
	root, err := parseSingleDocument(patch)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPatch, err)
	}
	if root.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%w: top level is a %s, want a list", ErrPatch, kindName(root))
	}
	var out []Entry
	rd := yamlmerge.NewReader()
	for _, item := range root.Content {
		item = resolve(item)
		if item.Kind != yaml.MappingNode || rd.Problem(item) != "" {
			continue
		}
		ins, _ := rd.Get(item, "insert")
		if ins == nil || ins.Kind != yaml.SequenceNode {
			continue
		}
		for _, e := range ins.Content {
			e = resolve(e)
			var ent Entry
			if e.Kind == yaml.MappingNode && rd.Problem(e) == "" {
				if v, n := rd.Get(e, "id"); n == 1 {
					ent.ID, _ = scalarString(v)
				}
				if v, n := rd.Get(e, "name"); n == 1 {
					ent.Name, _ = scalarString(v)
				}
			}
			out = append(out, ent)
		}
	}
	return out, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "node"
}

// MountTargets are the entries T3 looks for: each insert entry's id, with
// the package name as the name the dump must show. DSHIO/T 20 8.4: "the
// entry's name matches the package name" — not whatever name the patch
// declares. SPEC.md "T3 mount".
func MountTargets(sub Subject, entries []Entry) []Entry {
	out := make([]Entry, len(entries))
	for i, e := range entries {
		out[i] = Entry{ID: e.ID, Name: sub.Name}
	}
	return out
}
