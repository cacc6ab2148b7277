package rules

import (
	"fmt"

	"github.com/dshaudit/dshaudit/rules/jsyaml"
)

// InsertEntries returns the insert entries of a plugin's patch file
// (DSHIO/T 10 5.1.4, 5.1.5) as dsh's loader reads the file, js-yaml 4.3.1
// with dsh's schema (rules/jsyaml; SPEC.md "Consumers"): for every
// top-level item that is a mapping with an "insert" list, one Entry per
// item of that list, in file order. An insert item that is not a mapping,
// or whose id or name is missing or not a string to js-yaml, yields an
// Entry with that field empty: T3 then cannot find it, which is the honest
// outcome (SPEC.md "T3 mount"). The patch must be exactly one YAML
// document whose root is a list, that js-yaml loads and no other
// plausible reader reads differently, of at most lim.MaxStaticInput bytes
// (a larger one is not parsed, as T0's clause 5.1.3 does not parse it);
// otherwise the error wraps ErrPatch.
func InsertEntries(patch []byte, lim Limits) ([]Entry, error) {
	r, err := ReadPatch(patch, lim)
	return r.Entries, err
}

// PatchReading is one reading of a plugin's patch file: its insert
// entries (InsertEntries) and the root rows it appends (PatchRows), from
// one parse.
type PatchReading struct {
	Entries []Entry
	Rows    []*jsyaml.Value
	// RowsErr is the rows' own error where the entries read: insert
	// entries that expand beyond MaxComposedValues; Rows is then nil.
	RowsErr error
}

// ReadPatch reads patch once for its insert entries and its root rows.
// Its error is InsertEntries'; where there is one, the reading is empty.
func ReadPatch(patch []byte, lim Limits) (PatchReading, error) {
	if max := lim.maxStaticInput(); int64(len(patch)) > max {
		return PatchReading{}, fmt.Errorf("%w: %d bytes, above the %d-byte limit, not parsed", ErrPatch, len(patch), max)
	}
	var r PatchReading
	rows := newPatchRows()
	// The patch's items one at a time (jsyaml.LoadItems): none is looked
	// at again once the next is read, so the list is never held whole.
	root, _, err := jsyaml.LoadItems(patch, func(item *jsyaml.Value) {
		if ins := item.Get("insert"); ins != nil && ins.Kind == jsyaml.List {
			for _, e := range ins.Items {
				var ent Entry
				ent.ID, _ = e.Get("id").String()
				ent.Name, _ = e.Get("name").String()
				r.Entries = append(r.Entries, ent)
			}
		}
		rows.apply(item)
	})
	if err != nil {
		return PatchReading{}, fmt.Errorf("%w: read as %s: %w", ErrPatch, jsyaml.Consumer, err)
	}
	if root == nil {
		return PatchReading{}, fmt.Errorf("%w: no YAML document", ErrPatch)
	}
	if root.Kind != jsyaml.List {
		return PatchReading{}, fmt.Errorf("%w: top level is %s, want a list", ErrPatch, jsyaml.Describe(root))
	}
	if rows.budget < 0 {
		r.RowsErr = fmt.Errorf("%w: its insert entries expand to more than %d values (aliases of one anchor, copied)", ErrPatch, MaxComposedValues)
	} else {
		r.Rows = rows.rows
	}
	return r, nil
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
