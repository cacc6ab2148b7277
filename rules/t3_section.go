package rules

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dshaudit/dshaudit/rules/jsyaml"
)

// DumpSectionPrefix starts the comment line dsh writes at column 0 before
// every run of dump rows from one source and the same patch layers:
// `# == <origin>` or `# == <origin>, patched by <layer>, <layer>…`, where
// the origin of a row a bundle's patch inserted is that bundle's package
// name (dsh-app-boot 0.1.0-rc.8 lib/index.js, groupedDump; dsh
// lib/dump-config-*.js labels each bundle layer with its packageName).
// SPEC.md "What the verifier cross-checks".
const DumpSectionPrefix = "# == "

// DumpSection returns the label of the `# ==` section that the dump's
// root entry at line stands in: the text after DumpSectionPrefix of the
// last line before it that starts with the prefix at column 0. ok is false
// when no such line precedes the entry, or when such a line may be inside
// a multi-line quoted scalar rather than a comment: the dump is outside
// the block style dsh writes (parseDumpFast gives up on it) and a scalar
// of it holds the prefix's text.
func DumpSection(dump []byte, line int) (label string, ok bool) {
	_, fast := parseDumpFast(dump)
	return dumpSection(dump, line, fast, &wholeDump{dump: dump}, &lineCursor{})
}

// wholeDump is a dump read whole by jsyaml.Load, once, for the readings
// of the entries of a dump the fast path gives up on (dumpSection and
// dumpEntryValue each read it whole), with whether a scalar of it holds
// the section prefix's text, found once.
type wholeDump struct {
	dump []byte
	read bool
	root *jsyaml.Value
	err  error

	textRead    bool
	sectionText bool
}

func (w *wholeDump) load() (*jsyaml.Value, error) {
	if !w.read {
		w.root, _, w.err = jsyaml.Load(w.dump)
		w.read = true
	}
	return w.root, w.err
}

// holdsSectionText reports whether the dump cannot be read whole or a
// string, expression source or key of it holds the section prefix's text.
func (w *wholeDump) holdsSectionText() bool {
	if !w.textRead {
		root, err := w.load()
		w.sectionText = err != nil || holdsText(root, strings.TrimSpace(DumpSectionPrefix), map[*jsyaml.Value]bool{})
		w.textRead = true
	}
	return w.sectionText
}

// lineCursor walks a dump's lines forward. The entries of a dump come in
// line order, so the readings of all of them pass over the dump once
// instead of once per entry from its start; a line before the cursor
// starts it again from the first line.
type lineCursor struct {
	n     int    // lines passed
	off   int    // offset of line n+1
	label []byte // the text after DumpSectionPrefix of the last section line passed
	ok    bool   // whether a section line was passed
	short bool   // the last line passed has no line feed: the dump ends with it
}

// seek passes the lines before line, as far as the dump has them.
func (c *lineCursor) seek(dump []byte, line int) {
	if c.n+1 > line {
		*c = lineCursor{}
	}
	for c.off < len(dump) && c.n+1 < line {
		rest := dump[c.off:]
		l := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l = rest[:i]
			c.off += i + 1
		} else {
			c.off = len(dump)
			c.short = true
		}
		c.n++
		if s, found := bytes.CutPrefix(l, []byte(DumpSectionPrefix)); found {
			c.label, c.ok = s, true
		}
	}
}

// lineStart returns the offset where line starts, and false when the dump
// has fewer lines (it has line-1 line feeds at least otherwise).
func (c *lineCursor) lineStart(dump []byte, line int) (int, bool) {
	c.seek(dump, line)
	if c.n+1 < line || c.short {
		return 0, false
	}
	return c.off, true
}

// dumpSection is DumpSection for a dump the fast path accepts (fast) or
// not (read whole by w), its lines walked by c.
func dumpSection(dump []byte, line int, fast bool, w *wholeDump, c *lineCursor) (label string, ok bool) {
	if !fast && w.holdsSectionText() {
		return "", false
	}
	c.seek(dump, line)
	return string(c.label), c.ok
}

// holdsText reports whether any string, expression source or key of v
// contains s. A value seen before (an alias shares its anchor's value) is
// not looked at again.
func holdsText(v *jsyaml.Value, s string, seen map[*jsyaml.Value]bool) bool {
	if v == nil || seen[v] {
		return false
	}
	seen[v] = true
	if (v.Kind == jsyaml.String || v.Kind == jsyaml.Expr) && strings.Contains(v.Str, s) {
		return true
	}
	for _, k := range v.Keys {
		if strings.Contains(k, s) {
			return true
		}
	}
	return slices.ContainsFunc(v.Items, func(x *jsyaml.Value) bool { return holdsText(x, s, seen) }) ||
		slices.ContainsFunc(v.Vals, func(x *jsyaml.Value) bool { return holdsText(x, s, seen) })
}

// DumpSectionOrigin is the origin of a section label: the label without
// its ", patched by …" tail. A package name holds no ", ".
func DumpSectionOrigin(label string) string {
	origin, _, _ := strings.Cut(label, ", patched by ")
	return origin
}

// EachSection calls f with the line number and label of each line of
// the dump that starts with DumpSectionPrefix, in order, until f returns
// false, whatever the dump's style. js-yaml's dump writes no scalar text
// at column 0, so in a dump dsh wrote these lines are exactly its section
// comments; in another YAML such a line may be a multi-line quoted
// scalar's text, and is read as a label all the same (SPEC.md "The run
// model", relation 8), rather than the dump read whole to tell the two
// apart, which at the size limit of one-character items costs 17 MiB
// beside the evidence.
func (dp *Dump) EachSection(f func(line int, label string) bool) {
	n := 0
	for rest := dp.raw; len(rest) > 0; {
		l := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		n++
		if s, found := bytes.CutPrefix(l, []byte(DumpSectionPrefix)); found && !f(n, string(s)) {
			return
		}
	}
}

// DumpSectionLayers returns the layers a section label names: its
// origin and each layer that patched the rows. dsh labels a bundle layer
// with its package name (one of the profile's dsh.profile.bundles, which
// holds no ", ") and the profile's and the home's patch files and the
// --patch overlays with their absolute paths (dsh lib/dump-config-*.js,
// runDumpConfig).
func DumpSectionLayers(label string) []string {
	origin, patchers, _ := strings.Cut(label, ", patched by ")
	var out []string
	if origin != "" {
		out = append(out, origin)
	}
	for l := range strings.SplitSeq(patchers, ", ") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// DumpEntryValue returns the dump's root item at line as js-yaml builds
// it. A dump in the block style dsh writes (parseDumpFast accepts it) is
// read only from the item's own lines, up to the next line at column 0
// that is not a comment; any other dump is read whole.
func DumpEntryValue(dump []byte, line int) (*jsyaml.Value, error) {
	_, fast := parseDumpFast(dump)
	return dumpEntryValue(dump, line, fast, &wholeDump{dump: dump}, &lineCursor{})
}

// dumpEntryValue is DumpEntryValue for a dump the fast path accepts
// (fast) or not (read whole by w), its lines walked by c.
func dumpEntryValue(dump []byte, line int, fast bool, w *wholeDump, c *lineCursor) (*jsyaml.Value, error) {
	src := dump
	var root *jsyaml.Value
	var err error
	if fast {
		src = dumpItemLines(dump, line, c)
		root, _, err = jsyaml.Load(src)
	} else {
		root, err = w.load()
	}
	if err != nil {
		return nil, fmt.Errorf("read as %s: %w", jsyaml.Consumer, err)
	}
	if root == nil || root.Kind != jsyaml.List {
		return nil, fmt.Errorf("dump root is %s, want a list", jsyaml.Describe(root))
	}
	if len(src) != len(dump) {
		if len(root.Items) != 1 {
			return nil, fmt.Errorf("line %d: %d root items, want one", line, len(root.Items))
		}
		return root.Items[0], nil
	}
	for _, it := range root.Items {
		if it.Line == line {
			return it, nil
		}
	}
	return nil, fmt.Errorf("no root item at line %d", line)
}

// dumpItemLines cuts the root item starting at line out of a dump in the
// block style: its first line and the lines after it up to the next one
// at column 0 that is not a comment. c walks the lines before it.
func dumpItemLines(dump []byte, line int, c *lineCursor) []byte {
	start, ok := c.lineStart(dump, line)
	if !ok {
		return nil
	}
	end := start
	for {
		i := bytes.IndexByte(dump[end:], '\n')
		if i < 0 {
			return dump[start:]
		}
		end += i + 1
		if end < len(dump) && dump[end] != ' ' && dump[end] != '#' && dump[end] != '\n' {
			return dump[start:end]
		}
	}
}

// RowsByID is PatchRows' rows by their id, the last row of an id where
// several have it, for the checks of many dump entries against them; a
// row whose id is not a string stands under "".
type RowsByID map[string]*jsyaml.Value

// IndexRows returns rows by their id.
func IndexRows(rows []*jsyaml.Value) RowsByID {
	by := make(RowsByID, len(rows))
	for _, r := range rows {
		id, _ := r.Get("id").String()
		by[id] = r
	}
	return by
}

// PatchRows returns the root rows a plugin's patch appends to the
// composed tree, as dsh's patch algorithm (cordis-plugin-include 1.0.6
// lib/index.js, applyEntryPatches) leaves them after the patch's own
// items: every item of a root `insert` list (a patch item with an insert
// list and no id), then each later non-insert item of the patch that
// targets one of them by id overwrites its keys (but id; skipped when its
// `name` is truthy and not the row's), and each later insert into one of
// them that is a group appends to its config list. Patch items that target
// other rows do not change these. The rows are copies; a patch that does
// not read as InsertEntries reads it is an error wrapping ErrPatch.
func PatchRows(patch []byte, lim Limits) ([]*jsyaml.Value, error) {
	r, err := ReadPatch(patch, lim)
	if err != nil {
		return nil, err
	}
	return r.Rows, r.RowsErr
}

// patchRows is PatchRows' state while ReadPatch reads the patch's items.
type patchRows struct {
	rows   []*jsyaml.Value
	budget int
	own    map[string]*jsyaml.Value // the patch's own rows by id, the latest one
	shadow map[string]bool          // ids whose latest row is another layer's or nested
	keys   rowKeys                  // the keys of rows later items change
}

func newPatchRows() *patchRows {
	return &patchRows{budget: MaxComposedValues, own: map[string]*jsyaml.Value{}, shadow: map[string]bool{}, keys: rowKeys{}}
}

// apply is the patch algorithm's step for one top-level item p.
func (pr *patchRows) apply(p *jsyaml.Value) {
	if p.Kind != jsyaml.Map {
		return
	}
	id, _ := p.Get("id").String()
	hasID := truthy(p.Get("id")) // JavaScript's `if (id)`
	if ins := p.Get("insert"); ins != nil && truthy(ins) {
		if ins.Kind != jsyaml.List {
			return // a string spreads into non-entries; anything else throws
		}
		items := make([]*jsyaml.Value, len(ins.Items))
		for i, it := range ins.Items {
			items[i] = cloneValue(it, &pr.budget)
		}
		if pr.budget < 0 {
			return
		}
		if hasID {
			if t := pr.own[id]; t != nil && !pr.shadow[id] && truthy(pr.keys.get(t, "group")) {
				cfg := pr.keys.get(t, "config")
				if cfg == nil || cfg.Kind != jsyaml.List {
					cfg = &jsyaml.Value{Kind: jsyaml.List}
					pr.keys.set(t, "config", cfg)
				}
				cfg.Items = append(cfg.Items, items...)
			}
		} else {
			pr.rows = append(pr.rows, items...)
		}
		// buildMap(insert): the inserted items and their groups'
		// children become the targets of their ids.
		mapRows(items, hasID, pr.own, pr.shadow)
		return
	}
	t := pr.own[id]
	if !hasID || t == nil || pr.shadow[id] {
		return
	}
	if name := p.Get("name"); truthy(name) && !strictEqual(name, pr.keys.get(t, "name")) {
		return
	}
	for i, k := range p.Keys {
		if k == "id" || k == "insert" || k == "name" {
			continue
		}
		pr.keys.set(t, k, p.Vals[i])
	}
}

// MaxComposedValues bounds the values PatchRows copies and ValueDiff
// compares: js-yaml gives every alias its anchor's very value, so a
// small patch or dump can share one value many times over, and copying
// or comparing it expands it. No real entry comes near it.
const MaxComposedValues = 1 << 16

// mapRows is the patch algorithm's buildMap over rows: each row with an
// id becomes its target, and a group's config children after it, nested.
func mapRows(items []*jsyaml.Value, nested bool, own map[string]*jsyaml.Value, shadow map[string]bool) {
	for _, it := range items {
		if rid, _ := it.Get("id").String(); rid != "" {
			own[rid], shadow[rid] = it, nested
		}
		if cfg := it.Get("config"); truthy(it.Get("group")) && cfg != nil && cfg.Kind == jsyaml.List {
			mapRows(cfg.Items, true, own, shadow)
		}
	}
}

// truthy is JavaScript's Boolean(v); an expression counts as truthy, as
// the object js-yaml builds for it is.
func truthy(v *jsyaml.Value) bool {
	if v != nil && v.Kind == jsyaml.Expr {
		return true
	}
	b, _ := jsyaml.Truthy(v)
	return b
}

// strictEqual is JavaScript's === on two values js-yaml built: scalars by
// value, objects never (two objects are never the same one here).
func strictEqual(a, b *jsyaml.Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case jsyaml.Null:
		return true
	case jsyaml.Bool:
		return a.Bool == b.Bool
	case jsyaml.Number:
		return a.Num == b.Num
	case jsyaml.String:
		return a.Str == b.Str
	}
	return false
}

// keyIndex is a mapping's values by key, the first of each key (Get).
func keyIndex(m *jsyaml.Value) map[string]*jsyaml.Value {
	idx := make(map[string]*jsyaml.Value, len(m.Keys))
	for i := len(m.Keys) - 1; i >= 0; i-- {
		idx[m.Keys[i]] = m.Vals[i]
	}
	return idx
}

// rowKeys indexes the keys of the rows a patch's later items read and
// change: a row of many keys can be the target of as many items as the
// patch's size admits, and a search of its keys per item, or per key of
// an item, was quadratic (DESIGN.md "Work an author can multiply"). Each
// row's index, made on first use, holds the position of the first of
// each key (jsyaml.Value.Get).
type rowKeys map[*jsyaml.Value]map[string]int

func (rk rowKeys) index(m *jsyaml.Value) map[string]int {
	idx := rk[m]
	if idx == nil {
		idx = make(map[string]int, len(m.Keys))
		for i := len(m.Keys) - 1; i >= 0; i-- {
			idx[m.Keys[i]] = i
		}
		rk[m] = idx
	}
	return idx
}

// get is m.Get(k) through the index.
func (rk rowKeys) get(m *jsyaml.Value, k string) *jsyaml.Value {
	if m.Kind != jsyaml.Map {
		return nil
	}
	if i, ok := rk.index(m)[k]; ok {
		return m.Vals[i]
	}
	return nil
}

// set sets a mapping's key, in place when it is there, else at the end
// (a JavaScript object's key order).
func (rk rowKeys) set(m *jsyaml.Value, k string, v *jsyaml.Value) {
	idx := rk.index(m)
	if i, ok := idx[k]; ok {
		m.Vals[i] = v
		return
	}
	idx[k] = len(m.Keys)
	m.Keys = append(m.Keys, k)
	m.Vals = append(m.Vals, v)
}

// cloneValue copies v, each shared value once per place, taking one from
// budget per value; it stops copying once budget is below zero.
func cloneValue(v *jsyaml.Value, budget *int) *jsyaml.Value {
	if v == nil || *budget < 0 {
		return nil
	}
	*budget--
	c := *v
	c.Items = make([]*jsyaml.Value, len(v.Items))
	for i, it := range v.Items {
		c.Items[i] = cloneValue(it, budget)
	}
	c.Keys = slices.Clone(v.Keys)
	c.Vals = make([]*jsyaml.Value, len(v.Vals))
	for i, it := range v.Vals {
		c.Vals[i] = cloneValue(it, budget)
	}
	return &c
}

// ValueDiff compares two values js-yaml built as data: mappings by their
// keys whatever their order, lists item by item, numbers by value (NaN
// equal to NaN), expressions by their source. It returns "" when they are
// equal, else the path of the first difference with both sides, e.g.
// `config.root[0]: "." against "src"`.
func ValueDiff(a, b *jsyaml.Value) string {
	budget := MaxComposedValues
	return valueDiff("", a, b, &budget)
}

func valueDiff(at string, a, b *jsyaml.Value, budget *int) string {
	if *budget--; *budget < 0 {
		return fmt.Sprintf("more than %d values to compare (aliases of one anchor, expanded), so the two are not shown equal", MaxComposedValues)
	}
	here := at
	if here == "" {
		here = "the entry"
	}
	if a == nil || b == nil {
		if a == nil && b == nil {
			return ""
		}
		return fmt.Sprintf("%s: %s against %s", here, describeOrAbsent(a), describeOrAbsent(b))
	}
	if a.Kind != b.Kind {
		return fmt.Sprintf("%s: %s against %s", here, describeValue(a), describeValue(b))
	}
	switch a.Kind {
	case jsyaml.List:
		for i := 0; i < max(len(a.Items), len(b.Items)); i++ {
			var x, y *jsyaml.Value
			if i < len(a.Items) {
				x = a.Items[i]
			}
			if i < len(b.Items) {
				y = b.Items[i]
			}
			if d := valueDiff(at+"["+strconv.Itoa(i)+"]", x, y, budget); d != "" {
				return d
			}
		}
		return ""
	case jsyaml.Map:
		// The keys by name, the first of a name as Get finds it: a
		// mapping can hold as many keys as its size admits, and a search
		// of the keys per key was keys² (24,000 took 1.5 s, issue 48).
		av, bv := keyIndex(a), keyIndex(b)
		keys := slices.Clone(a.Keys)
		for _, k := range b.Keys {
			if _, ok := av[k]; !ok {
				av[k] = nil
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			p := k
			if at != "" {
				p = at + "." + k
			}
			if d := valueDiff(p, av[k], bv[k], budget); d != "" {
				return d
			}
		}
		return ""
	case jsyaml.Number:
		if a.Num == b.Num || (a.Num != a.Num && b.Num != b.Num) {
			return ""
		}
	default:
		if strictEqual(a, b) || (a.Kind == jsyaml.Expr && a.Str == b.Str) {
			return ""
		}
	}
	return fmt.Sprintf("%s: %s against %s", here, describeValue(a), describeValue(b))
}

func describeOrAbsent(v *jsyaml.Value) string {
	if v == nil {
		return "absent"
	}
	return describeValue(v)
}

// describeValue names a scalar with its value (strings quoted), a
// collection by its kind.
func describeValue(v *jsyaml.Value) string {
	switch v.Kind {
	case jsyaml.String:
		return strconv.Quote(v.Str)
	case jsyaml.Expr:
		return "!!js " + strconv.Quote(v.Str)
	case jsyaml.Number:
		return jsyaml.FormatNumber(v.Num)
	case jsyaml.Bool:
		return strconv.FormatBool(v.Bool)
	}
	return jsyaml.Describe(v)
}

// EntryPlacement holds one root entry d of the dump that names the
// plugin to the plugin's own patch: it must stand in the section dsh labels with
// the package's name alone (a row the plugin's patch appended, which no
// later layer patched: a fresh profile has none), and equal, every field
// as js-yaml reads both, the row the recorded patch gives that id
// (PatchRows). It returns one sentence per broken relation, each naming
// both sides. SPEC.md "What the verifier cross-checks".
func (dp *Dump) EntryPlacement(d DumpEntry, pkg string, rows RowsByID) []string {
	dump, fast := dp.raw, dp.fast
	var out []string
	label, ok := dumpSection(dump, d.Line, fast, &dp.whole, &dp.cur)
	switch {
	case !ok:
		out = append(out, fmt.Sprintf("entry %q named %q at line %d of the dump stands under no %q section comment that can be told from the dump's text, so the plugin's own section %q is not shown", d.ID, d.Name, d.Line, strings.TrimSpace(DumpSectionPrefix), DumpSectionPrefix+pkg))
	case label != pkg:
		why := "another bundle's section: the plugin's own patch never appended it"
		if DumpSectionOrigin(label) == pkg {
			why = "the plugin's section as patched by a later layer, which a fresh profile does not have"
		}
		out = append(out, fmt.Sprintf("entry %q named %q at line %d of the dump stands in section %q, not in the plugin's own section %q: %s", d.ID, d.Name, d.Line, DumpSectionPrefix+label, DumpSectionPrefix+pkg, why))
	}
	want := rows[d.ID]
	if want == nil {
		return out // not an entry of the patch: the caller's id check names it
	}
	got, err := dumpEntryValue(dump, d.Line, fast, &dp.whole, &dp.cur)
	if err != nil {
		return append(out, fmt.Sprintf("entry %q at line %d of the dump cannot be read on its own: %v", d.ID, d.Line, err))
	}
	if diff := ValueDiff(got, want); diff != "" {
		out = append(out, fmt.Sprintf("entry %q at line %d of the dump differs from the row the recorded patch gives it (dump against patch), %s", d.ID, d.Line, diff))
	}
	return out
}
