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
	p := page{visible: make([]string, len(raw)), forms: make([]lineForms, len(raw)), hidden: make([][]hiddenPart, len(raw)), bidi: make([]bool, len(raw))}
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
