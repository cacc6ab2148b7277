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
	// markup is stripped before matching: emphasis, code spans, HTML line
	// breaks and tags.
	markupRE = lazyregexp.New("\\*\\*|__|`|<br\\s*/?>|</?[a-zA-Z][^>]*>")
)

// normalise strips the Markdown around a line of text: block quotes,
// list markers, emphasis, code spans, trailing hard-break spaces.
func normalise(line string) string {
	s := strings.TrimSpace(line)
	for {
		t := strings.TrimSpace(strings.TrimLeft(s, ">"))
		t = strings.TrimPrefix(t, "- ")
		t = strings.TrimPrefix(t, "* ")
		t = strings.TrimPrefix(t, "+ ")
		if t == s {
			break
		}
		s = t
	}
	s = markupRE.ReplaceAllString(s, "")
	return strings.TrimSpace(s)
}

// Lines splits text into lines, normalised, keeping 1-based numbering.
func Lines(text string) []string {
	raw := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	out := make([]string, len(raw))
	for i, l := range raw {
		out[i] = normalise(l)
	}
	return out
}

// Parse finds every declaration of conformity in text.
func Parse(text string) []Declaration {
	lines := Lines(text)
	var out []Declaration
	for i, l := range lines {
		m := conformsRE.FindStringSubmatch(l)
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
			f := lines[j]
			if conformsRE.MatchString(f) || headingRE.MatchString(strings.TrimSpace(f)) {
				break
			}
			switch {
			case testedRE.MatchString(f):
				d.Tested, d.TestedLine = testedRE.FindStringSubmatch(f)[1], j+1
			case fpRE.MatchString(f):
				d.Fingerprint, d.FPLine = fpRE.FindStringSubmatch(f)[1], j+1
			case packageRE.MatchString(f):
				d.Package, d.PackageLine = packageRE.FindStringSubmatch(f)[1], j+1
			case bundleRE.MatchString(f):
				d.Bundle, d.BundleLine = bundleRE.FindStringSubmatch(f)[1], j+1
			case deviationRE.MatchString(f):
				d.Deviations = append(d.Deviations, deviationRE.FindStringSubmatch(f)[1])
				d.DeviationLines = append(d.DeviationLines, j+1)
			}
		}
		out = append(out, d)
	}
	return out
}

func scopeOf(s string) string {
	if strings.Contains(strings.ToLower(s), "dynamic") {
		return ScopeStaticDynamic
	}
	return ScopeStaticOnly
}
