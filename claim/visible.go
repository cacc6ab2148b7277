package claim

import (
	"slices"
	"strings"
	"unicode"
)

// The text is read as a reader of the rendered page reads it (SPEC.md
// "Reading the text"): what a rendered page hides is not a declaration,
// and a line a reader reads as one is either parsed or flagged, never
// skipped. The text is written by the party whose claim is checked.

// page is a text split into its 1-based lines as a reader sees them.
type page struct {
	// raw[i] is line i+1 as written (CRLF read as LF), for the block
	// structure a setext heading needs (parseLines).
	raw []string
	// visible[i] is line i+1 without what a rendered page does not show
	// as text (hiddenAt), normalised.
	visible []string
	// forms[i] is visible[i] in the forms the patterns read (formsOf).
	forms []lineForms
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
	inComment          = "an HTML comment"
	inTag              = "an HTML tag (an attribute such as title or alt)"
	inElement          = "a script, style or template element"
	inImage            = "an image (its alt text, destination or title)"
	inLinkTarget       = "a link's destination or title"
	inDefinition       = "a link reference definition"
	inInfoString       = "a code fence's info string"
	inDeclarationBlock = "an HTML declaration block (\"<!\" and a letter, which CommonMark 0.31 hides and earlier renderers show)"
)

// read splits text into lines, takes what a rendered page does not show
// as text out of them and normalises what is left and what was taken out.
func read(text string) page {
	raw := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	vis, hid := splitHidden(raw)
	hideInfoStrings(vis, hid)
	hideDeclarationBlocks(vis, hid)
	p := page{raw: raw, visible: make([]string, len(raw)), forms: make([]lineForms, len(raw)), hidden: make([][]hiddenPart, len(raw)), bidi: make([]bool, len(raw))}
	for i := range raw {
		p.visible[i] = normalise(vis[i])
		p.forms[i] = formsOf(p.visible[i])
		for _, h := range hid[i] {
			h.text = normalise(h.text)
			p.hidden[i] = append(p.hidden[i], h)
		}
		p.bidi[i] = !isASCII(raw[i]) && strings.ContainsFunc(raw[i], isBidiControl)
	}
	return p
}

// hideInfoStrings moves the info string of each line that opens a
// fenced code block out of the visible text: a CommonMark renderer
// shows none of it (the first word becomes a class attribute), so a
// declaration there is not one a reader sees (SPEC.md "Reading the
// text", "Consumers"; TestDeclarationsShownByCommonMark found it). A
// fence opens at up to three spaces of indentation with three or more
// backticks or tildes (an info string after backticks holds none) and
// closes at a line of at least as many of the same character and
// nothing else; fences inside lists and quotes are not tracked, which
// leaves their info strings visible and so read, never hidden from the
// check.
func hideInfoStrings(vis []string, hid [][]hiddenPart) {
	var open byte
	openLen := 0
	for i, line := range vis {
		t := line
		n := 0
		for n < 3 && strings.HasPrefix(t, " ") {
			t, n = t[1:], n+1
		}
		if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
			continue
		}
		c := t[0]
		run := 0
		for run < len(t) && t[run] == c {
			run++
		}
		if run < 3 {
			continue
		}
		info := t[run:]
		if open != 0 {
			if c == open && run >= openLen && strings.TrimSpace(info) == "" {
				open = 0
			}
			continue
		}
		if c == '`' && strings.Contains(info, "`") {
			continue // not a fence: an inline code span
		}
		open, openLen = c, run
		if strings.TrimSpace(info) != "" {
			vis[i] = line[:len(line)-len(info)]
			hid[i] = append(hid[i], hiddenPart{text: info, span: -1 - i, kind: inInfoString})
		}
	}
}

// hideDeclarationBlocks moves out of the visible text what CommonMark
// 0.31 reads as an HTML declaration, "<!" and an ASCII letter up to the
// next ">": a block (type 4) at the start of a line, to the first line
// holding ">" or the end of the text; raw inline HTML elsewhere, across
// lines to a blank line at the latest (erring towards hiding). Renderers following 0.31 hide it, others (0.29 wanted an
// upper-case letter) show it, so a declaration there is flagged, never
// believed (SPEC.md "Consumers", M4; TestDeclarationsShownByCommonMark
// found both).
func hideDeclarationBlocks(vis []string, hid [][]hiddenPart) {
	for i := 0; i < len(vis); i++ {
		p := declarationStart(vis[i])
		if p < 0 {
			continue
		}
		span := -1 - len(vis) - i
		block := strings.TrimLeft(vis[i][:p], " ") == "" && p <= 3 // a type 4 block runs past blank lines
		for j := i; j < len(vis); j++ {
			from := 0
			if j == i {
				from = p
			}
			if j > i && !block && strings.TrimSpace(vis[j]) == "" {
				i = j
				break
			}
			rest := vis[j][from:]
			end := strings.IndexByte(rest, '>')
			cut := len(rest)
			if end >= 0 {
				cut = end + 1
			}
			hid[j] = append(hid[j], hiddenPart{text: rest[:cut], span: span, kind: inDeclarationBlock})
			vis[j] = vis[j][:from] + rest[cut:]
			if end >= 0 {
				i = j - 1 // the rest of the line may open another
				break
			}
		}
	}
}

// declarationStart is the offset of the first "<!" and an ASCII letter
// in s, or -1.
func declarationStart(s string) int {
	for k := strings.Index(s, "<!"); k >= 0; {
		if k+2 < len(s) && isASCIILetter(s[k+2]) {
			return k
		}
		n := strings.Index(s[k+2:], "<!")
		if n < 0 {
			return -1
		}
		k += 2 + n
	}
	return -1
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
func (p page) scanned() []lineForms {
	out := make([]lineForms, len(p.visible))
	for i, v := range p.visible {
		if len(p.hidden[i]) == 0 {
			out[i] = p.forms[i] // the line is what is visible of it
			continue
		}
		parts := []string{v}
		for _, h := range p.hidden[i] {
			parts = append(parts, h.text)
		}
		out[i] = formsOf(strings.Join(parts, " "))
	}
	return out
}
