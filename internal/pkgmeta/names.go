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
// holds, read as T0 reads package.json: the document is one well-formed
// JSON object with nothing but JSON white space around it; members are
// matched by their exact decoded name; a repeated member's last value
// counts; a null value reads as the empty string, as json.Unmarshal into
// a string leaves it. It is what decoding doc into a
// map[string]json.RawMessage and unmarshalling the two members gives
// (TestNamesAsDecoder, FuzzNames), without copying any member: doc is
// checked by encoding/json's validator and walked in place (package
// jsonwalk), so memory is bounded by the two strings returned, whatever
// doc holds. SPEC.md "What
// the verifier cross-checks", class 6.
func Names(doc []byte) (name, version string, err error) {
	obj, err := firstObject(doc)
	if err != nil {
		return "", "", err
	}
	var nameRaw, versionRaw []byte
	if err := jsonwalk.Members(obj, func(key, value []byte) bool {
		switch {
		case jsonwalk.KeyIs(key, "name"):
			nameRaw = value
		case jsonwalk.KeyIs(key, "version"):
			versionRaw = value
		}
		return true
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

// firstObject returns the one JSON value of doc, which must be a
// well-formed object followed by nothing but white space.
func firstObject(doc []byte) ([]byte, error) {
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
