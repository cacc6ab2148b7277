package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"unicode/utf8"
)

// parsedProfileDependency is the oracle of TestReadProfileDependencyAsParse:
// the whole document decoded into Go values (a decoded object keeps the
// last member of a name, as JSON.parse does) and the subject's member
// looked up in its "dependencies". It reads nothing of conflicts: where
// ReadProfileDependency refuses one, profileConflictJustified says
// whether readers could indeed disagree.
func parsedProfileDependency(doc []byte, name string) (ProfileDependency, error) {
	var dep ProfileDependency
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return dep, err
	}
	if len(bytes.TrimLeft(doc[dec.InputOffset():], " \t\r\n")) != 0 {
		return dep, errors.New("data after the JSON value")
	}
	if v == nil {
		return dep, nil
	}
	top, ok := v.(map[string]any)
	if !ok {
		return dep, errors.New("the document is not an object")
	}
	d, ok := top["dependencies"]
	if !ok || d == nil {
		return dep, nil
	}
	deps, ok := d.(map[string]any)
	if !ok {
		return dep, errors.New("dependencies is not an object")
	}
	val, ok := deps[name]
	if !ok {
		return dep, nil
	}
	dep.Found = true
	switch val := val.(type) {
	case string:
		dep.Value = val
	case nil:
		dep.NotString = "null"
	case map[string]any:
		dep.NotString = "an object"
	case []any:
		dep.NotString = "an array"
	case bool:
		dep.NotString = "a boolean"
	default:
		dep.NotString = "a number"
	}
	return dep, nil
}

// profileConflictJustified reports whether readers could read what doc
// says of name differently (SPEC.md "Consumers"): a byte order mark; a
// top-level "dependencies" repeated with other bytes; in the last one, a
// member name repeated with other bytes; that member's last value with
// bytes that are not UTF-8 or a surrogate escape (a pair counts too: the
// oracle is coarser than the reader).
func profileConflictJustified(doc []byte, name string) bool {
	if bytes.HasPrefix(doc, []byte("\xef\xbb\xbf")) {
		return true
	}
	deps, dup := lastMember(doc, "dependencies")
	if dup {
		return true
	}
	if deps == nil {
		return false
	}
	raw, dup := lastMember(deps, name)
	return dup || raw != nil && (!utf8.Valid(raw) || surrogateEscape.Match(raw))
}

var surrogateEscape = regexp.MustCompile(`(?i)\\ud[89a-f]`)

// lastMember reads obj token by token and returns its last member named
// key, and whether an earlier one had other bytes.
func lastMember(obj []byte, key string) (last json.RawMessage, dup bool) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return nil, false
		}
		if k != key {
			continue
		}
		if last != nil && !bytes.Equal(last, raw) {
			dup = true
		}
		last = raw
	}
	return last, dup
}
