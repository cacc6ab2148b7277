// Package pkgmeta reads the name and version an npm package's
// package.json declares, in memory that does not grow with the document:
// the verifier's cross-check of the metadata against the subject (SPEC.md
// "What the verifier cross-checks", class 6) reads a document of up to
// the reader's entry limit (16 MiB), written by the party whose claim it
// checks.
package pkgmeta

import (
	"errors"
	"fmt"

	"github.com/dshaudit/dshaudit/internal/jsonwalk"
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
// holds, read as JSON.parse, npm's reader, reads package.json (SPEC.md
// "Consumers"): the document is one well-formed JSON object with nothing
// but JSON white space around it; members are matched by their exact
// decoded name; of a repeated member the last counts; a null value reads
// as the empty string. Where another plausible reader would read them
// otherwise it refuses with a *jsonwalk.ConflictError: a byte order mark
// (npm strips it, JSON.parse refuses it), "name" or "version" repeated
// with other bytes (a reader keeping the first reads another package), a
// value with a lone surrogate or bytes that are not UTF-8. doc is
// checked by encoding/json's validator and walked in place (package
// jsonwalk), so memory is bounded by the two strings returned, whatever
// doc holds (TestNamesMemory; TestNamesAsJSONParse holds the reading to
// Node's JSON.parse). SPEC.md "What the verifier cross-checks", class
// 6.
func Names(doc []byte) (name, version string, err error) {
	obj, err := firstObject(doc)
	if err != nil {
		return "", "", err
	}
	nameRaw, err := jsonwalk.Last(obj, "name", "name")
	if err != nil {
		return "", "", err
	}
	versionRaw, err := jsonwalk.Last(obj, "version", "version")
	if err != nil {
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

// firstObject returns the one JSON value of doc, which must be a
// well-formed object followed by nothing but white space.
func firstObject(doc []byte) ([]byte, error) {
	if err := jsonwalk.BOM(doc); err != nil {
		return nil, err
	}
	v, rest, err := jsonwalk.First(doc)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrNotObject, err)
	case v[0] != '{':
		return nil, fmt.Errorf("%w: the document starts with %q, not '{'", ErrNotObject, v[0])
	case jsonwalk.Trailing(rest):
		return nil, ErrTrailingData
	}
	return v, nil
}

// stringValue reads a member's raw value as a string: null reads as the
// empty string, as json.Unmarshal into a string leaves it (SPEC.md "What
// the verifier cross-checks", class 6).
func stringValue(member string, raw []byte) (string, error) {
	switch {
	case raw == nil:
		return "", &MemberError{member, ErrMissingMember}
	case raw[0] == 'n':
		return "", nil
	case raw[0] != '"':
		return "", &MemberError{member, ErrNotString}
	}
	return jsonwalk.String(raw, member)
}
