package claim

import (
	"slices"
	"strings"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// What a rendered page does not show as text (SPEC.md "Reading the
// text"): comments, tags, images, link targets and definitions.

// splitHidden separates each line into what a rendered page shows as text
// and what it does not (SPEC.md "Reading the text"):
//
//   - an HTML comment, from "<!--" to the next "-->", across lines, or to
//     the end of the text when none follows ("<!-->" and "<!--->" are
//     empty comments);
//   - an HTML tag, "<" or "</" and a letter to the next ">" outside quotes
//     (its attributes: title, alt, …), and a script, style or template
//     element up to its end tag or the end of the text;
//   - an image, "![" to its matching "]" and the "(…)" or "[…]" after it
//     (alt text, destination, title);
//   - a link's "(…)" or "[…]" after its "]" (destination, title, label);
//   - a link reference definition, "[label]:" first on a line, with its
//     destination and title, which may run on over the next lines.
//
// All but comments end at the end of their paragraph (a blank line) at
// the latest; one that is not closed by then runs to it. Each errs
// towards hiding: text a renderer shows that is read as hidden (a "<" in
// a code span, a link title that CommonMark would not accept) is flagged
// if it holds a declaration, never believed. <details> content is shown
// and is read.
func splitHidden(lines []string) (visible []string, hidden [][]hiddenPart) {
	s := newHider(lines)
	t := s.t
	run := 0 // start of the visible text not yet emitted
	for i := 0; i < len(t); {
		c := t[i]
		if c != '<' && c != '!' && c != ']' && c != '[' {
			i++
			continue
		}
		if c == ']' && i+1 < len(t) && (t[i+1] == '(' || t[i+1] == '[') {
			i++ // the link text's "]" is shown; what follows it is not
		}
		from, to, end, kind := s.hiddenAt(i)
		if kind == "" {
			i++
			continue
		}
		s.visible(t[run:i])
		if from < to || to == end { // "<!-->" hides nothing
			s.hide(t[from:to], kind)
		}
		s.skip(t[to:end])
		i, run = end, end
	}
	s.visible(t[run:])
	visible = make([]string, len(lines))
	for i := range s.vis {
		visible[i] = s.vis[i].String()
	}
	return visible, s.hid
}

// hider is splitHidden's state: the text, where its lines start and end,
// and the parts emitted so far.
type hider struct {
	t     string
	lower string // t with ASCII letters lower-cased, same offsets; made on first use (lowerText)
	// starts[k] is the offset of line k; paraEnd[k] is the offset where
	// the paragraph holding line k ends (before the newline of its last
	// line).
	starts, paraEnd []int
	line            int // the line the next emitted text is on
	spans           int
	vis             []lineBuilder
	hid             [][]hiddenPart
}

func newHider(lines []string) *hider {
	s := &hider{t: strings.Join(lines, "\n"), vis: make([]lineBuilder, len(lines)), hid: make([][]hiddenPart, len(lines))}
	s.starts = make([]int, len(lines))
	s.paraEnd = make([]int, len(lines))
	off := 0
	for k, l := range lines {
		s.starts[k] = off
		off += len(l) + 1
	}
	end := len(s.t)
	for k := len(lines) - 1; k >= 0; k-- {
		if strings.Trim(lines[k], " \t>") == "" {
			end = s.starts[k] - 1 // a blank line ends the paragraph above it
			if end < 0 {
				end = 0
			}
			s.paraEnd[k] = s.starts[k] + len(lines[k])
			continue
		}
		s.paraEnd[k] = end
	}
	return s
}

// lowerText is t with ASCII letters lower-cased, at the same offsets.
func (s *hider) lowerText() string {
	if s.lower == "" && s.t != "" {
		lower := []byte(s.t)
		for k, c := range lower {
			if 'A' <= c && c <= 'Z' {
				lower[k] = c + 'a' - 'A'
			}
		}
		s.lower = string(lower)
	}
	return s.lower
}

// lineBuilder is the visible text of one line: the one piece most lines
// are, held as it is, or a builder once a second piece comes (a line
// with many hidden constructs is joined once, not piece by piece).
type lineBuilder struct {
	first string
	b     *strings.Builder
}

func (l *lineBuilder) WriteString(piece string) {
	switch {
	case l.b != nil:
		l.b.WriteString(piece)
	case l.first == "":
		l.first = piece
	case piece != "":
		l.b = &strings.Builder{}
		l.b.WriteString(l.first)
		l.b.WriteString(piece)
	}
}

func (l *lineBuilder) String() string {
	if l.b != nil {
		return l.b.String()
	}
	return l.first
}

// visible emits shown text.
func (s *hider) visible(text string) {
	for {
		nl := strings.IndexByte(text, '\n')
		if nl < 0 {
			s.vis[s.line].WriteString(text)
			return
		}
		s.vis[s.line].WriteString(text[:nl])
		text = text[nl+1:]
		s.line++
	}
}

// hide emits the text of one hidden construct: a part on every line it
// touches, empty ones included.
func (s *hider) hide(text, kind string) {
	n := s.spans
	s.spans++
	for {
		nl := strings.IndexByte(text, '\n')
		if nl < 0 {
			s.hid[s.line] = append(s.hid[s.line], hiddenPart{text, n, kind})
			return
		}
		s.hid[s.line] = append(s.hid[s.line], hiddenPart{text[:nl], n, kind})
		text = text[nl+1:]
		s.line++
	}
}

// skip passes over delimiters, emitting nothing but their line breaks.
func (s *hider) skip(text string) { s.line += strings.Count(text, "\n") }

// lineOf is the line offset i is on.
func (s *hider) lineOf(i int) int {
	k, found := slices.BinarySearch(s.starts, i)
	if !found {
		k--
	}
	return k
}

// lineEnd is the offset of the end of the line offset i is on.
func (s *hider) lineEnd(i int) int {
	if nl := strings.IndexByte(s.t[i:], '\n'); nl >= 0 {
		return i + nl
	}
	return len(s.t)
}

// hiddenAt reports the hidden construct starting at offset i, if any:
// its text is t[from:to], and it ends at end (delimiters included).
// kind is "" when none starts at i.
func (s *hider) hiddenAt(i int) (from, to, end int, kind string) {
	t := s.t
	limit := s.paraEnd[s.lineOf(i)]
	switch {
	case strings.HasPrefix(t[i:], "<!--"):
		rest := i + 4
		switch {
		case strings.HasPrefix(t[rest:], ">"):
			return rest, rest, rest + 1, inComment
		case strings.HasPrefix(t[rest:], "->"):
			return rest, rest, rest + 2, inComment
		}
		if k := strings.Index(t[rest:], "-->"); k >= 0 {
			if blankLineIn(t[rest:rest+k]) && !s.commentBlockStart(i) {
				// The comment is raw HTML inside a paragraph or another
				// HTML block, which ends at the blank line; CommonMark
				// then renders the "-->" after it as text (--&gt;), which
				// closes nothing, so the page hides everything after:
				// erring towards hiding, it runs to the end
				// (TestDeclarationsShownByCommonMark found it).
				return rest, len(t), len(t), inComment
			}
			return rest, rest + k, rest + k + 3, inComment
		}
		return rest, len(t), len(t), inComment
	case t[i] == '<':
		j := i + 1
		if j < len(t) && t[j] == '/' {
			j++
		}
		if j >= len(t) || !isASCIILetter(t[j]) {
			return 0, 0, 0, ""
		}
		n := j
		for n < len(t) && (isASCIILetter(t[n]) || '0' <= t[n] && t[n] <= '9' || t[n] == '-') {
			n++
		}
		name := s.lowerText()[j:n]
		k := s.closing(n, limit, '>')
		if k < 0 {
			return i + 1, limit, limit, inTag
		}
		if t[i+1] != '/' && (name == "script" || name == "style" || name == "template") {
			e := strings.Index(s.lowerText()[k:], "</"+name)
			if e < 0 {
				return i + 1, len(t), len(t), inElement
			}
			e += k
			if blankLineIn(t[k:e]) && (name == "template" || !s.commentBlockStart(i)) {
				// As for a comment: the end tag after a blank line is
				// text CommonMark escapes, which closes nothing (a
				// script or style block, type 1, at a block start runs
				// to its end tag across blank lines).
				return i + 1, len(t), len(t), inElement
			}
			if g := strings.IndexByte(t[e:], '>'); g >= 0 {
				return i + 1, e + g, e + g + 1, inElement
			}
			return i + 1, len(t), len(t), inElement
		}
		return i + 1, k, k + 1, inTag
	case t[i] == '!':
		if i+1 >= len(t) || t[i+1] != '[' {
			return 0, 0, 0, ""
		}
		k := s.closing(i+1, limit, ']')
		if k < 0 {
			return i + 1, limit, limit, inImage
		}
		e := s.target(k+1, limit)
		return i + 1, e, e, inImage
	case t[i] == '(' || t[i] == '[' && i > 0 && t[i-1] == ']':
		e := s.target(i, limit)
		return i, e, e, inLinkTarget
	case t[i] == '[' && s.lineStart(i):
		k := s.closing(i, s.lineEnd(i), ']')
		if k < 0 || k+1 >= len(t) || t[k+1] != ':' {
			return 0, 0, 0, ""
		}
		e := s.definition(k+2, limit)
		return i, e, e, inDefinition
	}
	return 0, 0, 0, ""
}

// target is the end of a link's or image's "(destination "title")" or
// "[label]" starting at i (i itself when neither starts there), or limit
// when it is not closed before it.
func (s *hider) target(i, limit int) int {
	if i >= limit || (s.t[i] != '(' && s.t[i] != '[') {
		return i
	}
	close := byte(')')
	if s.t[i] == '[' {
		close = ']'
	}
	if k := s.closing(i, limit, close); k >= 0 {
		return k + 1
	}
	return limit
}

// definition is the end of a link reference definition whose label's ":"
// ends just before i: its destination and an optional title, each of
// which may start on the next line (CommonMark), and a title may run
// over several lines.
func (s *hider) definition(i, limit int) int {
	t := s.t
	i = s.space(i, limit)
	if i >= limit {
		return limit
	}
	for i < limit && t[i] != ' ' && t[i] != '\t' && t[i] != '\n' { // destination
		i++
	}
	destEnd := i
	i = s.space(i, limit)
	if i >= limit {
		return limit
	}
	q := t[i]
	if q != '"' && q != '\'' && q != '(' {
		return s.lineEnd(destEnd) // no title: the definition ends with its line
	}
	if q == '(' {
		q = ')'
	}
	for k := i + 1; k < limit; k++ {
		switch t[k] {
		case '\\':
			k++
		case q:
			return s.lineEnd(k)
		}
	}
	return limit
}

// space skips spaces and tabs and at most one line break (with the block
// quote markers after it).
func (s *hider) space(i, limit int) int {
	t := s.t
	for i < limit && (t[i] == ' ' || t[i] == '\t') {
		i++
	}
	if i < limit && t[i] == '\n' {
		i++
		for i < limit && (t[i] == ' ' || t[i] == '\t' || t[i] == '>') {
			i++
		}
	}
	return i
}

// closing is the offset of the delimiter that closes the one at i (or,
// for a tag, the name ending at i), before limit, or -1: brackets and
// parentheses nest, a backslash escapes the next byte, and a quoted run
// (after "=" or a space in a tag, after a space in a link's parentheses)
// is passed over whole.
func (s *hider) closing(i, limit int, close byte) int {
	t := s.t
	if i >= limit {
		return -1 // a tag name that ends the text (found by FuzzCheck)
	}
	open := t[i]
	depth := 0
	if close == '>' {
		open, depth = 0, 1
	}
	for k := i; k < limit; k++ {
		switch c := t[k]; {
		case c == '\\':
			k++
		case (c == '"' || c == '\'') && close != ']' && k > i && (t[k-1] == ' ' || t[k-1] == '\t' || t[k-1] == '\n' || close == '>' && t[k-1] == '='):
			q := strings.IndexByte(t[k+1:limit], c)
			if q < 0 {
				return -1
			}
			k += 1 + q
		case c == open:
			depth++
		case c == close:
			if depth--; depth == 0 {
				return k
			}
		}
	}
	return -1
}

// commentBlockStart reports whether the "<!--" (or "<script", "<style")
// at i opens a CommonMark HTML block (type 2, or 1, which runs to the
// line holding "-->", or the end tag, across blank lines): first on its
// line after up to three spaces, and not inside an HTML block that a
// line starting with "<" just before it opened.
func (s *hider) commentBlockStart(i int) bool {
	k := s.lineOf(i)
	if pre := s.t[s.starts[k]:i]; len(pre) > 3 || strings.Trim(pre, " ") != "" {
		return false
	}
	if k == 0 {
		return true
	}
	prev := strings.TrimLeft(s.t[s.starts[k-1]:s.starts[k]], " ")
	return strings.TrimSpace(prev) == "" || !strings.HasPrefix(prev, "<")
}

// blankLineIn reports whether text holds an empty or blank line.
func blankLineIn(text string) bool {
	for _, l := range strings.Split(text, "\n")[1:] {
		if strings.TrimSpace(l) == "" {
			return true
		}
	}
	return false
}

// lineStart reports whether offset i starts its line's text: only space,
// block quote markers and a list marker before it.
func (s *hider) lineStart(i int) bool {
	pre := strings.TrimLeft(s.t[s.starts[s.lineOf(i)]:i], " \t>")
	if pre == "" {
		return true
	}
	return len(pre) <= 12 && listMarkerRE.MatchString(pre)
}

// listMarkerRE is a list item marker and the space after it.
var listMarkerRE = lazyregexp.New(`^(?:[-*+]|\d{1,9}[.)])[ \t]+$`)

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
