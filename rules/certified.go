package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// certifiedWord matches the word after folding (FoldConfusables).
var certifiedWord = lazyregexp.New(`\bcertified\b`)

// confusables maps letters that look like the Latin letters of
// "certified" to them: Cyrillic and Greek homoglyphs NFKC leaves alone.
var confusables = map[rune]rune{
	'с': 'c', 'С': 'c', 'ϲ': 'c', 'Ϲ': 'c', 'ⅽ': 'c',
	'е': 'e', 'Е': 'e', 'ё': 'e', 'Ε': 'e', 'ε': 'e', 'ҽ': 'e',
	'г': 'r', 'ʀ': 'r', 'ᴦ': 'r',
	'т': 't', 'Т': 't', 'τ': 't', 'Τ': 't',
	'і': 'i', 'І': 'i', 'ι': 'i', 'Ι': 'i', 'ı': 'i', 'ӏ': 'i', 'Ӏ': 'i', 'ⅰ': 'i',
	'ƒ': 'f', 'ϝ': 'f', 'Ϝ': 'f',
	'ԁ': 'd', 'ⅾ': 'd',
}

// FoldConfusables turns s into the form the certified-word check reads:
// NFKC (full-width and styled letters become plain), lower case,
// Cyrillic and Greek look-alikes mapped to Latin letters, and invisible
// format characters (zero-width spaces and joiners, soft hyphens, bidi
// controls) removed, so "cer\u200btified" and "сertified" read as the word.
func FoldConfusables(s string) string {
	if isASCII(s) {
		// NFKC leaves ASCII alone, and no format character or look-alike
		// is ASCII.
		return strings.ToLower(s)
	}
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if unicode.Is(unicode.Cf, r) {
			continue
		}
		if l, ok := confusables[r]; ok {
			r = l
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// ClaimsCertified reports whether text contains the word "certified" in
// any spelling FoldConfusables undoes (DSHIO/T 10 8.2: while v1.0 is in
// force no certified state exists). Occurrences inside any of exempt —
// the package name itself, which a plugin may legitimately carry, e.g.
// certified-weather — do not count. It is the one detector the verifier's
// report rules and the claim checker share. SPEC.md "Forbidden words".
func ClaimsCertified(text string, exempt ...string) bool {
	t := FoldConfusables(text)
	if !strings.Contains(t, "certified") {
		// Removing the exempt names (each replaced by a space) cannot
		// make the word appear.
		return false
	}
	for _, e := range exempt {
		if e = FoldConfusables(e); e != "" {
			t = strings.ReplaceAll(t, e, " ")
		}
	}
	return certifiedWord.MatchString(t)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
