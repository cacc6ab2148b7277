package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// profileDependencyReason checks the profile package.json's dependencies.
func profileDependencyReason(sub Subject, pkg []byte) string {
	if len(pkg) == 0 {
		return "no profile package.json was recorded after T1"
	}
	var p struct {
		Dependencies map[string]json.RawMessage `json:"dependencies"`
	}
	if err := json.Unmarshal(pkg, &p); err != nil {
		return fmt.Sprintf("profile package.json is not a JSON object with a dependencies object: %v", err)
	}
	if _, ok := p.Dependencies[sub.Name]; !ok {
		return fmt.Sprintf("profile package.json dependencies does not contain %q", sub.Name)
	}
	return ""
}
