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
	// testedOnRE: a sentence saying what the run was tested on, at its
	// start or after a past or present "to be" ("Tested with dsh X",
	// "was tested on Node.js 22 and pnpm 10"); "to be tested", "will be
	// tested" and "should be tested" are not statements of a run.
	// Group 1 is the rest of the line.
	testedOnRE = lazyregexp.New(`(?i)(?:^[\s>*_#-]*|[.!?;:]\s+|\b(?:was|were|is|are|been)\s+)tested\s+(?:on|with|against|under|in|using)\b(.*)$`)
	// programVersionRE: a program named with a version ("dsh 0.2.2-rc.1",
	// "Node.js v22", "pnpm 10.x"): group 1 the program, 2 the version.
	programVersionRE = lazyregexp.New(`(?i)\b(dsh|node(?:\.?js)?|pnpm)\s+(?:version\s+)?v?(\d+(?:\.(?:\d+|x|\*))*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?)`)
	// usableRE: the result said to be usable for certification, with a
	// verb before it ("is usable for certification"); statedUsable
	// leaves out a label with a value ("usable for certification: no"),
	// a question and a condition.
	usableRE = lazyregexp.New(`(?i)\b(?:is|are|was|were|remains?|it's)\s+(?:(?:fully|thus|therefore|so|hence|also)\s+)?usable\s+for\s+certification\b`)
	// conditionRE: a sentence that makes what it says depend on
	// something ("whether it is usable", "usable only if …").
	conditionRE = lazyregexp.New(`(?i)\b(?:whether|if|unless|once|when|only|until|after)\b`)
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
		if m := usableRE.Re().FindStringIndex(l); m != nil && statedUsable(l, m) {
			if why, clause := notUsable(f); why != "" {
				add(i, clause, "states that the result is usable for certification; %s", why)
			}
		}
		if f.Dynamic && strings.Contains(lf.lower, "tested") {
			if why := testedOn(l, f.Fingerprint); why != "" {
				add(i, "DSHIO/T 21 5.2", "%s", why)
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

// notUsable says why the bundle's result is not usable for
// certification, from the facts that settle it alone ("" when none of
// them does; SPEC.md "Derivation", item 6), with the clause.
func notUsable(f Facts) (why, clause string) {
	switch {
	case !f.Dynamic:
		return "the bundle covers the static layer only", "DSHIO/T 10 8.1"
	case f.Unstable:
		return "the bundle's result is unstable", "DSHIO/T 20 11.3"
	case f.Verdict != string(rules.Pass):
		return "the bundle's verdict is " + f.Verdict, "DSHIO/T 20 11.1"
	case f.Deviated:
		return "the bundle records deviations, and a deviated result is not a basis for certification", "DSHIO/T 21 8.2"
	}
	return "", ""
}

// testedOn reads a sentence saying what the run was tested on (testedOnRE)
// for the versions of dsh, Node.js and pnpm it names, up to the
// sentence's end, and says how the first one that is not the
// fingerprint's differs ("" when each is, or none is named). A version is
// the fingerprint's when its components are the leading components of
// the fingerprint's ("Node.js 24" of 24.11.1; "x" or "*" any one). A
// sentence that also names the fingerprint's own version of a program
// (say, two versions tested) is not compared for that program.
func testedOn(l, fingerprint string) string {
	m := testedOnRE.Re().FindStringSubmatchIndex(l)
	if m == nil || negated(l[:m[0]]) {
		return ""
	}
	fp, err := rules.ParseFingerprint(fingerprint)
	if err != nil {
		return ""
	}
	rest := l[m[2]:m[3]]
	if end := sentenceEnd.Re().FindStringIndex(rest); end != nil {
		rest = rest[:end[0]]
	}
	ran := map[string]string{"dsh": fp.DSH, "node": fp.Node, "pnpm": fp.PNPM}
	type named struct{ prog, version string }
	var stated []named
	matches := map[string]bool{}
	for _, v := range programVersionRE.Re().FindAllStringSubmatch(rest, -1) {
		prog := strings.ToLower(v[1])
		if strings.HasPrefix(prog, "node") {
			prog = "node"
		}
		if versionIsPrefix(v[2], ran[prog]) {
			matches[prog] = true
		}
		stated = append(stated, named{prog, v[2]})
	}
	for _, s := range stated {
		if !matches[s.prog] {
			return fmt.Sprintf("states that the run was tested on %s %s; the bundle's fingerprint records %s=%s", s.prog, s.version, s.prog, ran[s.prog])
		}
	}
	return ""
}

// sentenceEnd is the end of a sentence in a line: a stop followed by
// white space or the line's end (a version's dots are followed by a digit).
var sentenceEnd = lazyregexp.New(`[.!?;](?:\s|$)`)

// versionIsPrefix reports whether the stated version's dot-separated
// components are the leading components of the version that ran, "x"
// and "*" standing for any one.
func versionIsPrefix(stated, ran string) bool {
	if ran == "" {
		return false
	}
	s, r := strings.Split(stated, "."), strings.Split(ran, ".")
	if len(s) > len(r) {
		return false
	}
	for i := range s {
		if i == len(s)-1 && len(s) < len(r) && !strings.ContainsRune(s[i], '-') {
			// a shorter version's last component is a whole component
			// of the one that ran ("22" of "22.1.0", not of "22-rc")
			r[i] = strings.SplitN(r[i], "-", 2)[0]
		}
		if s[i] != r[i] && s[i] != "x" && s[i] != "*" && !strings.EqualFold(s[i], "X") {
			return false
		}
	}
	return true
}

// statedUsable reports whether the usableRE match m of l states the
// result usable: not denied, and its sentence neither a question, nor a
// label with a value after the match (":", "="), nor a condition.
func statedUsable(l string, m []int) bool {
	if negated(l[:m[0]]) {
		return false
	}
	start := 0
	for _, e := range sentenceEnd.Re().FindAllStringIndex(l[:m[0]], -1) {
		start = e[1]
	}
	after := l[m[1]:]
	if e := sentenceEnd.Re().FindStringIndex(after); e != nil {
		if after[e[0]] == '?' {
			return false
		}
		after = after[:e[0]]
	}
	return !strings.ContainsAny(after, ":=?") && !conditionRE.MatchString(l[start:m[0]]+" "+after)
}
