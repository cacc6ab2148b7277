package claim

import (
	"strings"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
	"github.com/dshaudit/dshaudit/rules"
)

// Forbidden-statement patterns (SPEC.md "Claims"). Each is matched against
// every normalised line of the text, declarations or not, what its HTML
// comments, tags, link targets etc. hold included (page.scanned). A
// declaration that does not parse, or that hides in a comment or other
// text a rendered page does not show, is visible.go's (unread).
var (
	// DSHIO/T 10 8.2: no certified state exists while v1.0 is in force.
	// The word itself is rules.ClaimsCertified's (confusables folded);
	// this is the other spelling of the claim.
	certificationRE = lazyregexp.New(`(?i)\bcertification\s*:\s*(pass|passed|yes|granted|✅)`)
	// A line is about DSHIO when it names it or the conformance subject.
	dshioRE = lazyregexp.New(`(?i)\bDSHIO\b|\bconform|\bcompli|\bdsh\b`)
	// The denials our own declaration prints are not claims.
	denialRE = lazyregexp.New(`(?i)\bnot\s+(a\s+basis\s+for|usable\s+for|be\s+used\s+as\s+a\s+basis\s+for)\s+certification|\bno\s+certified\s+state|\bnot\s+certified\b|\bcertified\s+state\s+does\s+not\s+exist`)
	// The T5 notice of DSHIO/T 10, 20 and 21: any report claiming a T5
	// run is void.
	t5RE = lazyregexp.New(`(?i)\bT5\b[^.]*\b(pass|passed|ok|conform\w*|verified|result|tested|✅)|\btool[\s-]+invocation\b[^.]*\b(pass|passed|verified|✅)`)
	// DSHIO/T 10 8.1: a conformance claim without standard number,
	// version, scope and environment.
	bareClaimRE = lazyregexp.New(`(?i)\b(conforms?|conformant|conformity|compliant|complies)\b[^.]*\bDSHIO\b|\bDSHIO[\s-]+(compliant|conformant|approved)\b`)
	// DSHIO/T 10 8.3: retired or number-less citation forms.
	retiredRE    = lazyregexp.New(`\bDSHIO-DEV\b`)
	numberlessRE = lazyregexp.New(`(?i)\bDSHIO\s+(plugin\s+)?standard\s+clause\b|\bDSHIO\s+clause\s+\d`)
	// DSHIO/T 21 5.1.1: a version range instead of an exact dsh version.
	dshRangeRE = lazyregexp.New(`(?i)\bdsh\s*(=|version\s*:?)?\s*(\^|~|>=?|<=?|\d+\.\d+\.x\b|\d+\.x\b|\d+\.\d+\s+series\b|the\s+\d+\.\d+(\.\d+)?\s+series\b)`)
)

// forbidden reports what the standards forbid in text, line by line.
// declLines are the lines that start a parsed declaration. pkgNames, the
// name of the package the bundle tested, are exempt from the
// certified-word check (a plugin may be called certified-…); a name the
// text itself gives is not, or any "Package: certified@…" line would
// exempt the word (SPEC.md "Forbidden statements").
func forbidden(lines []string, declLines map[int]bool, pkgNames ...string) []Finding {
	var out []Finding
	add := func(i int, clause, msg string) {
		out = append(out, Finding{Line: i + 1, Kind: KindForbidden, Clause: clause, Message: msg, Text: clip(lines[i])})
	}
	for i, l := range lines {
		if l == "" {
			continue
		}
		if (rules.ClaimsCertified(l, pkgNames...) || certificationRE.MatchString(l)) && dshioRE.MatchString(rules.FoldConfusables(l)) && !denialRE.MatchString(rules.FoldConfusables(l)) {
			add(i, "DSHIO/T 10 8.2", `claims DSHIO certification: while DSHIO/T 10 v1.0 is in force "DSHIO certified" does not exist, and a statement claiming it is false`)
		}
		if t5RE.MatchString(l) {
			add(i, "DSHIO/T 20 scope notice", "claims a T5 (tool invocation) result: void until T5 is formally included")
		}
		if !declLines[i+1] && bareClaimRE.MatchString(l) && !strings.Contains(l, "DSHIO/T") {
			add(i, "DSHIO/T 10 8.1", "a conformance claim without the standard number and edition, baseline, scope and environment fingerprint")
		}
		if retiredRE.MatchString(l) {
			add(i, "DSHIO/T 10 8.3", `cites the retired legacy code "DSHIO-DEV"`)
		}
		if numberlessRE.MatchString(l) {
			add(i, "DSHIO/T 10 8.3", `cites a DSHIO standard without its number (write e.g. "DSHIO/T 10—2026 clause 5.2.2")`)
		}
		if dshRangeRE.MatchString(l) {
			add(i, "DSHIO/T 21 5.1.1", "states a dsh version range where an exact version is required: not reproducible")
		}
	}
	return out
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}
