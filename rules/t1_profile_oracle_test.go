package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// tokenProfileDependency is ReadProfileDependency as dshaudit 0e0e43f
// had it, the oracle of TestReadProfileDependencyAsTokens: it reads, as a stream of tokens, what the JSON
// object doc says of name under its members named exactly
// "dependencies" whose values are objects. A null document or null
// dependencies list nothing. The document must be one JSON value. Only
// the first value of name is kept, so memory does not grow with the
// number of members, whatever the document holds.
func tokenProfileDependency(doc []byte, name string) (ProfileDependency, error) {
	var dep ProfileDependency
	dec := json.NewDecoder(bytes.NewReader(doc))
	tok, err := dec.Token()
	if err != nil {
		return dep, err
	}
	var firstRaw json.RawMessage // the first value, when it is not a string
	switch tok {
	case nil: // null
	case json.Delim('{'):
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return dep, err
			}
			if key != "dependencies" {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return dep, err
				}
				continue
			}
			if err := tokenDependencies(dec, name, &dep, &firstRaw); err != nil {
				return dep, err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing brace
			return dep, err
		}
	default:
		return dep, fmt.Errorf("the document is %s, not an object", tokenKind(tok))
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("more than one JSON value")
		}
		return dep, err
	}
	return dep, nil
}

// readDependencies reads the next value, which must be an object or
// null, and records in dep the values of its members named key: the
// first one, and whether a later one differs from it.
func tokenDependencies(dec *json.Decoder, key string, dep *ProfileDependency, firstRaw *json.RawMessage) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case nil:
		return nil
	case json.Delim('{'):
	default:
		return fmt.Errorf("dependencies is %s, not an object", tokenKind(tok))
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if k != key {
			continue
		}
		var s string
		isString := len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil
		switch {
		case !dep.Found:
			dep.Found = true
			if isString {
				dep.Value = s
			} else {
				dep.NotString = rawKind(raw)
				*firstRaw = raw
			}
		case isString:
			dep.Differs = dep.Differs || dep.NotString != "" || s != dep.Value
		default:
			dep.Differs = dep.Differs || dep.NotString == "" || !bytes.Equal(raw, *firstRaw)
		}
	}
	_, err = dec.Token() // the closing brace
	return err
}

// tokenKind names the kind of value a JSON token starts.
func tokenKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		if tok == json.Delim('[') {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}
