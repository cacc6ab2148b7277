package claim

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// normalise strips the Markdown around a line of text (block quotes,
// list markers, strong emphasis, code spans, HTML tags) and reads what
// is left as a reader does (readerForm).
func normalise(line string) string {
	s := readerChars(line)
	s = strings.TrimSpace(s)
	for {
		t := strings.TrimSpace(strings.TrimLeft(s, ">"))
		t = strings.TrimPrefix(t, "- ")
		t = strings.TrimPrefix(t, "* ")
		t = strings.TrimPrefix(t, "+ ")
		if t == s {
			break
		}
		s = t
	}
	if strings.ContainsAny(s, "*_`<") { // markup starts with one of them
		s = stripMarkup(s)
	}
	return strings.TrimSpace(readerForm(s))
}

// mdEscapeRE is a Markdown backslash escape: the reader sees the
// punctuation without the backslash.
var mdEscapeRE = lazyregexp.New("\\\\([!-/:-@\\[-`{-~])")

// readerForm is s as a reader of the rendered page reads it: Markdown
// backslash escapes and HTML character references (&nbsp;, &#x43;)
// resolved, every space separator (\p{Zs}, e.g. U+00A0) a plain space,
// invisible format characters (\p{Cf}: zero-width spaces and joiners,
// U+2060, U+FEFF, soft hyphens, bidi controls: reordered flags a
// declaration's line that held one) removed, and the
// emphasis delimiters removed: every "*", and every run of "_" that does
// not stand between two letters or digits (my_plugin keeps its "_").
func readerForm(s string) string {
	if strings.IndexByte(s, '\\') >= 0 {
		s = mdEscapeRE.ReplaceAllString(s, "$1")
	}
	s = readerChars(html.UnescapeString(s))
	if strings.IndexByte(s, '*') < 0 && strings.IndexByte(s, '_') < 0 {
		return s // the loop below would copy it: readerChars's result is valid UTF-8
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '*':
			continue
		case '_':
			j := i
			for j < len(rs) && rs[j] == '_' {
				j++
			}
			if i > 0 && isWordRune(rs[i-1]) && j < len(rs) && isWordRune(rs[j]) {
				b.WriteString(string(rs[i:j]))
			}
			i = j - 1
			continue
		}
		b.WriteRune(rs[i])
	}
	return b.String()
}

// readerChars removes format characters and makes space separators
// plain spaces; invalid UTF-8 becomes U+FFFD (strings.Map).
func readerChars(s string) string {
	if isASCII(s) {
		return s // no format character is ASCII, and its one space separator is the space
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r < utf8.RuneSelf:
			return r
		case unicode.Is(unicode.Cf, r):
			return -1
		case unicode.Is(unicode.Zs, r):
			return ' '
		}
		return r
	}, s)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// markupRE is what stripMarkup removes: emphasis, code spans, HTML line
// breaks and tags.
var markupRE = lazyregexp.New("\\*\\*|__|`|<br\\s*/?>|</?[a-zA-Z][^>]*>")

// stripMarkup removes every "**", "__" and "`", left to right, and every
// HTML tag.
func stripMarkup(s string) string { return markupRE.ReplaceAllString(s, "") }

// isASCII reports whether s holds only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
