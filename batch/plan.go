package batch

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/dshaudit/dshaudit/pkgsource"
)

// ErrPlan marks a plan that cannot be read: a line that is not a package
// spec, or an empty plan.
var ErrPlan = errors.New("bad plan")

// maxPlanLine bounds one plan line (a spec is at most 1024 bytes).
const maxPlanLine = 4096

// Entry is one spec of a plan and where it came from.
type Entry struct {
	// Line is the 1-based line of the plan file; 0 for a spec given on
	// the command line.
	Line int
	Spec pkgsource.Spec
}

// ParsePlan reads a plan: one package spec a line; blank lines and lines
// whose first non-blank character is "#" are skipped, and " #" starts a
// trailing comment (a github: spec's "#ref" has no blank before it).
// Every line that is not a spec is reported, each with its line number.
func ParsePlan(r io.Reader, name string) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1024), maxPlanLine)
	var out []Entry
	var errs []error
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		if i := strings.Index(line, "\t#"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		spec, err := pkgsource.ParseSpec(line)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: not a package spec: %w", name, n, err))
			continue
		}
		out = append(out, Entry{Line: n, Spec: spec})
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s:%d: %w", name, n+1, err))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrPlan, errors.Join(errs...))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s lists no package spec", ErrPlan, name)
	}
	return out, nil
}

// ParseArgs reads specs given on the command line.
func ParseArgs(args []string) ([]Entry, error) {
	var out []Entry
	var errs []error
	for i, a := range args {
		spec, err := pkgsource.ParseSpec(a)
		if err != nil {
			errs = append(errs, fmt.Errorf("argument %d: not a package spec: %w", i+1, err))
			continue
		}
		out = append(out, Entry{Spec: spec})
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrPlan, errors.Join(errs...))
	}
	return out, nil
}
