package claim

import (
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
	// visible[i] is line i+1 without its HTML comments, normalised.
	visible []string
	// hidden[i] are the parts of line i+1 inside HTML comments,
	// normalised, one per comment the line holds, empty ones included.
	hidden [][]hiddenPart
}

// hiddenPart is the part of one line inside one HTML comment.
type hiddenPart struct {
	text    string
	comment int // the comment's index in the text, from 0
}

// read splits text into lines, takes its HTML comments out of them and
// normalises what is left and what was taken out.
func read(text string) page {
	raw := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	vis, hid := splitComments(raw)
	p := page{visible: make([]string, len(raw)), hidden: make([][]hiddenPart, len(raw))}
	for i := range raw {
		p.visible[i] = normalise(vis[i])
		for _, h := range hid[i] {
			h.text = normalise(h.text)
			p.hidden[i] = append(p.hidden[i], h)
		}
	}
	return p
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

// splitComments separates each line into what lies outside and inside
// HTML comments. A comment runs from "<!--" to the next "-->", across
// lines, or to the end of the text when none follows; "<!-->" and
// "<!--->" are empty comments (HTML). Ending a comment only at "-->"
// errs towards hiding: text a renderer shows that is read as hidden is
// flagged, never believed.
func splitComments(lines []string) (visible []string, hidden [][]hiddenPart) {
	visible = make([]string, len(lines))
	hidden = make([][]hiddenPart, len(lines))
	in, n := false, -1
	for i, rest := range lines {
		var vis strings.Builder
		if in && rest == "" {
			hidden[i] = append(hidden[i], hiddenPart{"", n})
		}
		for rest != "" {
			if in {
				end := strings.Index(rest, "-->")
				if end < 0 {
					hidden[i] = append(hidden[i], hiddenPart{rest, n})
					break
				}
				hidden[i] = append(hidden[i], hiddenPart{rest[:end], n})
				rest, in = rest[end+3:], false
				continue
			}
			start := strings.Index(rest, "<!--")
			if start < 0 {
				vis.WriteString(rest)
				break
			}
			vis.WriteString(rest[:start])
			rest = rest[start+4:]
			switch {
			case strings.HasPrefix(rest, ">"):
				rest = rest[1:]
			case strings.HasPrefix(rest, "->"):
				rest = rest[2:]
			default:
				in = true
				n++
				if rest == "" {
					hidden[i] = append(hidden[i], hiddenPart{"", n})
				}
			}
		}
		visible[i] = vis.String()
	}
	return visible, hidden
}

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
	s = markupRE.ReplaceAllString(s, "")
	return strings.TrimSpace(readerForm(s))
}

// mdEscapeRE is a Markdown backslash escape: the reader sees the
// punctuation without the backslash.
var mdEscapeRE = lazyregexp.New("\\\\([!-/:-@\\[-`{-~])")

// readerForm is s as a reader of the rendered page reads it: Markdown
// backslash escapes and HTML character references (&nbsp;, &#x43;)
// resolved, every space separator (\p{Zs}, e.g. U+00A0) a plain space,
// invisible format characters (\p{Cf}: zero-width spaces and joiners,
// U+2060, U+FEFF, soft hyphens, bidi controls) removed, and the
// emphasis delimiters removed: every "*", and every run of "_" that does
// not stand between two letters or digits (my_plugin keeps its "_").
func readerForm(s string) string {
	s = mdEscapeRE.ReplaceAllString(s, "$1")
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

// hiddenFieldRE is a declaration's field line (parse.go's field patterns).
var hiddenFieldRE = lazyregexp.New(`(?i)^(tested|environment\s+fingerprint|package|evidence\s+bundle|condition\s+deviation)\s*:`)

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
	hiding := map[int]bool{} // comments already reported, one finding each
	for i, hs := range p.hidden {
		for _, h := range hs {
			if !hiding[h.comment] && (declHeadRE.MatchString(declFold(h.text)) || hiddenFieldRE.MatchString(h.text)) {
				hiding[h.comment] = true
				add(i, h.text, "a declaration (or one of its fields) inside an HTML comment: a reader of the rendered page does not see it, and it is not read")
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
		for _, m := range declHeadRE.Re().FindAllStringIndex(joined, -1) {
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
