package claim

import (
	"strings"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// Declaration is one parsed DSHIO/T 10 8.1 declaration of conformity.
type Declaration struct {
	// Line is the 1-based line of the "Conforms to" statement.
	Line int `json:"line"`
	// Standard is e.g. "DSHIO/T 10—2026"; Edition is "2026".
	Standard string `json:"standard"`
	Edition  string `json:"edition"`
	Baseline string `json:"baseline"`
	// Scope is ScopeStaticDynamic or ScopeStaticOnly.
	Scope       string `json:"scope"`
	Tested      string `json:"tested,omitempty"`
	TestedLine  int    `json:"tested_line,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	FPLine      int    `json:"fingerprint_line,omitempty"`
	Package     string `json:"package,omitempty"`
	PackageLine int    `json:"package_line,omitempty"`
	// Bundle is the evidence bundle digest, "sha256:<hex>", if declared.
	Bundle     string `json:"bundle,omitempty"`
	BundleLine int    `json:"bundle_line,omitempty"`
	// Deviations are the "Condition deviation:" lines declared with it.
	Deviations []string `json:"deviations,omitempty"`
	// DeviationLines are their 1-based line numbers, in the same order.
	DeviationLines []int `json:"deviation_lines,omitempty"`
	// Repeated are the values of a field the declaration gives more than
	// once, after the first (which the field above holds), in text order.
	// Each is checked like the first (SPEC.md "Checking a declaration
	// against the bundle"); the findings name them.
	Repeated []Field `json:"-"`
}

// Field is one value of a declaration's field, where it is written.
type Field struct {
	Name  string // FieldTested, …
	Value string
	Line  int
}

// The fields that hold one value each, by the name the text gives them.
const (
	FieldTested      = "Tested"
	FieldFingerprint = "Environment fingerprint"
	FieldPackage     = "Package"
	FieldBundle      = "Evidence bundle"
)

// set records a field's value: the first in *value, any later one in
// Repeated, where a silent last-one-wins would hide the first.
func (d *Declaration) set(name string, value *string, line *int, v string, at int) {
	if *value == "" {
		*value, *line = v, at
		return
	}
	d.Repeated = append(d.Repeated, Field{Name: name, Value: v, Line: at})
}

// Scopes a declaration can claim (DSHIO/T 10 8.1).
const (
	ScopeStaticDynamic = "static + dynamic layer"
	ScopeStaticOnly    = "static layer only"
)

// windowLines is how many lines after a "Conforms to" statement may carry
// its fields (Tested, Environment fingerprint, …), blank lines included,
// so that a README can put each on its own paragraph.
const windowLines = 12

var (
	conformsRE  = lazyregexp.New(`(?i)conforms\s+to\s+(DSHIO/T\s*10)\s*(?:—|–|-{1,2})\s*(\d{4})\s*\(\s*baseline\s+(?:DSH\s+)?([^,\s)]+)\s*,\s*(static\s*\+\s*dynamic(?:\s+layers?)?|static\s+layer\s+only|static\s+only)\s*\)`)
	testedRE    = lazyregexp.New(`(?i)^tested\s*:\s*(\S+)`)
	fpRE        = lazyregexp.New(`(?i)^environment\s+fingerprint\s*:\s*(\S+)`)
	packageRE   = lazyregexp.New(`(?i)^package\s*:\s*(\S+)`)
	bundleRE    = lazyregexp.New(`(?i)^evidence\s+bundle\s*:\s*(\S+)`)
	deviationRE = lazyregexp.New(`(?i)^condition\s+deviation\s*:\s*(.+)$`)
	headingRE   = lazyregexp.New(`^#{1,6}\s`)
)

// Lines splits text into lines as a reader sees them (HTML comments and
// the rest of what a rendered page does not show as text taken out,
// normalised; SPEC.md "Reading the text"), keeping 1-based numbering.
func Lines(text string) []string {
	return read(text).visible
}

// Parse finds every declaration of conformity in text.
func Parse(text string) []Declaration {
	return parseLines(read(text).forms)
}

// parseLines finds every declaration in lines as read gives them.
func parseLines(lines []lineForms) []Declaration {
	var out []Declaration
	for i, lf := range lines {
		if !strings.Contains(lf.lower, "conform") {
			continue // conformsRE needs the word
		}
		m := conformsRE.FindStringSubmatch(lf.text)
		if m == nil {
			continue
		}
		d := Declaration{
			Line:     i + 1,
			Standard: "DSHIO/T 10—" + m[2],
			Edition:  m[2],
			Baseline: m[3],
			Scope:    scopeOf(m[4]),
		}
		for j := i + 1; j < len(lines) && j <= i+windowLines; j++ {
			f := lines[j].text
			if strings.Contains(lines[j].lower, "conform") && conformsRE.MatchString(f) || isHeading(f) {
				break
			}
			d.field(f, j+1)
		}
		out = append(out, d)
	}
	return out
}

// isHeading reports whether f, trimmed, is an ATX heading (headingRE).
func isHeading(f string) bool {
	t := strings.TrimSpace(f)
	return strings.HasPrefix(t, "#") && headingRE.MatchString(t)
}

// field records line f (at 1-based line) if it is one of the
// declaration's fields. Each field pattern is anchored at the line's
// start and begins with an ASCII letter, matched without regard to case:
// the line's first byte says which pattern can match.
func (d *Declaration) field(f string, line int) {
	if f == "" {
		return
	}
	switch f[0] | 0x20 {
	case 't':
		if m := testedRE.FindStringSubmatch(f); m != nil {
			d.set(FieldTested, &d.Tested, &d.TestedLine, m[1], line)
		}
	case 'e':
		if m := fpRE.FindStringSubmatch(f); m != nil {
			d.set(FieldFingerprint, &d.Fingerprint, &d.FPLine, m[1], line)
		} else if m := bundleRE.FindStringSubmatch(f); m != nil {
			d.set(FieldBundle, &d.Bundle, &d.BundleLine, m[1], line)
		}
	case 'p':
		if m := packageRE.FindStringSubmatch(f); m != nil {
			d.set(FieldPackage, &d.Package, &d.PackageLine, m[1], line)
		}
	case 'c':
		if m := deviationRE.FindStringSubmatch(f); m != nil {
			d.Deviations = append(d.Deviations, m[1])
			d.DeviationLines = append(d.DeviationLines, line)
		}
	}
}

func scopeOf(s string) string {
	if strings.Contains(strings.ToLower(s), "dynamic") {
		return ScopeStaticDynamic
	}
	return ScopeStaticOnly
}
