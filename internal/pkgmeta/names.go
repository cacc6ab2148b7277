// Package pkgmeta reads the name and version an npm package's
// package.json declares, in memory that does not grow with the document:
// the verifier's cross-check of the metadata against the subject (SPEC.md
// "What the verifier cross-checks", class 6) reads a document of up to
// the reader's entry limit (16 MiB), written by the party whose claim it
// checks.
package pkgmeta

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Sentinel errors of Names, one per failure class.
var (
	// ErrNotObject: the document does not start with one well-formed JSON
	// object (it is empty, another kind of value, or not JSON).
	ErrNotObject = errors.New("not one JSON object")
	// ErrTrailingData: something other than JSON white space follows the
	// object.
	ErrTrailingData = errors.New("data after the JSON object")
	// ErrMissingMember: the object has no member of the name (a
	// *MemberError says which).
	ErrMissingMember = errors.New("member missing")
	// ErrNotString: the member's value is not a JSON string or null (a
	// *MemberError says which).
	ErrNotString = errors.New("member not a string")
)

// MemberError is a failure of one member, "name" or "version"; it
// unwraps to ErrMissingMember or ErrNotString.
type MemberError struct {
	Member string
	Err    error
}

func (e *MemberError) Error() string {
	if e.Err == ErrMissingMember {
		return "no " + e.Member + " member"
	}
	return e.Member + " is not a JSON string"
}

func (e *MemberError) Unwrap() error { return e.Err }

// Names returns the "name" and "version" members of the JSON object doc
// holds, read as T0 reads package.json: the document is one well-formed
// JSON object with nothing but JSON white space around it; members are
// matched by their exact decoded name; a repeated member's last value
// counts; a null value reads as the empty string, as json.Unmarshal into
// a string leaves it. It is what decoding doc into a
// map[string]json.RawMessage and unmarshalling the two members gives
// (TestNamesAsDecoder, FuzzNames), without copying any member: doc is
// checked by encoding/json's validator and walked in place, so memory is
// bounded by the two strings returned, whatever doc holds. SPEC.md "What
// the verifier cross-checks", class 6.
func Names(doc []byte) (name, version string, err error) {
	obj, err := firstObject(doc)
	if err != nil {
		return "", "", err
	}
	var nameRaw, versionRaw []byte
	if err := eachMember(obj, func(key, value []byte) {
		switch {
		case keyIs(key, "name"):
			nameRaw = value
		case keyIs(key, "version"):
			versionRaw = value
		}
	}); err != nil {
		return "", "", err
	}
	if name, err = stringValue("name", nameRaw); err != nil {
		return "", "", err
	}
	if version, err = stringValue("version", versionRaw); err != nil {
		return "", "", err
	}
	return name, version, nil
}

// firstObject returns the first JSON value of doc, which must be a
// well-formed object followed by nothing but white space.
func firstObject(doc []byte) ([]byte, error) {
	i := skipSpace(doc, 0)
	if i == len(doc) {
		return nil, fmt.Errorf("%w: the document is empty", ErrNotObject)
	}
	if doc[i] != '{' {
		return nil, fmt.Errorf("%w: the document starts with %q, not '{'", ErrNotObject, doc[i])
	}
	end := valueEnd(doc, i)
	if err := syntaxError(doc[i:end]); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotObject, err)
	}
	if skipSpace(doc, end) < len(doc) {
		return nil, ErrTrailingData
	}
	return doc[i:end], nil
}

// syntaxError is encoding/json's verdict on data as one JSON value: nil
// when json.Valid accepts it, else the *json.SyntaxError json.Unmarshal
// returns, which checks all of data before it decodes anything (into
// discard, which keeps nothing).
func syntaxError(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	err := json.Unmarshal(data, &discard{})
	if err == nil {
		err = errors.New("json.Valid and json.Unmarshal disagree")
	}
	return err
}

// discard is an unmarshal target that keeps nothing.
type discard struct{}

func (*discard) UnmarshalJSON([]byte) error { return nil }

// stringValue unmarshals a member's raw value into a string, as the
// verifier did before this package (SPEC.md "What the verifier
// cross-checks", class 6).
func stringValue(member string, raw []byte) (string, error) {
	if raw == nil {
		return "", &MemberError{member, ErrMissingMember}
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", &MemberError{member, ErrNotString}
	}
	return v, nil
}
