package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dshaudit/dshaudit/internal/jsonwalk"
)

// DeriveT1 derives the T1 install result (DSHIO/T 20 chapter 6). T1
// passes only when the three observations agree: the command exited 0
// within its time limit, pnpm's summary on stdout has exactly one line
// for the subject, the added-dependency line "+ <name> <version>", and the profile's package.json
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
	reasons = append(reasons, addedLineReasons(sub, o.Stdout)...)
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

// addedLineReasons checks pnpm's added-dependency line, reading it as
// pnpm writes it: on stdout, in the summary block that a line reading
// exactly "dependencies:" opens and a blank line ends, a line "+ <name>
// <version>" (further fields allowed). It returns nil when exactly one
// line of exactly one such block names the subject and that line adds it
// at its version; otherwise one reason, naming the conflict when lines
// disagree. SPEC.md "T1 install", "Consumers".
func addedLineReasons(sub Subject, stdout []byte) []string {
	return addedLineReasonsRead(sub, stdout, eachAddedLineCandidate)
}

// addedLineReasonsRead is addedLineReasons reading stdout's lines with
// read: eachAddedLineCandidate, or eachLine in its test.
func addedLineReasonsRead(sub Subject, stdout []byte, read func([]byte, func(string) bool)) []string {
	blocks, in := 0, false
	var named []string // every block line naming the subject: "+ 1.0.0"
	var outside bool   // a "+ <subject> <version>" line outside a block
	read(stdout, func(l string) bool {
		switch {
		case l == "dependencies:":
			blocks++
			in = true
			return true
		case strings.TrimSpace(l) == "":
			in = false
			return true
		}
		f := strings.Fields(l)
		if len(f) < 3 || f[1] != sub.Name || (f[0] != "+" && f[0] != "-") {
			return true
		}
		if !in || l[0] != f[0][0] {
			outside = outside || (f[0] == "+" && f[2] == sub.Version)
			return true
		}
		named = append(named, f[0]+" "+f[2])
		return true
	})
	want := "+ " + sub.Version
	switch {
	case len(named) == 1 && named[0] == want && blocks == 1:
		return nil
	case len(named) == 1 && named[0] == want:
		return []string{fmt.Sprintf("stdout has %d \"dependencies:\" summary blocks; pnpm writes one, so the added-dependency lines conflict", blocks)}
	case len(named) > 1:
		return []string{fmt.Sprintf("pnpm's summary names %s %d times (%s); the added-dependency lines conflict", sub.Name, len(named), strings.Join(named, ", "))}
	case len(named) == 1 && strings.HasPrefix(named[0], "+ "):
		return []string{fmt.Sprintf("added-dependency line names %s at version %q, want %q", sub.Name, named[0][2:], sub.Version)}
	case len(named) == 1:
		return []string{fmt.Sprintf("pnpm's summary removes %s (%q), it does not add it", sub.Name, named[0])}
	case outside:
		return []string{fmt.Sprintf("a line \"+ %s %s\" is on stdout, but not in pnpm's \"dependencies:\" summary block, so it is not pnpm's added-dependency line", sub.Name, sub.Version)}
	}
	return []string{fmt.Sprintf("output has no added-dependency line \"+ %s %s\"", sub.Name, sub.Version)}
}

// eachAddedLineCandidate calls f, as eachLine would, with each line of
// stdout that addedLineReasons can take for anything: a line whose first
// byte after its spaces is "+", "-" or "d" ("dependencies:"), a blank
// line, or one whose first such byte is not printable ASCII (cleaned
// first, as eachLine cleans it). Any other line starts, once cleaned, with
// that printable byte, so it is neither "dependencies:" nor blank nor a
// "+"/"-" line, and addedLineReasons would pass over it: it is neither
// cleaned nor copied. A 60 MiB T1 log of progress lines is read at the
// speed of bytes.IndexByte (issue 48; TestAddedLineCandidatesAsEachLine).
func eachAddedLineCandidate(stdout []byte, f func(string) bool) {
	eachRawLine(stdout, func(l []byte) bool {
		i := 0
		for i < len(l) && l[i] == ' ' {
			i++
		}
		if i < len(l) {
			if c := l[i]; printableByte(c) && c != '+' && c != '-' && c != 'd' {
				return true
			}
		}
		return f(cleanLine(l))
	})
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
	if c, ok := jsonwalk.IsConflict(err); ok {
		return fmt.Sprintf("profile package.json is read otherwise by JSON.parse than by another reader, so what was installed cannot be told: %v", c)
	}
	if err != nil {
		return fmt.Sprintf("profile package.json is not a JSON object with a dependencies object: %v", err)
	}
	if !dep.Found {
		return fmt.Sprintf("profile package.json dependencies does not contain %q", sub.Name)
	}
	return ""
}

// ProfileDependency is what a profile package.json's dependencies say
// of one package name, read as JSON.parse reads it (SPEC.md
// "Consumers"): whether they name it, and with what value. The T1 rule
// reads only Found; the verifier cross-checks the value against the
// subject (SPEC.md "What the verifier cross-checks", class 6).
type ProfileDependency struct {
	// Found: the dependencies object JSON.parse reads has a member of
	// the name.
	Found bool
	// Value is that member's value when it is a string.
	Value string
	// NotString is "" when that value is a string, else its kind ("an
	// object", "a number", "null", ...).
	NotString string
}

// ReadProfileDependency reads what the JSON object doc says of name in
// its "dependencies", as JSON.parse, and so pnpm and dsh, read it: of
// several members of one name the last counts. Where another plausible
// reader would read otherwise — a byte order mark, a "dependencies" or
// a member of the name repeated with other bytes, a value that is not
// UTF-8 or holds a lone surrogate — it refuses with a
// *jsonwalk.ConflictError (SPEC.md "Consumers"). A null document or null
// dependencies list nothing. The document must be one JSON value with
// nothing but white space around it. doc is checked by encoding/json's
// validator and walked in place (package jsonwalk): no member is copied,
// so memory does not grow with the document, whatever it holds (SPEC.md
// "T1 install"). TestReadProfileDependencyAsParse checks it against a
// decoding of the whole document, and TestProfileAsJSONParse against
// Node's JSON.parse itself.
func ReadProfileDependency(doc []byte, name string) (ProfileDependency, error) {
	var dep ProfileDependency
	v, err := oneJSONValue(doc)
	if err != nil {
		return dep, err
	}
	switch v[0] {
	case 'n': // null
		return dep, nil
	case '{':
	default:
		return dep, kindError("the document", v)
	}
	deps, err := jsonwalk.Last(v, "dependencies", "dependencies")
	if err != nil || deps == nil {
		return dep, err
	}
	switch deps[0] {
	case 'n':
		return dep, nil
	case '{':
	default:
		return dep, kindError("dependencies", deps)
	}
	path := jsonwalk.Child("dependencies", name)
	raw, err := jsonwalk.Last(deps, name, path)
	if err != nil || raw == nil {
		return dep, err
	}
	dep.Found = true
	if raw[0] != '"' {
		dep.NotString = rawKind(raw)
		return dep, nil
	}
	dep.Value, err = jsonwalk.String(raw, path)
	return dep, err
}

// oneJSONValue returns the one JSON value doc is, with nothing but white
// space around it and no byte order mark (a reading conflict).
func oneJSONValue(doc []byte) ([]byte, error) {
	if err := jsonwalk.BOM(doc); err != nil {
		return nil, err
	}
	v, rest, err := jsonwalk.First(doc)
	if err != nil {
		return nil, err
	}
	if jsonwalk.Trailing(rest) {
		return nil, errTrailingJSON
	}
	return v, nil
}

// errTrailingJSON: a well-formed value is followed by more than white
// space.
var errTrailingJSON = errors.New("data after the JSON value")

// kindError says that what, a well-formed value other than an object or
// null, is not an object, in the words a token read gave: a number is
// first converted as a json.Decoder converts one into an interface
// value, whose failure (out of float64's range) was that read's error.
func kindError(what string, v []byte) error {
	if k := rawKind(v); k != "a number" {
		return fmt.Errorf("%s is %s, not an object", what, k)
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		return err
	}
	return fmt.Errorf("%s is a number, not an object", what)
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
