package static

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dshaudit/dshaudit/rules/jsyaml"
	"github.com/dshaudit/dshaudit/rules/yamlmerge"
)

// entrySchema is the part of the entry JSON Schema dshaudit's minimal
// 5.1.6 check uses: the declared JSON types of the entry's top-level
// properties, and whether other properties are allowed.
type entrySchema struct {
	types           map[string][]string // property → allowed JSON types; empty = any
	noExtra         bool                // additionalProperties: false
	propertiesCount int
}

// parseEntrySchema reads the top-level "properties" (and
// "additionalProperties": false) of a JSON Schema object. It returns an
// error when the schema has no usable top-level properties.
func parseEntrySchema(b []byte, max int) (*entrySchema, error) {
	if len(b) > max {
		return nil, fmt.Errorf("the entry schema is %d bytes, more than the %d-byte limit, and was not parsed", len(b), max)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the entry schema is not valid JSON: %w", err)
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the entry schema is %s, expected a JSON Schema object", jsonKind(v))
	}
	props, ok := root["properties"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the entry schema has no top-level \"properties\" object; dshaudit's minimal check reads only that")
	}
	es := &entrySchema{types: map[string][]string{}, propertiesCount: len(props)}
	if ap, ok := root["additionalProperties"].(bool); ok && !ap {
		es.noExtra = true
	}
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			es.types[name] = nil
			continue
		}
		switch t := pm["type"].(type) {
		case string:
			es.types[name] = []string{t}
		case []any:
			for _, x := range t {
				if s, ok := x.(string); ok {
					es.types[name] = append(es.types[name], s)
				}
			}
		default:
			es.types[name] = nil
		}
	}
	return es, nil
}

// nodeJSONType maps a YAML node to the JSON Schema type it becomes.
func nodeJSONType(n *yaml.Node) string {
	n = deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		return "object"
	case yaml.SequenceNode:
		return "array"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int":
			return "integer"
		case "!!float":
			return "number"
		case "!!bool":
			return "boolean"
		case "!!null":
			return "null"
		}
		return "string"
	}
	return "unknown"
}

// jsJSONType is the JSON Schema type of a value as js-yaml builds it: a
// number with no fractional part is an integer, as JSON Schema counts it.
func jsJSONType(v *jsyaml.Value) string {
	switch v.Kind {
	case jsyaml.Map:
		return "object"
	case jsyaml.List:
		return "array"
	case jsyaml.Number:
		if v.Num == math.Trunc(v.Num) && !math.IsInf(v.Num, 0) {
			return "integer"
		}
		return "number"
	case jsyaml.Bool:
		return "boolean"
	case jsyaml.Null:
		return "null"
	}
	return "string"
}

// typeAllowed reports whether JSON type got satisfies one of want.
func typeAllowed(got string, want []string) bool {
	if len(want) == 0 {
		return true
	}
	for _, w := range want {
		if w == got || (w == "number" && got == "integer") {
			return true
		}
	}
	return false
}

// check516: optional entry fields conform to the official entry schema
// (from dsh --dump-config-schema). Without a schema the clause is "not
// checkable". With one, only top-level field presence and JSON types are
// checked. DSHIO/T 10 5.1.6. SPEC.md "5.1.6 Optional entry fields".
func check516(s *state) ClauseResult {
	if len(s.insertItems) == 0 {
		return notEvaluated("no insert list to check: clause 5.1.4 is not conforming")
	}
	var (
		es     *entrySchema
		err    error
		source string
	)
	switch {
	case s.in.EntrySchema != nil:
		es, err = parseEntrySchema(s.in.EntrySchema, s.in.bound(MaxEntrySchemaBytes))
		source = "schema"
	case s.in.EntryDeclaration != nil:
		es, err = parseEntryDeclaration(s.in.EntryDeclaration, s.in.bound(MaxEntryDeclarationBytes))
		source = "EntryOptions declaration"
	default:
		return ClauseResult{Status: NotCheckable, Observed: "no entry schema",
			Message: "no entry schema (dsh --dump-config-schema) and no EntryOptions declaration from the dsh in the image were available, so the optional entry fields cannot be checked against the official definition"}
	}
	if err != nil {
		return ClauseResult{Status: NotCheckable, Observed: "unusable entry " + source, Message: err.Error()}
	}
	entries, _ := insertEntries(s.yr, s.insertItems)
	jsEntries := s.jsEntries
	var problems []string
	checked := 0
	var cur *jsyaml.Value // the current entry as dsh's loader builds it
	checkField := func(e entryRef, key string, v *yaml.Node, from string) {
		want, known := es.types[key]
		if !known {
			if es.noExtra {
				problems = append(problems, fmt.Sprintf("%s: field %s%s is not in the entry schema, which allows no other fields", e, quote(key), from))
			}
			return
		}
		if t := deref(v).Tag; t == "!!js" || t == "!js" || t == "tag:yaml.org,2002:js" {
			return // an expression the loader evaluates (Entry.disabledOf): its type is known only then
		}
		checked++
		got := nodeJSONType(v)
		if jv := cur.Get(key); jv != nil {
			got = jsJSONType(jv) // the type dsh's loader gives it ("Consumers")
		}
		if !typeAllowed(got, want) {
			sorted := append([]string(nil), want...)
			sort.Strings(sorted)
			problems = append(problems, fmt.Sprintf("%s: field %s%s is %s, the %s allows %s", e, quote(key), from, got, source, strings.Join(sorted, " or ")))
		}
	}
	known := make([]string, 0, len(es.types))
	for k := range es.types {
		known = append(known, k)
	}
	sort.Strings(known)
	for idx, e := range entries {
		if e.node.Kind != yaml.MappingNode || s.yr.Problem(e.node) != "" {
			continue // reported by 5.1.5
		}
		cur = nil
		if idx < len(jsEntries) {
			cur = jsEntries[idx]
		}
		written := map[string]bool{}
		for i := 0; i+1 < len(e.node.Content); i += 2 {
			k, v := e.node.Content[i], e.node.Content[i+1]
			if k.Kind != yaml.ScalarNode || yamlmerge.IsMergeKey(k) {
				continue // a merge key is not a field: what it brings in is checked below
			}
			written[k.Value] = true
			if k.Value == "id" || k.Value == "name" {
				continue // id and name are clause 5.1.5's
			}
			checkField(e, k.Value, v, "")
		}
		// Fields merge keys bring in (SPEC.md "T3 mount", interpretation —
		// merge keys): each schema field the entry does not write, as the
		// loader builds it; and, when the schema allows no other fields,
		// every key of each merged mapping, each mapping once.
		for _, f := range known {
			if written[f] || f == "id" || f == "name" {
				continue
			}
			if v, n := s.yr.Get(e.node, f); n > 0 {
				checkField(e, f, v, fmt.Sprintf(" (merged in, line %d)", v.Line))
			}
		}
		if es.noExtra {
			for _, src := range s.yr.MergedOnce(e.node) {
				for i := 0; i+1 < len(src.Content); i += 2 {
					k := src.Content[i]
					if k.Kind != yaml.ScalarNode || yamlmerge.IsMergeKey(k) || k.Value == "id" || k.Value == "name" {
						continue
					}
					if _, known := es.types[k.Value]; !known {
						problems = append(problems, fmt.Sprintf("%s: field %s (merged in, line %d) is not in the entry schema, which allows no other fields", e, quote(k.Value), k.Line))
					}
				}
			}
		}
	}
	obs := fmt.Sprintf("%d optional fields checked against %d %s properties", checked, es.propertiesCount, source)
	if len(problems) > 0 {
		return ClauseResult{Status: NonConforming, Observed: obs, Message: joinBounded(problems)}
	}
	return ClauseResult{Status: Conforming, Observed: obs,
		Warnings: []string{"minimal schema check: top-level field JSON types and additionalProperties only; nested schemas, $ref, enum, formats and combinators are not checked"}}
}
