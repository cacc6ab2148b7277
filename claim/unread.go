package claim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
	"github.com/dshaudit/dshaudit/rules"
)

// declHeadRE is the start of a declaration as a reader reads it, matched
// on declFold's form: "Conforms to DSHIO/T", with the digits and
// letters a reader takes for DSHIO's I and O.
var declHeadRE = lazyregexp.New(`\b(?:conforms?\s*to\s*dsh[i1l|]\s*[o0]\s*/\s*t)`)

// declHeads are the declaration starts in folded (declFold's form) that a
// reader takes for one: a start a negation governs ("does not conform to
// DSHIO/T 10") is a denial, not a declaration.
func declHeads(folded string) [][]int {
	var out [][]int
	for _, m := range declHeadRE.Re().FindAllStringIndex(folded, -1) {
		if !denied(folded, m[0]) {
			out = append(out, m)
		}
	}
	return out
}

// denied reports whether a negation governs the claim word at offset at
// of folded (negationRE).
func denied(folded string, at int) bool {
	return negationRE.MatchString(folded[max(0, at-40):at])
}

// hiddenFieldRE is a declaration's field (parse.go's field patterns) as
// hidden text holds it: first, or after the quote, parenthesis, bracket
// or "=" that opens an attribute value, a title or an alt text.
var hiddenFieldRE = lazyregexp.New(`(?i)(?:^|["'(\[=]\s*)(tested|environment\s+fingerprint|package|evidence\s+bundle|condition\s+deviation)\s*:`)

// hasHiddenField reports whether hiddenFieldRE matches text, trying it
// only on a text holding a ":" and, in asciiLower's form, a word each of
// its alternatives needs.
func hasHiddenField(text string) bool {
	if strings.IndexByte(text, ':') < 0 {
		return false
	}
	return containsAny(asciiLower(text), "tested", "fingerprint", "package", "bundle", "deviation") && hiddenFieldRE.MatchString(text)
}

// declConfusables are the look-alikes of the letters of "conforms to
// dshio" that rules.FoldConfusables leaves (it folds those of
// "certified"), after its lower-casing.
var declConfusables = map[rune]rune{
	'о': 'o', 'ο': 'o', 'օ': 'o',
	'ѕ': 's',
	'һ': 'h', 'н': 'h', 'η': 'h',
	'м': 'm', 'μ': 'm',
	'ν': 'n', 'ո': 'n',
}

// declFold is s in the form declHeadRE reads: confusables folded, as
// for the certified word, and "conforms" etc. in their Latin letters.
// It is used only to find declarations, never to read a value.
func declFold(s string) string { return declFoldFolded(rules.FoldConfusables(s)) }

// declFoldFolded is declFold of a text whose rules.FoldConfusables is
// folded.
func declFoldFolded(folded string) string {
	if isASCII(folded) {
		return folded // every declConfusables letter is outside ASCII
	}
	return strings.Map(func(r rune) rune {
		if l, ok := declConfusables[r]; ok {
			return l
		}
		return r
	}, folded)
}

// unread reports every declaration a reader sees that Parse did not
// read, and every declaration or field hidden in an HTML comment
// (SPEC.md "Forbidden statements"). declLines are the lines that start a
// parsed declaration; each reads one declaration. A Markdown paragraph
// renders its lines as one, so a declaration's start is looked for
// across the lines of a paragraph ("Conforms to" at the end of one line,
// "DSHIO/T 10—…" on the next).
func unread(p page, declLines map[int]bool) []Finding {
	var out []Finding
	add := func(i int, text, msg string) {
		out = append(out, Finding{Line: i + 1, Kind: KindForbidden, Clause: "DSHIO/T 10 8.1", Message: msg, Text: clip(text)})
	}
	hiding := map[int]bool{} // constructs already reported, one finding each
	for i, hs := range p.hidden {
		for _, h := range hs {
			if !hiding[h.span] && (len(declHeads(declFold(h.text))) > 0 || hasHiddenField(h.text)) {
				hiding[h.span] = true
				add(i, h.text, fmt.Sprintf("a declaration (or one of its fields) inside %s: a reader of the rendered page does not see it as text, and it is not read", h.kind))
			}
		}
	}
	// Each paragraph, lines [first, last), is read as one line.
	for first := 0; first < len(p.visible); {
		last := first
		for last < len(p.visible) && !blank(p, last) {
			last++
		}
		if last == first {
			first++
			continue
		}
		folded := make([]string, last-first)
		for k := range folded {
			folded[k] = p.forms[first+k].decl
		}
		joined := strings.Join(folded, " ")
		ends := make([]int, len(folded)) // where each line ends in joined
		for k, l := range folded {
			if k > 0 {
				ends[k] = ends[k-1] + 1
			}
			ends[k] += len(l)
		}
		seen := map[int]int{} // line → heads within it
		flagged := map[int]bool{}
		for _, m := range declHeads(joined) {
			k, _ := slices.BinarySearch(ends, m[0]) // the line m starts in
			i := first + k
			if m[1] <= ends[k] && declLines[i+1] {
				if seen[i]++; seen[i] == 1 {
					continue // the declaration Parse read
				}
			}
			if !flagged[i] {
				flagged[i] = true
				add(i, p.visible[i], `a declaration not in the form "Conforms to DSHIO/T 10—YYYY (baseline DSH X.Y.Z, static + dynamic layer)" (or "static layer only"), or written so that it reads otherwise than it parses`)
			}
		}
		first = last
	}
	return out
}

// blank reports whether line i ends a paragraph: nothing visible on it
// and no comment (a comment-only line between two lines of a paragraph
// does not part them for this purpose, erring towards flagging).
func blank(p page, i int) bool {
	return p.visible[i] == "" && len(p.hidden[i]) == 0
}
