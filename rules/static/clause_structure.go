package static

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
	"github.com/dshaudit/dshaudit/rules/jsyaml"
	"github.com/dshaudit/dshaudit/rules/yamlmerge"
)

// check511: $.dsh.bundle.patch exists and is a non-empty string naming a
// file inside the package. DSHIO/T 10 5.1.1, T 20 5.4.
// SPEC.md "5.1.1 Plugin declaration".
func check511(s *state) ClauseResult {
	raw, err := rawPatchPath(s.pkg)
	if err != nil {
		return ClauseResult{Status: NonConforming, Observed: "no usable dsh.bundle.patch",
			Message: err.Error()}
	}
	p, err := CleanPatchPath(raw)
	if err != nil {
		return ClauseResult{Status: NonConforming, Observed: "dsh.bundle.patch = " + quote(raw),
			Message: err.Error() + "; the value shall be the path of the patch file relative to the package root"}
	}
	s.patchPath = p
	return ClauseResult{Status: Conforming, Observed: "dsh.bundle.patch = " + quote(raw)}
}

// check512: the patch file was fetched and is non-empty. DSHIO/T 10 5.1.2,
// T 20 5.4 ("CDN returns non-empty content"). SPEC.md "5.1.2 Patch file exists".
func check512(s *state) ClauseResult {
	if s.patchPath == "" {
		return notEvaluated("no patch path to fetch: clause 5.1.1 is non-conforming")
	}
	switch {
	case s.in.Patch == nil:
		msg := "the patch file " + quote(s.patchPath) + " could not be fetched"
		if s.in.PatchFetchError != "" {
			msg += ": " + s.in.PatchFetchError
		}
		return ClauseResult{Status: NonConforming, Observed: "no content",
			Message: msg + "; common causes: the path differs from the declaration, or the files array omits the patch file"}
	case len(s.in.Patch) == 0:
		return ClauseResult{Status: NonConforming, Observed: "0 bytes",
			Message: "the patch file " + quote(s.patchPath) + " was fetched but is empty"}
	}
	s.patchOK = true
	return ClauseResult{Status: Conforming, Observed: strconv.Itoa(len(s.in.Patch)) + " bytes"}
}

// yamlLineRE pulls the line number out of a yaml.v3 error message.
var yamlLineRE = lazyregexp.New(`^yaml: line (\d+): (.*)$`)

// reservedIndicatorRE finds a plain scalar starting with a YAML reserved
// indicator (@ or `): after indentation, any "- " sequence markers and an
// optional "key:" part.
var reservedIndicatorRE = lazyregexp.New("^(\\s*(?:-\\s+)*(?:[^\\s#'\"@`][^#]*?:\\s+)?)([@`])")

// check513: the patch parses as YAML (one document). DSHIO/T 10 5.1.3.
// Parsed with gopkg.in/yaml.v3 into nodes, and read as dsh's loader reads
// it (js-yaml 4.3.1 with dsh's schema, rules/jsyaml): a patch js-yaml
// refuses, or that plausible readers read differently, is non-conforming.
// SPEC.md "5.1.3 Patch file is valid YAML", "Consumers".
func check513(s *state) ClauseResult {
	if !s.patchOK {
		return notEvaluated("no patch content: clause 5.1.2 is not conforming")
	}
	src := s.in.Patch
	if max := s.in.bound(MaxPatchBytes); len(src) > max {
		return ClauseResult{Status: NonConforming, Observed: fmt.Sprintf("%d bytes", len(src)),
			Message: fmt.Sprintf("the patch file is larger than dshaudit's %d-byte limit and was not parsed", max)}
	}
	if !utf8.Valid(src) {
		return ClauseResult{Status: NonConforming, Observed: "invalid UTF-8",
			Message: "the patch file is not valid UTF-8 text"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	err := dec.Decode(&doc)
	if err != nil && !errors.Is(err, io.EOF) {
		return yamlFailure(src, err)
	}
	if err == nil {
		var second yaml.Node
		if err2 := dec.Decode(&second); err2 == nil {
			return ClauseResult{Status: NonConforming, Observed: "several YAML documents",
				Message: fmt.Sprintf("the patch file holds more than one YAML document (a second starts at line %d); yaml.safe_load accepts exactly one", second.Line)}
		} else if !errors.Is(err2, io.EOF) {
			return yamlFailure(src, err2)
		}
	}
	// dsh's loader is js-yaml with its own schema: the patch must load
	// there, and read the same by every plausible reader. SPEC.md
	// "Consumers". It reads the tree decoded above, not a second one, and
	// keeps only the insert entries of the root list's items.
	var jsEntries []*jsyaml.Value
	_, _, jerr := jsyaml.LoadDecoded(src, &doc, func(item *jsyaml.Value) {
		if ins := item.Get("insert"); ins != nil && ins.Kind == jsyaml.List {
			jsEntries = append(jsEntries, ins.Items...)
		}
	})
	if jerr != nil {
		return ClauseResult{Status: NonConforming, Observed: "refused by " + jsyaml.Consumer,
			Message: "dsh reads the patch file with " + jsyaml.Consumer + ", and the readings differ or it refuses the file: " + jerr.Error()}
	}
	s.jsEntries = jsEntries
	s.parsed = true
	s.yr = yamlmerge.NewReader()
	if len(doc.Content) > 0 {
		s.doc = doc.Content[0]
	}
	r := ClauseResult{Status: Conforming, Observed: "parsed"}
	if s.doc == nil {
		r.Observed = "parsed: empty document (null)"
	} else {
		r.Warnings = yamlWarnings(s.doc)
	}
	return r
}

// yamlFailure reports a YAML parse error with its line and, when the cause
// is an unquoted reserved indicator, its column.
func yamlFailure(src []byte, err error) ClauseResult {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	r := ClauseResult{Status: NonConforming}
	if l, col, ch, ok := findReservedIndicator(src, line); ok {
		r.Observed = fmt.Sprintf("parse error at line %d, column %d: %s", l, col, msg)
		r.Message = fmt.Sprintf("line %d column %d: a plain value starts with %q, a reserved YAML indicator; quote the value (wrong: name: @scope/pkg; right: name: \"@scope/pkg\")", l, col, ch)
		return r
	}
	if line > 0 {
		r.Observed = fmt.Sprintf("parse error at line %d: %s", line, msg)
	} else {
		r.Observed = "parse error: " + msg
	}
	r.Message = "the patch file is not valid YAML (column not reported by the parser): " + msg
	return r
}

// findReservedIndicator looks for an unquoted value starting with @ or `
// on the given 1-based line, or on any line when line is 0. col is 1-based
// in characters.
func findReservedIndicator(src []byte, line int) (l, col int, ch string, ok bool) {
	// The lines of src one by one, as strings.Split(src, "\n") gives
	// them, without copying src or splitting it all.
	rest := src
	for i := 0; rest != nil; i++ {
		raw := rest
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			raw, rest = rest[:j], rest[j+1:]
		} else {
			rest = nil
		}
		if line > 0 && i+1 != line {
			if i+1 > line {
				break
			}
			continue
		}
		if !bytes.ContainsAny(raw, "@`") {
			continue // the regexp needs one; most lines have neither
		}
		text := string(raw)
		m := reservedIndicatorRE.FindStringSubmatchIndex(text)
		if m == nil {
			continue
		}
		return i + 1, utf8.RuneCountInString(text[:m[4]]) + 1, text[m[4]:m[5]], true
	}
	return 0, 0, "", false
}

// coreTags are the tags a YAML 1.2 core-schema loader resolves; any other
// explicit tag makes yaml.safe_load raise.
var coreTags = map[string]bool{
	"!!str": true, "!!int": true, "!!float": true, "!!bool": true, "!!null": true,
	"!!seq": true, "!!map": true, "!!timestamp": true, "!!binary": true,
	"!!merge": true,
}

// maxYAMLWarnings bounds the warnings one patch produces.
const maxYAMLWarnings = 10

// yamlWarnings reports what yaml.v3 accepts but another loader may not:
// duplicate mapping keys and non-core tags. Aliases are not followed, so
// the walk is linear in the document size.
func yamlWarnings(root *yaml.Node) []string {
	var w []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if len(w) >= maxYAMLWarnings {
			return
		}
		if n.Tag != "" && !coreTags[n.ShortTag()] && n.Style&yaml.TaggedStyle != 0 {
			w = append(w, fmt.Sprintf("line %d: tag %s is not a YAML core-schema tag; yaml.safe_load would reject it", n.Line, quote(n.Tag)))
		}
		if n.Kind == yaml.MappingNode {
			seen := map[string]bool{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind == yaml.ScalarNode {
					if seen[k.Value] && len(w) < maxYAMLWarnings {
						w = append(w, fmt.Sprintf("line %d: duplicate mapping key %s; JavaScript YAML loaders reject duplicate keys", k.Line, quote(k.Value)))
					}
					seen[k.Value] = true
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	return w
}

// deref follows one alias to its anchored node.
func deref(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// mapGet returns the value node of key in a mapping node: the first time
// it is written in the mapping, else the one its merge keys (`<<`) bring
// in, as a YAML 1.1 loader with merge keys builds the mapping (the T3
// rule reads patch and dump the same way). SPEC.md "T3 mount"
// (interpretation — merge keys).
func mapGet(yr *yamlmerge.Reader, m *yaml.Node, key string) (*yaml.Node, bool) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, false
	}
	v, n := yr.Get(m, key)
	return v, n > 0
}

// yamlKind names a node's type in JSON terms for messages.
func yamlKind(n *yaml.Node) string {
	n = deref(n)
	if n == nil {
		return "missing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return "a string"
		case "!!int":
			return "an integer"
		case "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		case "!!null":
			return "null"
		}
		return "a scalar tagged " + quote(n.ShortTag())
	case yaml.AliasNode:
		return "an unresolved alias"
	}
	return "an empty node"
}

// check514: the top level is a list with at least one mapping item that has
// insert. DSHIO/T 10 5.1.4. SPEC.md "5.1.4 Patch structure".
func check514(s *state) ClauseResult {
	if !s.parsed {
		return notEvaluated("the patch was not parsed: clause 5.1.3 is not conforming")
	}
	top := deref(s.doc)
	if top == nil {
		return ClauseResult{Status: NonConforming, Observed: "top level is null (empty document)",
			Message: "the top level of the patch file shall be a list containing at least one item with an insert field"}
	}
	if top.Kind != yaml.SequenceNode {
		return ClauseResult{Status: NonConforming, Observed: "top level is " + yamlKind(top),
			Message: "the top level of the patch file shall be a list containing at least one item with an insert field"}
	}
	for i, it := range top.Content {
		if it = deref(it); it.Kind == yaml.MappingNode {
			if _, ok := mapGet(s.yr, it, "insert"); ok {
				s.insertItems = append(s.insertItems, insertItem{index: i, node: it})
			}
		}
	}
	obs := fmt.Sprintf("top level is a list of %s, %d with insert", plural(len(top.Content), "item"), len(s.insertItems))
	if len(s.insertItems) == 0 {
		return ClauseResult{Status: NonConforming, Observed: obs,
			Message: "no item of the top-level list is a mapping with an insert field, so the plugin registers no entry"}
	}
	return ClauseResult{Status: Conforming, Observed: obs}
}

// insertItem is a top-level list item (a mapping) that has insert.
type insertItem struct {
	index int // position in the top-level list
	node  *yaml.Node
}

// entryRef is one entry of one insert list.
type entryRef struct {
	item, index int // top-level item position, position in its insert list
	node        *yaml.Node
}

func (e entryRef) String() string {
	return fmt.Sprintf("item %d insert entry %d (line %d)", e.item, e.index, e.node.Line)
}

// plural renders a count with its noun.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return strconv.Itoa(n) + " " + noun[:len(noun)-1] + "ies"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// insertEntries lists every entry of every insert list, and the problems
// with insert values that are not lists.
func insertEntries(yr *yamlmerge.Reader, items []insertItem) (entries []entryRef, problems []string) {
	for _, it := range items {
		v, _ := mapGet(yr, it.node, "insert")
		v = deref(v)
		if v.Kind != yaml.SequenceNode {
			problems = append(problems, fmt.Sprintf("item %d (line %d): insert is %s, expected a list", it.index, v.Line, yamlKind(v)))
			continue
		}
		for j, e := range v.Content {
			entries = append(entries, entryRef{item: it.index, index: j, node: deref(e)})
		}
	}
	return entries, problems
}

// check515: every entry in every insert list has non-empty string id and
// name. DSHIO/T 10 5.1.5. SPEC.md "5.1.5 Entry completeness".
func check515(s *state) ClauseResult {
	if len(s.insertItems) == 0 {
		return notEvaluated("no insert list to check: clause 5.1.4 is not conforming")
	}
	entries, problems := insertEntries(s.yr, s.insertItems)
	jsEntries := s.jsEntries
	for k, e := range entries {
		if e.node.Kind != yaml.MappingNode {
			problems = append(problems, fmt.Sprintf("%s is %s, expected a mapping with id and name", e, yamlKind(e.node)))
			continue
		}
		if p := s.yr.Problem(e.node); p != "" {
			problems = append(problems, fmt.Sprintf("%s: a YAML loader with merge keys refuses the entry (%s)", e, p))
			continue
		}
		for _, f := range []string{"id", "name"} {
			_, ok := mapGet(s.yr, e.node, f)
			// The type is js-yaml's (dsh's loader): `id: 1_000` is a
			// string there, `id: 0o17` a number.
			var jv *jsyaml.Value
			if k < len(jsEntries) {
				jv = jsEntries[k].Get(f)
			}
			str, isStr := jv.String()
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("%s: %s is missing", e, f))
			case !isStr:
				problems = append(problems, fmt.Sprintf("%s: %s is %s to %s, expected a non-empty string", e, f, jsyaml.Describe(jv), jsyaml.Consumer))
			case str == "":
				problems = append(problems, fmt.Sprintf("%s: %s is an empty string", e, f))
			}
		}
	}
	obs := fmt.Sprintf("%s in %s", plural(len(entries), "entry"), plural(len(s.insertItems), "insert list"))
	if len(problems) > 0 {
		return ClauseResult{Status: NonConforming, Observed: obs, Message: joinBounded(problems)}
	}
	r := ClauseResult{Status: Conforming, Observed: obs}
	if len(entries) == 0 {
		r.Warnings = []string{"every insert list is empty: the plugin registers no entry"}
	}
	return r
}
