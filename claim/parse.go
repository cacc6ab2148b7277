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
	// Notice is whether a line of its window carries DSHIO/T 21 8.2's
	// notice (items 3 and 4: not compared with undeviated reports, not a
	// basis for certification); NoticeLine is the first such line.
	Notice     bool `json:"-"`
	NoticeLine int  `json:"-"`
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
	pg := read(text)
	return parseLines(pg.forms, pg.raw)
}

// parseLines finds every declaration in lines as read gives them; raw
// are the lines as written.
func parseLines(lines []lineForms, raw []string) []Declaration {
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
			if k := setextUnderline(lines, raw, j); k >= 0 {
				// A setext heading (M2) ends the window, as an ATX one
				// does; the declaration's own heading's underline does
				// not.
				if k == j && setextStart(lines, raw, j-1) <= i {
					continue
				}
				break
			}
			d.field(f, j+1)
			if !d.Notice && isNotice(lines[j].lower) {
				d.Notice, d.NoticeLine = true, j+1
			}
		}
		out = append(out, d)
	}
	return out
}

// noticeComparable and noticeCertification are DSHIO/T 21 8.2 items 3
// and 4, each in the standard's wording ("The verdict shall not be
// compared with undeviated reports", "shall not be used as a basis for
// certification") or in the declaration's ("Not comparable with
// undeviated reports; not a basis for certification"), lower case.
var (
	noticeComparable    = []string{"not comparable with undeviated reports", "not be compared with undeviated reports"}
	noticeCertification = []string{"not a basis for certification", "not be used as a basis for certification"}
)

// isNotice reports whether the line (lower case, as a reader sees it,
// Markdown emphasis and runs of space aside) carries both halves of
// DSHIO/T 21 8.2's notice.
func isNotice(lower string) bool {
	if !strings.Contains(lower, "undeviated") {
		return false
	}
	l := collapseSpace(stripMarkup(lower))
	has := func(ws []string) bool {
		for _, w := range ws {
			if strings.Contains(l, w) {
				return true
			}
		}
		return false
	}
	return has(noticeComparable) && has(noticeCertification)
}

// isSetextUnderlineLine reports whether f is a setext heading underline
// (CommonMark 4.3): up to three spaces, a run of "=" or of "-", then only
// spaces, after a quote's ">" marks (a README quotes its declaration).
func isSetextUnderlineLine(f string) bool {
	t := strings.TrimLeft(unquote(f), " ")
	if len(f)-len(t) > 3 && !strings.HasPrefix(strings.TrimLeft(f, " "), ">") {
		return false
	}
	t = strings.TrimRight(t, " \t")
	if t == "" || (t[0] != '=' && t[0] != '-') {
		return false
	}
	return strings.Trim(t, t[:1]) == ""
}

// unquote strips a line's block-quote marks ("> > x" is "x").
func unquote(f string) string {
	for {
		t := strings.TrimLeft(f, " ")
		if !strings.HasPrefix(t, ">") {
			return f
		}
		f = strings.TrimPrefix(t[1:], " ")
	}
}

// paragraphLine reports whether line j can be a line of a paragraph a
// setext underline turns into a heading: not blank as a reader sees it
// (in its quote), not an ATX heading, and, as written, not a list item,
// a fence or indented code (whose last line an unindented "---" follows
// as a thematic break). Conservative: a line it rejects keeps the window
// open, as before setext headings ended it.
func paragraphLine(lines []lineForms, raw []string, j int) bool {
	if strings.TrimSpace(lines[j].text) == "" || isHeading(lines[j].text) || j >= len(raw) {
		return false
	}
	t := unquote(raw[j])
	if strings.HasPrefix(t, "    ") || strings.HasPrefix(t, "\t") || isHeading(t) {
		return false
	}
	t = strings.TrimLeft(t, " ")
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") || isSetextUnderlineLine(t) {
		return false
	}
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t') {
		return false
	}
	n := 0
	for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	return n == 0 || n >= len(t) || (t[n] != '.' && t[n] != ')')
}

// setextStart is the first line of the paragraph that holds line j: the
// line after the nearest line before it that is no paragraph line.
func setextStart(lines []lineForms, raw []string, j int) int {
	for j > 0 && paragraphLine(lines, raw, j-1) {
		j--
	}
	return j
}

// setextUnderline reports whether line j is part of a setext heading
// (SPEC.md "Markdown (M1–M5)", M2): the index of its underline when
// lines j.. run as paragraph lines to an underline (j itself when j is
// the underline, after a paragraph line), else -1. The scan stops at the
// window's end.
func setextUnderline(lines []lineForms, raw []string, j int) int {
	if j >= len(raw) {
		return -1
	}
	if isSetextUnderlineLine(raw[j]) {
		if j > 0 && paragraphLine(lines, raw, j-1) {
			return j
		}
		return -1
	}
	for k := j; k < len(lines) && k < len(raw) && k <= j+windowLines; k++ {
		if !paragraphLine(lines, raw, k) {
			if k > j && isSetextUnderlineLine(raw[k]) {
				return k
			}
			return -1
		}
	}
	return -1
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
