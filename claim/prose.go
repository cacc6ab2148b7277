package claim

import (
	"fmt"
	"strings"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
	"github.com/dshaudit/dshaudit/rules"
)

// Prose that states a result (SPEC.md "Checking a declaration against the
// bundle"): a declaration backed by the bundle beside a sentence that
// states another verdict or a stability the bundle contradicts is not
// backed as a whole, because a reader takes both as the result.
var (
	// verdictCodeRE: "verdict: boot_failed", "verdict is `pass`".
	verdictCodeRE = lazyregexp.New(`(?i)\bverdict\b[^.\n]*?\b(pass|install_failed|not_listed|installs_but_not_registered|config_failed|boot_failed|unstable|static_only)\b`)
	// dynamicPassRE: the dynamic layer said to have passed as a whole.
	dynamicPassRE = lazyregexp.New(`(?i)(\bT1\s*(?:[–—-]|to|through)\s*T4\b|\ball (?:four |4 )?(?:sandbox |dynamic )?stages\b|\bdynamic (?:layer|stages|tests?)\b|\bsandbox stages\b)[^.\n]*?(\bpass(?:ed|es)?\b|\bsucceed\w*|✅|✓|✔)`)
	// stableRE: a stability claim ("stable across both repetitions",
	// "reproducible", "no flaky runs").
	stableRE = lazyregexp.New(`(?i)(?:^|[^\w-])(stable|reproducible|deterministic|consistent)\b[^.\n]*?\b(runs?|repetitions?|results?|verdicts?|across|both|twice)\b|\bno flak\w*`)
	// comparableRE: a deviated result said to stand beside undeviated
	// ones, the opposite of DSHIO/T 21 8.2's notice ("comparable with
	// undeviated reports", "a basis for certification"); the notice's own
	// wording is negated.
	comparableRE = lazyregexp.New(`(?i)\bcomparable (?:with|to) undeviated\b|\b(?:be used as )?(?:a |the )?basis for certification\b`)
	// negatedRE: the statement is denied ("not stable", "never passes").
	negatedRE = lazyregexp.New(`(?i)\b(not|never|no longer|un|isn't|wasn't|aren't|weren't|fails? to)\s*$`)
)

// prose reports each line outside a declaration that states a verdict,
// a dynamic-layer pass, a stability or, for a deviated bundle, a
// comparability the bundle's facts contradict.
func prose(lines []lineForms, declLines map[int]bool, f Facts) []Finding {
	if !f.Verified {
		return nil // nothing of an unverified bundle is compared
	}
	var out []Finding
	add := func(i int, clause, format string, args ...any) {
		out = append(out, Finding{Line: i + 1, Kind: KindContradicts, Clause: clause, Message: fmt.Sprintf(format, args...), Text: clip(lines[i].text)})
	}
	verdict := f.Verdict
	if !f.Dynamic {
		verdict = "static_only"
	}
	for i, lf := range lines {
		l := lf.text
		if l == "" || declLines[i+1] {
			continue
		}
		if strings.Contains(lf.lower, "verdict") {
			for _, m := range verdictCodeRE.Re().FindAllStringSubmatchIndex(l, -1) {
				code := strings.ToLower(l[m[2]:m[3]])
				if !negated(l[:m[2]]) && code != verdict {
					add(i, "DSHIO/T 20 11.1", "states the verdict %s; the bundle's re-derived verdict is %s", code, verdict)
				}
			}
		}
		if m := dynamicPassRE.Re().FindStringSubmatchIndex(l); m != nil && !negated(l[:m[4]]) {
			switch {
			case !f.Dynamic:
				add(i, "DSHIO/T 10 8.1", "states that the dynamic layer passed; the bundle covers the static layer only")
			case f.Unstable:
				add(i, "DSHIO/T 20 11.3", "states that the dynamic layer passed; the bundle's result is unstable")
			case f.Verdict != string(rules.Pass):
				add(i, "DSHIO/T 20 11.1", "states that the dynamic layer passed; the bundle's verdict is %s", f.Verdict)
			}
		}
		if f.Deviated {
			for _, m := range comparableRE.Re().FindAllStringIndex(l, -1) {
				if !negated(l[:m[0]]) {
					add(i, "DSHIO/T 21 8.2", "states %q of the result; the bundle records deviations, and a deviated result is not comparable with undeviated reports nor a basis for certification", l[m[0]:m[1]])
					break
				}
			}
		}
		if f.Unstable {
			if m := stableRE.Re().FindStringIndex(l); m != nil && !negated(l[:m[0]]) && !strings.Contains(strings.ToLower(l[m[0]:m[1]]), "unstable") {
				add(i, "DSHIO/T 20 11.3", "states a stable result; the bundle's repetitions disagree (unstable)")
			}
		}
	}
	return out
}

// negated reports whether the text before a match ends in a denial.
func negated(before string) bool {
	if len(before) > 40 {
		before = before[len(before)-40:]
	}
	return negatedRE.MatchString(strings.TrimRight(before, " *_`"))
}
