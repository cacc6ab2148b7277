package claim

import (
	"fmt"
	"html"
	"slices"
	"strings"
	"unicode"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
	"github.com/dshaudit/dshaudit/rules"
)

// The text is read as a reader of the rendered page reads it (SPEC.md
// "Reading the text"): what a rendered page hides is not a declaration,
// and a line a reader reads as one is either parsed or flagged, never
// skipped. The text is written by the party whose claim is checked.

// page is a text split into its 1-based lines as a reader sees them.
type page struct {
	// visible[i] is line i+1 without what a rendered page does not show
	// as text (hiddenAt), normalised.
	visible []string
	// hidden[i] are the parts of line i+1 a rendered page does not show
	// as text, normalised, one per hidden construct the line holds, empty
	// ones included.
	hidden [][]hiddenPart
	// bidi[i] reports whether line i+1, as written, holds a bidirectional
	// control character (Unicode Bidi_Control: U+061C, U+200E, U+200F,
	// U+202A–U+202E, U+2066–U+2069), which normalise removes.
	bidi []bool
}

// hiddenPart is the part of one line inside one hidden construct.
type hiddenPart struct {
	text string
	span int    // the construct's index in the text, from 0
	kind string // where the text hides, for the finding ("an HTML comment")
}

// Where text hides from a reader of the rendered page (SPEC.md "Reading
// the text").
const (
	inComment    = "an HTML comment"
	inTag        = "an HTML tag (an attribute such as title or alt)"
	inElement    = "a script, style or template element"
	inImage      = "an image (its alt text, destination or title)"
	inLinkTarget = "a link's destination or title"
	inDefinition = "a link reference definition"
)

// read splits text into lines, takes what a rendered page does not show
// as text out of them and normalises what is left and what was taken out.
func read(text string) page {
	raw := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	vis, hid := splitHidden(raw)
	p := page{visible: make([]string, len(raw)), hidden: make([][]hiddenPart, len(raw)), bidi: make([]bool, len(raw))}
	for i := range raw {
		p.visible[i] = normalise(vis[i])
		for _, h := range hid[i] {
			h.text = normalise(h.text)
			p.hidden[i] = append(p.hidden[i], h)
		}
		p.bidi[i] = strings.ContainsFunc(raw[i], isBidiControl)
	}
	return p
}

func isBidiControl(r rune) bool { return unicode.Is(unicode.Bidi_Control, r) }

// reordered reports every line of a parsed declaration (its "Conforms
// to" line and its field lines) that holds a bidirectional control
// character: the line is read with them removed, but a renderer applies
// them, so it may display in another order than it reads (SPEC.md
// "Forbidden statements").
func reordered(p page, decls []Declaration) []Finding {
	var lines []int
	for _, d := range decls {
		lines = append(lines, d.Line, d.TestedLine, d.FPLine, d.PackageLine, d.BundleLine)
		lines = append(lines, d.DeviationLines...)
		for _, r := range d.Repeated {
			lines = append(lines, r.Line)
		}
	}
	slices.Sort(lines)
	var out []Finding
	for _, l := range slices.Compact(lines) {
		if l > 0 && p.bidi[l-1] {
			out = append(out, Finding{Line: l, Kind: KindForbidden, Clause: "DSHIO/T 10 8.1", Message: "a line of a declaration holds bidirectional control characters: it may display otherwise than it reads", Text: clip(p.visible[l-1])})
		}
	}
	return out
}

// scanned is line i as the forbidden-statement rules read it: visible and
// hidden parts both, since a statement is no less forbidden for being in
// a comment.
func (p page) scanned() []string {
	out := make([]string, len(p.visible))
	for i, v := range p.visible {
		parts := []string{v}
		for _, h := range p.hidden[i] {
			parts = append(parts, h.text)
		}
		out[i] = strings.Join(parts, " ")
	}
	return out
}

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
	lower string // t with ASCII letters lower-cased, same offsets
	// starts[k] is the offset of line k; paraEnd[k] is the offset where
	// the paragraph holding line k ends (before the newline of its last
	// line).
	starts, paraEnd []int
	line            int // the line the next emitted text is on
	spans           int
	vis             []strings.Builder
	hid             [][]hiddenPart
}

func newHider(lines []string) *hider {
	s := &hider{t: strings.Join(lines, "\n"), vis: make([]strings.Builder, len(lines)), hid: make([][]hiddenPart, len(lines))}
	lower := []byte(s.t)
	for k, c := range lower {
		if 'A' <= c && c <= 'Z' {
			lower[k] = c + 'a' - 'A'
		}
	}
	s.lower = string(lower)
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
		name := s.lower[j:n]
		k := s.closing(n, limit, '>')
		if k < 0 {
			return i + 1, limit, limit, inTag
		}
		if t[i+1] != '/' && (name == "script" || name == "style" || name == "template") {
			e := strings.Index(s.lower[k:], "</"+name)
			if e < 0 {
				return i + 1, len(t), len(t), inElement
			}
			e += k
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
	if strings.ContainsAny(s, "*_`<") { // markupRE needs one of them
		s = markupRE.ReplaceAllString(s, "")
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
	s = html.UnescapeString(s)
	rs := []rune(readerChars(s))
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
// plain spaces.
func readerChars(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.Is(unicode.Cf, r):
			return -1
		case unicode.Is(unicode.Zs, r):
			return ' '
		}
		return r
	}, s)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// declHeadRE is the start of a declaration as a reader reads it, matched
// on declFold's form: "Conforms to DSHIO/T", with the digits and
// letters a reader takes for DSHIO's I and O.
var declHeadRE = lazyregexp.New(`\bconforms?\s*to\s*dsh[i1l|]\s*[o0]\s*/\s*t`)

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
func declFold(s string) string {
	return strings.Map(func(r rune) rune {
		if l, ok := declConfusables[r]; ok {
			return l
		}
		return r
	}, rules.FoldConfusables(s))
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
			if !hiding[h.span] && (len(declHeads(declFold(h.text))) > 0 || hiddenFieldRE.MatchString(h.text)) {
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
			folded[k] = declFold(p.visible[first+k])
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
