package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DeriveT1 derives the T1 install result (DSHIO/T 20 chapter 6). T1
// passes only when the three observations agree: the command exited 0
// within its time limit, the output has an added-dependency line
// "+ <name> <version>" for the subject, and the profile's package.json
// lists the subject in "dependencies". Each disagreement is a Reason.
// SPEC.md "T1 install".
func DeriveT1(sub Subject, o Observation) StageResult {
	if o.TimedOut {
		return timeoutResult(T1, InstallFailed, o)
	}
	var reasons []string
	if sub.Name == "" || sub.Version == "" {
		reasons = append(reasons, fmt.Sprintf("subject name %q or version %q is empty", sub.Name, sub.Version))
	}
	if o.ExitCode != 0 {
		reasons = append(reasons, fmt.Sprintf("install command exited with code %d", o.ExitCode))
	}
	reasons = append(reasons, addedLineReasons(sub, mergedOutput(o))...)
	if r := profileDependencyReason(sub, o.ProfilePackageJSON); r != "" {
		reasons = append(reasons, r)
	}
	if len(reasons) == 0 {
		return passed(T1, []string{
			"install command exited 0",
			fmt.Sprintf("output has the added-dependency line \"+ %s %s\"", sub.Name, sub.Version),
			fmt.Sprintf("profile package.json dependencies contains %q", sub.Name),
		})
	}
	if o.ExitCode != 0 {
		return failed(T1, InstallFailed, commandFailedError(o), reasons)
	}
	return failed(T1, InstallFailed, disagreementError(o, reasons), reasons)
}

// addedLineReasons checks for pnpm's "+ <name> <version>" line. It returns
// nil when a line names the subject at its version, otherwise one reason.
func addedLineReasons(sub Subject, out []byte) []string {
	var other []string
	found := false
	eachRawLine(out, func(raw []byte) bool {
		// Cleaning removes characters and never adds a "+", so a line
		// without one cannot be an added-dependency line.
		if bytes.IndexByte(raw, '+') < 0 {
			return true
		}
		f := strings.Fields(cleanLine(raw))
		if len(f) < 3 || f[0] != "+" || f[1] != sub.Name {
			return true
		}
		if f[2] == sub.Version {
			found = true
			return false
		}
		other = append(other, f[2])
		return true
	})
	if found {
		return nil
	}
	if len(other) > 0 {
		return []string{fmt.Sprintf("added-dependency line names %s at version %q, want %q", sub.Name, other[0], sub.Version)}
	}
	return []string{fmt.Sprintf("output has no added-dependency line \"+ %s %s\"", sub.Name, sub.Version)}
}

// profileDependencyReason checks the profile package.json's dependencies
// (SPEC.md "T1 install", observation 3). The document is read as a stream
// of tokens, so that its memory is bounded whatever it holds: a hostile
// profile of millions of dependencies is never built into a map.
func profileDependencyReason(sub Subject, pkg []byte) string {
	if len(pkg) == 0 {
		return "no profile package.json was recorded after T1"
	}
	dep, err := ReadProfileDependency(pkg, sub.Name)
	if err != nil {
		return fmt.Sprintf("profile package.json is not a JSON object with a dependencies object: %v", err)
	}
	if !dep.Found {
		return fmt.Sprintf("profile package.json dependencies does not contain %q", sub.Name)
	}
	return ""
}

// ProfileDependency is what a profile package.json's dependencies say
// of one package name: whether they name it, and with what value.
// The T1 rule reads only Found; the verifier cross-checks the value
// against the subject (SPEC.md "What the verifier cross-checks", class
// 6).
type ProfileDependency struct {
	// Found: a "dependencies" object has a member of the name.
	Found bool
	// Value is the first such member's value when it is a string.
	Value string
	// NotString is "" when that value is a string, else its kind ("an
	// object", "a number", "null", ...).
	NotString string
	// Differs: a later member of the name (a repeated key, or another
	// "dependencies" object) has another value than the first.
	Differs bool
}

// ReadProfileDependency reads, as a stream of tokens, what the JSON
// object doc says of name under its members named exactly
// "dependencies" whose values are objects. A null document or null
// dependencies list nothing. The document must be one JSON value. Only
// the first value of name is kept, so memory does not grow with the
// number of members, whatever the document holds.
func ReadProfileDependency(doc []byte, name string) (ProfileDependency, error) {
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
			if err := readDependencies(dec, name, &dep, &firstRaw); err != nil {
				return dep, err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing brace
			return dep, err
		}
	default:
		return dep, fmt.Errorf("the document is %s, not an object", jsonKind(tok))
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
func readDependencies(dec *json.Decoder, key string, dep *ProfileDependency, firstRaw *json.RawMessage) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case nil:
		return nil
	case json.Delim('{'):
	default:
		return fmt.Errorf("dependencies is %s, not an object", jsonKind(tok))
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

// rawKind names the kind of a JSON value.
func rawKind(raw json.RawMessage) string {
	switch {
	case len(raw) == 0:
		return "nothing"
	case raw[0] == '{':
		return "an object"
	case raw[0] == '[':
		return "an array"
	case raw[0] == '"':
		return "a string"
	case raw[0] == 't' || raw[0] == 'f':
		return "a boolean"
	case raw[0] == 'n':
		return "null"
	}
	return "a number"
}

// jsonKind names the kind of value a JSON token starts.
func jsonKind(tok json.Token) string {
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
