package assemble

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// StaticNormative is the part of a recorded T0 report that SPEC.md makes
// normative ("Normative and informative values"): what a verifier
// compares with its re-derivation. Everything else of the report (each
// clause's title, observed value, message, questions, material and
// warnings, the report's reason and warnings) is informative: worded by
// whoever wrote the bundle, never compared, shown as the writer's.
type StaticNormative struct {
	ConformingStatic *bool
	Unresolvable     bool
	// Reasoned: an unresolvable report gives a reason (false otherwise).
	Reasoned bool
	// Warned: a report whose conforming_static is false carries a warning
	// (false otherwise).
	Warned  bool
	Clauses []ClauseNormative
}

// ClauseNormative is one clause result's normative part.
type ClauseNormative struct {
	Clause, Status, Severity string
}

// NormativeStatic projects r onto its normative part. It is pure: two
// reports that differ only in informative texts project equal.
func NormativeStatic(r manifest.StaticReport) StaticNormative {
	n := StaticNormative{
		ConformingStatic: r.ConformingStatic,
		Unresolvable:     r.Unresolvable,
		Reasoned:         r.Unresolvable && r.Reason != "",
		Warned:           r.ConformingStatic != nil && !*r.ConformingStatic && len(r.Warnings) > 0,
	}
	for _, c := range r.Clauses {
		n.Clauses = append(n.Clauses, ClauseNormative{Clause: c.Clause, Status: c.Status, Severity: c.Severity})
	}
	return n
}

// FirstErrorIdentity is the normative part of a stage's first_error
// (SPEC.md "first_error"): an extracted output line is normative as a
// whole; a line dshaudit composes is normative only by its prefix
// (`dshaudit: ` or `timeout: `), the rest being informative.
func FirstErrorIdentity(s string) string {
	for _, p := range []string{rules.SyntheticPrefix, rules.TimeoutPrefix} {
		if strings.HasPrefix(s, p) {
			return p
		}
	}
	return s
}

// InformativeText is one informative text of a recorded result, by its
// place: Field and Pointer name it (static.report.clauses[0].title,
// /static/report/clauses/0/title), built only when asked for.
type InformativeText struct {
	InformativePlace
	Text string
}

// InformativePlace is where an informative text of a T0 report stands:
// Clause is the clause's index (-1 for the report's own texts), Part the
// field's name, and Item the index in a list field (-1 for one text).
type InformativePlace struct {
	Clause int
	Part   string
	Item   int
}

// Field is the manifest field name of the place.
func (p InformativePlace) Field() string {
	s := "static.report"
	if p.Clause >= 0 {
		s += ".clauses[" + strconv.Itoa(p.Clause) + "]"
	}
	s += "." + p.Part
	if p.Item >= 0 {
		s += "[" + strconv.Itoa(p.Item) + "]"
	}
	return s
}

// Pointer is the JSON Pointer of the place into manifest.json.
func (p InformativePlace) Pointer() string {
	s := "/static/report"
	if p.Clause >= 0 {
		s += "/clauses/" + strconv.Itoa(p.Clause)
	}
	s += "/" + p.Part
	if p.Item >= 0 {
		s += "/" + strconv.Itoa(p.Item)
	}
	return s
}

// StaticInformative lists every informative text of r, by place, in
// report order.
func StaticInformative(r manifest.StaticReport) []InformativeText {
	var t []InformativeText
	add := func(clause int, part string, item int, s string) {
		if s != "" {
			t = append(t, InformativeText{InformativePlace{clause, part, item}, s})
		}
	}
	addList := func(clause int, part string, l []string) {
		for i, s := range l {
			add(clause, part, i, s)
		}
	}
	add(-1, "reason", -1, r.Reason)
	addList(-1, "warnings", r.Warnings)
	for i, c := range r.Clauses {
		add(i, "title", -1, c.Title)
		add(i, "observed", -1, c.Observed)
		add(i, "message", -1, c.Message)
		addList(i, "questions", c.Questions)
		addList(i, "material", c.Material)
		addList(i, "warnings", c.Warnings)
	}
	return t
}

// AdoptInformative copies into rebuilt, a manifest rebuilt from the
// recorded inputs and the evidence, the informative texts of signed, the
// manifest the writer signed, wherever the normative parts agree: the
// whole T0 report when NormativeStatic projects both equal, and a stage's
// first_error when FirstErrorIdentity does. The writer's informative
// texts are recorded inputs (SPEC.md "Normative and informative values"),
// so a manifest rebuilt this way equals the signed one byte for byte
// exactly when every normative value does; where a normative part
// differs, rebuilt keeps its own texts.
func AdoptInformative(rebuilt, signed *manifest.Manifest) {
	if reflect.DeepEqual(NormativeStatic(rebuilt.Static.Report), NormativeStatic(signed.Static.Report)) {
		rebuilt.Static.Report = cloneStaticReport(signed.Static.Report)
	}
	for i := range min(len(rebuilt.Repetitions), len(signed.Repetitions)) {
		rs, ss := rebuilt.Repetitions[i].Stages, signed.Repetitions[i].Stages
		for j := range min(len(rs), len(ss)) {
			if rs[j].Stage == ss[j].Stage && FirstErrorIdentity(rs[j].FirstError) == FirstErrorIdentity(ss[j].FirstError) {
				rs[j].FirstError = ss[j].FirstError
			}
		}
	}
}

func cloneStaticReport(r manifest.StaticReport) manifest.StaticReport {
	c := r
	if r.ConformingStatic != nil {
		v := *r.ConformingStatic
		c.ConformingStatic = &v
	}
	c.Warnings = slices.Clone(r.Warnings)
	if r.Clauses != nil {
		c.Clauses = make([]manifest.ClauseResult, len(r.Clauses))
		for i, cl := range r.Clauses {
			cl.Questions, cl.Material, cl.Warnings = slices.Clone(cl.Questions), slices.Clone(cl.Material), slices.Clone(cl.Warnings)
			c.Clauses[i] = cl
		}
	}
	return c
}
