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
// force no certified state exists). An occurrence of the word that lies
// inside an occurrence of one of exempt — the package name itself, which
// a plugin may legitimately carry, e.g. certified-weather — does not
// count, provided that occurrence is more than the word (a name of which
// the word is only a part) or stands where a package name stands
// (followed by "@", or after "/"): a package named exactly "certified"
// exempts "certified@1.0.0" and "/pkgs/certified-1.0.0.tgz", not the word
// in prose, and a name that is a fragment of the word ("e", "cert")
// exempts nothing. It is the one detector the verifier's report rules
// and the claim checker share. SPEC.md "Forbidden words".
func ClaimsCertified(text string, exempt ...string) bool {
	if isASCII(text) && !containsFoldASCII(text, "certified") {
		return false // FoldConfusables of ASCII is its lower case
	}
	t := FoldConfusables(text)
	if !strings.Contains(t, "certified") {
		return false
	}
	names := make([]string, 0, len(exempt))
	for _, e := range exempt {
		if e = FoldConfusables(e); e != "" {
			names = append(names, e)
		}
	}
	for _, m := range certifiedWord.Re().FindAllStringIndex(t, -1) {
		if !insideName(t, m[0], m[1], names) {
			return true
		}
	}
	return false
}

// insideName reports whether t[s:e], a match of the word, lies inside an
// occurrence of one of names that is longer than the match or stands
// where a package name stands.
func insideName(t string, s, e int, names []string) bool {
	for _, n := range names {
		if len(n) < e-s {
			continue // a fragment of the word cannot hold it
		}
		for from := max(0, e-len(n)); from <= s; from++ {
			if !strings.HasPrefix(t[from:], n) {
				continue
			}
			end := from + len(n)
			if len(n) > e-s || strings.HasPrefix(t[end:], "@") || (from > 0 && t[from-1] == '/') {
				return true
			}
		}
	}
	return false
}

// containsFoldASCII reports whether s holds word, an ASCII lower-case
// word, in any mix of cases, as strings.Contains(strings.ToLower(s), word)
// does for an ASCII s, without making the lower-case copy.
func containsFoldASCII(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if s[i]|0x20 == word[0] && strings.EqualFold(s[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
