package claim

import (
	"github.com/dshaudit/dshaudit/internal/lazyregexp"
	"github.com/dshaudit/dshaudit/rules"
	"strings"
)

// Forbidden-statement patterns (SPEC.md "Claims"). Each is matched against
// every normalised line of the text, declarations or not, what its HTML
// comments, tags, link targets etc. hold included (page.scanned). A
// declaration that does not parse, or that hides in a comment or other
// text a rendered page does not show, is unread.go's (unread).
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
	// A result is a word or a mark: a table cell "✔" or "100 %" states
	// one as much as "passed" does.
	t5RE = lazyregexp.New(`(?i)\bT5\b[^.]*(\b(pass|passed|ok|conform\w*|verified|results?|tested|succe\w*|green|complete\w*|works?)\b|✅|✓|✔|☑|🟢|\b100\s*%)|\btool[\s-]+invocation\b[^.]*(\b(pass|passed|verified|succe\w*|green|complete\w*|works?)\b|✅|✓|✔|☑|🟢|\b100\s*%)`)
	// DSHIO/T 10 8.1: a conformance claim without standard number,
	// version, scope and environment.
	bareClaimRE = lazyregexp.New(`(?i)\b(conforms?|conformant|conformity|compliant|complies)\b[^.]*\bDSHIO\b|\bDSHIO[\s-]+(compliant|conformant|approved)\b`)
	// DSHIO/T 10 8.1: any other wording a reader takes for a conformance
	// claim naming DSHIO/T ("complies with", "compliant to", "meets",
	// "DSHIO/T 10 compliant", …), matched on declFold's form. A word of
	// the claim and DSHIO/T stand in one sentence, at most 8 words apart.
	otherClaimRE = lazyregexp.New(`\b(?:conform(?:s|ing|ant)?|compl(?:y|ies|iant)|meets?|satisf(?:y|ies)|fulfil(?:l?s)?|adheres?|in\s+(?:full\s+)?(?:conformity|conformance|compliance))\b(?:\s+(?:[^\s.!?;]|[.!?;]\S)+){0,8}?\s+` + dshioT + `|` + dshioT + `\s*\d+\S*?(?:\s+\S+){0,2}?[\s-]+(?:compliant|conformant|conforming)\b`)
	// A negation governing the claim's word (a word or two between) makes
	// it a denial: "does not conform", "is not fully compliant",
	// "non-conforming", "no longer meets".
	negationRE = lazyregexp.New(`(?:\bnot|n't|\bnever|\bnon-?|\bno\s+longer|\bfails?\s+to|\bcannot)\s*(?:\S+\s+){0,2}$`)
	// DSHIO/T 10 8.3: retired or number-less citation forms.
	retiredRE    = lazyregexp.New(`\bDSHIO-DEV\b`)
	numberlessRE = lazyregexp.New(`\b(?:(?i)DSHIO\s+(plugin\s+)?standard\s+clause\b|DSHIO\s+clause\s+\d)`)
	// DSHIO/T 21 5.1.1: a version range instead of an exact dsh version.
	dshRangeRE = lazyregexp.New(`\b(?:(?i)dsh\s*(=|version\s*:?)?\s*(\^|~|>=?|<=?|\d+\.\d+\.x\b|\d+\.x\b|\d+\.\d+\s+series\b|the\s+\d+\.\d+(\.\d+)?\s+series\b))`)
)

// dshioT is "DSHIO/T" in declFold's form, with the digits and letters a
// reader takes for its I and O (as declHeadRE).
const dshioT = `dsh[i1l|]\s*[o0]\s*/\s*t\b`

// dshioTRE finds DSHIO/T in declFold's form.
var dshioTRE = lazyregexp.New(dshioT)

// claimsOther reports whether folded (a line in declFold's form) claims
// conformity with DSHIO/T in a wording other than a declaration's, and
// does not deny it.
func claimsOther(folded string) bool {
	if !containsAny(folded, "conform", "compl", "meet", "satisf", "fulfil", "adhere") {
		return false // every match holds one of the words
	}
	for _, m := range otherClaimRE.Re().FindAllStringIndex(folded, -1) {
		if !denied(folded, m[0]) {
			return true
		}
	}
	return false
}

// forbidden reports what the standards forbid in text, line by line.
// declLines are the lines that start a parsed declaration. pkgNames, the
// name of the package the bundle tested, are exempt from the
// certified-word check (a plugin may be called certified-…); a name the
// text itself gives is not, or any "Package: certified@…" line would
// exempt the word (SPEC.md "Forbidden statements").
func forbidden(lines []lineForms, declLines map[int]bool, pkgNames ...string) []Finding {
	var out []Finding
	add := func(i int, clause, msg string) {
		out = append(out, Finding{Line: i + 1, Kind: KindForbidden, Clause: clause, Message: msg, Text: clip(lines[i].text)})
	}
	for i, lf := range lines {
		l, lower, fold := lf.text, lf.lower, lf.fold
		if l == "" {
			continue
		}
		// Each pattern needs a literal (case-insensitive) that most
		// lines lack: look for it first (in lower, or in fold for the
		// certified word: ClaimsCertified looks for it there first), the
		// pattern only where it occurs.
		if (strings.Contains(fold, "certified") && rules.ClaimsCertified(l, pkgNames...) || strings.Contains(lower, "certification") && certificationRE.MatchString(l)) && dshioRE.MatchString(fold) && !denialRE.MatchString(fold) {
			add(i, "DSHIO/T 10 8.2", `claims DSHIO certification: while DSHIO/T 10 v1.0 is in force "DSHIO certified" does not exist, and a statement claiming it is false`)
		}
		if (strings.Contains(lower, "t5") || strings.Contains(lower, "tool")) && t5RE.MatchString(l) {
			add(i, "DSHIO/T 20 scope notice", "claims a T5 (tool invocation) result: void until T5 is formally included")
		}
		if !declLines[i+1] {
			// A line naming DSHIO/T is a declaration, one unread flags
			// (declHeads), another wording of the claim, a denial or a
			// citation; one that does not name it is a bare claim.
			switch folded := lf.decl; {
			case !strings.Contains(folded, "dsh") || !dshioTRE.MatchString(folded): // the pattern starts with dsh
				if strings.Contains(lower, "dshio") && containsAny(lower, "conform", "compli", "approved") && bareClaimRE.MatchString(l) {
					add(i, "DSHIO/T 10 8.1", "a conformance claim without the standard number and edition, baseline, scope and environment fingerprint")
				}
			case len(declHeads(folded)) == 0 && claimsOther(folded):
				add(i, "DSHIO/T 10 8.1", `a conformance claim naming DSHIO/T that is not a declaration: a declaration is in the form "Conforms to DSHIO/T 10—YYYY (baseline DSH X.Y.Z, static + dynamic layer)" (or "static layer only"), with its fields`)
			}
		}
		if strings.Contains(l, "DSHIO-DEV") && retiredRE.MatchString(l) {
			add(i, "DSHIO/T 10 8.3", `cites the retired legacy code "DSHIO-DEV"`)
		}
		if strings.Contains(lower, "dshio") && numberlessRE.MatchString(l) {
			add(i, "DSHIO/T 10 8.3", `cites a DSHIO standard without its number (write e.g. "DSHIO/T 10—2026 clause 5.2.2")`)
		}
		if strings.Contains(lower, "dsh") && dshRangeRE.MatchString(l) {
			add(i, "DSHIO/T 21 5.1.1", "states a dsh version range where an exact version is required: not reproducible")
		}
	}
	return out
}

// lineForms is one line of text and the forms the patterns read it in,
// each made once.
type lineForms struct {
	text  string
	lower string // asciiLower(text)
	fold  string // rules.FoldConfusables(text)
	decl  string // declFold(text)
}

func formsOf(text string) lineForms {
	if isASCII(text) {
		// FoldConfusables and asciiLower are strings.ToLower, and declFold
		// changes nothing more.
		l := strings.ToLower(text)
		return lineForms{text: text, lower: l, fold: l, decl: l}
	}
	fold := rules.FoldConfusables(text)
	return lineForms{text: text, lower: asciiLower(text), fold: fold, decl: declFoldFolded(fold)}
}

// containsAny reports whether s contains one of words.
func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// asciiLower is s lower-cased so that it contains an ASCII word wherever
// a case-insensitive regexp finds that word in s: Go's (?i) matches by
// simple case folding, and the only letters outside ASCII that fold to
// ASCII ones are U+017F ſ (s), which strings.ToLower keeps, and U+212A
// KELVIN SIGN (k), which it lowers to k.
func asciiLower(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "ſ", "s"))
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}
