package rules

import (
	"fmt"
	"strings"
)

// Dependency is one "<name> <version>" line of a dependencies block.
type Dependency struct {
	Name    string
	Version string
}

// ListedDependencies parses the "dependencies:" blocks of
// `dsh plugin --profile web list` (pnpm list) output: the lines after a
// line reading "dependencies:" up to the next blank line or header (a line
// ending in ":"); each line's first two fields are the name and version.
// A line with fewer than two fields ends the block. SPEC.md "T2 list".
func ListedDependencies(stdout []byte) []Dependency {
	var deps []Dependency
	in := false
	eachLine(stdout, func(l string) bool {
		t := strings.TrimSpace(l)
		if t == "dependencies:" {
			in = true
			return true
		}
		if !in {
			return true
		}
		f := strings.Fields(t)
		if t == "" || strings.HasSuffix(t, ":") || len(f) < 2 {
			in = false
			return true
		}
		// Clones: l may be a substring of the whole output (eachLine).
		deps = append(deps, Dependency{Name: strings.Clone(f[0]), Version: strings.Clone(f[1])})
		return true
	})
	return deps
}

// DeriveT2 derives the T2 list result (DSHIO/T 20 chapter 7): pass when the
// list command exited 0 within its time limit and its stdout's
// dependencies block lists the subject at its exact version. A failure is
// install_failed (T 20 7.5 note), including a non-zero exit, since a list
// that cannot be produced does not show the installation completed.
// SPEC.md "T2 list".
func DeriveT2(sub Subject, o Observation) StageResult {
	if o.TimedOut {
		return timeoutResult(T2, InstallFailed, o)
	}
	var reasons []string
	if o.ExitCode != 0 {
		reasons = append(reasons, fmt.Sprintf("list command exited with code %d", o.ExitCode))
	}
	var versions []string
	found := false
	for _, d := range ListedDependencies(o.Stdout) {
		if d.Name != sub.Name {
			continue
		}
		if d.Version == sub.Version && sub.Version != "" {
			found = true
			break
		}
		versions = append(versions, d.Version)
	}
	switch {
	case found:
	case len(versions) > 0:
		reasons = append(reasons, fmt.Sprintf("dependencies block lists %s at version %q, want %q", sub.Name, versions[0], sub.Version))
	default:
		reasons = append(reasons, fmt.Sprintf("dependencies block does not list %s %s", sub.Name, sub.Version))
	}
	if len(reasons) == 0 {
		return passed(T2, []string{fmt.Sprintf("dependencies block lists %s %s", sub.Name, sub.Version)})
	}
	if o.ExitCode != 0 {
		return failed(T2, InstallFailed, commandFailedError(o), reasons)
	}
	return failed(T2, InstallFailed, disagreementError(o, reasons), reasons)
}
