package assemble

import (
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules/static"
)

// WireStaticReport is r as the manifest records it. Nil lists stay nil
// and empty ones empty, so the encoding is the report's own.
func WireStaticReport(r static.Report) manifest.StaticReport {
	w := manifest.StaticReport{
		ConformingStatic: r.ConformingStatic,
		Unresolvable:     r.Unresolvable,
		Reason:           r.Reason,
		Warnings:         r.Warnings,
	}
	if r.Clauses != nil {
		w.Clauses = make([]manifest.ClauseResult, len(r.Clauses))
		for i, c := range r.Clauses {
			w.Clauses[i] = manifest.ClauseResult{
				Clause: c.Clause, Title: c.Title, Status: string(c.Status), Severity: string(c.Severity),
				Observed: c.Observed, Message: c.Message, Questions: c.Questions, Material: c.Material, Warnings: c.Warnings,
			}
		}
	}
	return w
}

// StaticReportOf is the T0 report a manifest records, as rules/static's
// type (the inverse of WireStaticReport). It reads what the bundle
// claims; nothing in it is checked here.
func StaticReportOf(w manifest.StaticReport) static.Report {
	r := static.Report{
		ConformingStatic: w.ConformingStatic,
		Unresolvable:     w.Unresolvable,
		Reason:           w.Reason,
		Warnings:         w.Warnings,
	}
	if w.Clauses != nil {
		r.Clauses = make([]static.ClauseResult, len(w.Clauses))
		for i, c := range w.Clauses {
			r.Clauses[i] = static.ClauseResult{
				Clause: c.Clause, Title: c.Title, Status: static.Status(c.Status), Severity: static.Severity(c.Severity),
				Observed: c.Observed, Message: c.Message, Questions: c.Questions, Material: c.Material, Warnings: c.Warnings,
			}
		}
	}
	return r
}
