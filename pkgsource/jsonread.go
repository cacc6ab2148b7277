package pkgsource

import (
	"encoding/json"
	"fmt"

	"github.com/dshaudit/dshaudit/internal/jsonwalk"
)

// checkJSON refuses raw, a JSON document npm reads (registry metadata,
// a package.json), unless it is one well-formed value that every
// plausible reader reads as JSON.parse does (jsonwalk.BOM,
// jsonwalk.CheckTree: no member repeated with other values, no lone
// surrogate, ...). SPEC.md "Consumers".
func checkJSON(raw []byte) error {
	if err := jsonwalk.BOM(raw); err != nil {
		return err
	}
	v, rest, err := jsonwalk.First(raw)
	if err != nil {
		return err
	}
	if jsonwalk.Trailing(rest) {
		return fmt.Errorf("data after the JSON value")
	}
	return jsonwalk.CheckTree(v)
}

// fields decodes the members of the JSON object raw named in into, each
// into its pointer, matching names exactly as JSON.parse's property
// lookup does (encoding/json would also take a member whose name
// differs in case only, "Name" for "name"). A member absent leaves its
// pointer as it is. raw must have passed checkJSON (no repeated
// member is then read otherwise than the last).
func fields(raw []byte, into map[string]any) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return err
	}
	if obj == nil {
		return fmt.Errorf("not a JSON object")
	}
	for name, ptr := range into {
		v, ok := obj[name]
		if !ok {
			continue
		}
		if err := json.Unmarshal(v, ptr); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
