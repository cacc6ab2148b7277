// Package report renders the result of verifying an evidence bundle as a
// self-contained HTML page, and many such pages with an index (DESIGN.md
// "Report pages", under SPEC.md "Presenting a result"). Every page is
// built from the verification result, never from what the bundle claims:
// package verify decides verified or not and every finding, package
// assemble re-derives the verdicts and the T0 clauses from the trusted
// evidence, and what can only be read from the manifest is labelled as
// recorded or unverified.
//
// A page is one file with inline CSS and SVG, no script, and a
// Content-Security-Policy that forbids every fetch. Every string from a
// bundle goes through html/template. The same inputs give byte-identical
// HTML: no clock is read and nothing is taken from map iteration order.
package report
