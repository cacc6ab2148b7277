package assemble

import (
	"fmt"
	"reflect"
	"slices"
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

// InformativeText is one informative text of a recorded result, by
// manifest field name (static.report.clauses[0].title) and by JSON
// Pointer into manifest.json (/static/report/clauses/0/title).
type InformativeText struct {
	Field, Pointer, Text string
}

// StaticInformative lists every informative text of r, by manifest
// field name, in report order.
func StaticInformative(r manifest.StaticReport) []InformativeText {
	var t []InformativeText
	add := func(field, ptr, s string) {
		if s != "" {
			t = append(t, InformativeText{field, ptr, s})
		}
	}
	addList := func(field, ptr string, l []string) {
		for i, s := range l {
			add(fmt.Sprintf("%s[%d]", field, i), fmt.Sprintf("%s/%d", ptr, i), s)
		}
	}
	add("static.report.reason", "/static/report/reason", r.Reason)
	addList("static.report.warnings", "/static/report/warnings", r.Warnings)
	for i, c := range r.Clauses {
		f, p := fmt.Sprintf("static.report.clauses[%d]", i), fmt.Sprintf("/static/report/clauses/%d", i)
		add(f+".title", p+"/title", c.Title)
		add(f+".observed", p+"/observed", c.Observed)
		add(f+".message", p+"/message", c.Message)
		addList(f+".questions", p+"/questions", c.Questions)
		addList(f+".material", p+"/material", c.Material)
		addList(f+".warnings", p+"/warnings", c.Warnings)
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
