package rules

import (
	"fmt"
	"strings"
)

// Dependency is one "<name> <version>" line of a dependencies block.
type Dependency struct {
	Name    string
	Version string
	// Block numbers the dependencies block the line is in, from 1.
	Block int
	// Project is the block's project label, pnpm list's line before it
	// ("dsh-profile-web /dsh-home/profiles/web (PRIVATE)"): the last
	// non-blank line before the block's "dependencies:" line that is in
	// no block, trimmed; "" when there is none.
	Project string
}

// ListedDependencies parses the "dependencies:" blocks of
// `dsh plugin --profile web list` (pnpm list) output: the lines after a
// line reading "dependencies:" up to the next blank line or header (a line
// ending in ":"); each line's first two fields are the name and version.
// A line with fewer than two fields ends the block. SPEC.md "T2 list".
func ListedDependencies(stdout []byte) []Dependency {
	var deps []Dependency
	in, block := false, 0
	last, project := "", "" // the last non-blank line outside a block; the block's label
	eachLine(stdout, func(l string) bool {
		t := strings.TrimSpace(l)
		if t == "dependencies:" {
			in = true
			block++
			project = strings.Clone(last)
			return true
		}
		if in {
			f := strings.Fields(t)
			if t != "" && !strings.HasSuffix(t, ":") && len(f) >= 2 {
				// Clones: l may be a substring of the whole output (eachLine).
				deps = append(deps, Dependency{Name: strings.Clone(f[0]), Version: strings.Clone(f[1]), Block: block, Project: project})
				return true
			}
			in = false
		}
		if t != "" {
			last = t
		}
		return true
	})
	return deps
}

// DeriveT2 derives the T2 list result (DSHIO/T 20 chapter 7): pass when the
// list command exited 0 within its time limit and its stdout's
// dependencies blocks list the subject at its exact version, with no line
// naming it otherwise (listingReasons). A failure is
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
	reasons = append(reasons, listingReasons(sub, ListedDependencies(o.Stdout))...)
	if len(reasons) == 0 {
		return passed(T2, []string{fmt.Sprintf("dependencies block lists %s %s", sub.Name, sub.Version)})
	}
	if o.ExitCode != 0 {
		return failed(T2, InstallFailed, commandFailedError(o), reasons)
	}
	return failed(T2, InstallFailed, disagreementError(o, reasons), reasons)
}

// listingReasons checks the listing for the subject: every line naming it
// must agree, at its exact version and at most once in each block (one
// block per listed project), and at least one must. SPEC.md "T2 list".
func listingReasons(sub Subject, deps []Dependency) []string {
	var lines []string
	var other string
	perBlock := map[int]int{}
	twice := 0
	for _, d := range deps {
		if d.Name != sub.Name {
			continue
		}
		lines = append(lines, d.Name+" "+d.Version)
		if perBlock[d.Block]++; perBlock[d.Block] == 2 {
			twice = d.Block
		}
		if d.Version != sub.Version && other == "" {
			other = d.Version
		}
	}
	switch {
	case len(lines) == 0 || sub.Version == "":
		return []string{fmt.Sprintf("dependencies block does not list %s %s", sub.Name, sub.Version)}
	case other != "" && len(lines) == 1:
		return []string{fmt.Sprintf("dependencies block lists %s at version %q, want %q", sub.Name, other, sub.Version)}
	case other != "":
		return []string{fmt.Sprintf("the listing names %s %d times (%s), not all at %q: the lines conflict", sub.Name, len(lines), strings.Join(lines, ", "), sub.Version)}
	case twice > 0:
		return []string{fmt.Sprintf("dependencies block %d lists %s more than once; pnpm lists a dependency once per project, so the lines conflict", twice, sub.Name)}
	}
	return nil
}
