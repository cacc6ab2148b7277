package claim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// readerForm reads a line as the rendered page shows it (SPEC.md
// "Reading the text").
func TestReaderForm(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"*Conforms* to", "Conforms to"},
		{"_Conforms_ to", "Conforms to"},
		{"Conforms&nbsp;to", "Conforms to"},
		{"&#x43;onforms &#67;onforms &amp;", "Conforms Conforms &"},
		{"Conforms\u00a0to\u2009DSHIO/T\u3000x", "Conforms to DSHIO/T x"},
		{"Con\u200bfor\u200cm\u200ds\u2060 \ufeffto soft\u00adhyphen", "Conforms to softhyphen"},
		{"Con&#x200B;forms", "Conforms"},
		{"\\(baseline\\) \\*x\\*", "(baseline) x"},
		{"Package: my_plugin@1.0.0 my__x __init__", "Package: my_plugin@1.0.0 my__x init"},
		{"img=localhost/dsh_sandbox:0.1.0@sha256:ab;cpu=1", "img=localhost/dsh_sandbox:0.1.0@sha256:ab;cpu=1"},
	} {
		if got := readerForm(c.in); got != c.want {
			t.Errorf("readerForm(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// HTML comments are taken out of the lines they span, line numbers kept.
func TestSplitHidden(t *testing.T) {
	text := "a<!-- b -->c\n<!--\nd\ne --> f\ng <!--> h <!---> i\nj <!-- k\n\nl"
	vis, hid := splitHidden(strings.Split(text, "\n"))
	wantVis := []string{"ac", "", "", " f", "g  h  i", "j ", "", ""}
	if !slices.Equal(vis, wantVis) {
		t.Errorf("visible %q, want %q", vis, wantVis)
	}
	var got []string
	for i, hs := range hid {
		for _, h := range hs {
			got = append(got, fmt.Sprintf("%d|%s|%d", i+1, h.text, h.span))
		}
	}
	want := []string{"1| b |0", "2||1", "3|d|1", "4|e |1", "6| k|2", "7||2", "8|l|2"}
	if !slices.Equal(got, want) {
		t.Errorf("hidden %q, want %q", got, want)
	}
}

// Each construct a rendered page does not show as text is taken out,
// shown text around it kept (SPEC.md "Reading the text").
func TestSplitHiddenConstructs(t *testing.T) {
	for _, c := range []struct{ in, vis, hid string }{
		{`a ![alt](x.png "t") b`, "a  b", `[alt](x.png "t")`},
		{`a ![alt [x] y][ref] b`, "a  b", `[alt [x] y][ref]`},
		{`[text](u "t (x)") b`, "[text] b", `(u "t (x)")`},
		{`[text][ref] b`, "[text] b", `[ref]`},
		{`> [ref]: http://a 'T'`, "> ", `[ref]: http://a 'T'`},
		{`a <span title="x > y">b</span>`, "a b", `span title="x > y"|/span`},
		{`a <b c`, "a ", `b c`},
		{`a <style>x</style> b`, "a  b", `style>x</style`},
		{`x < y, [a] (b) <!-->`, "x < y, [a] (b) ", ``},
	} {
		vis, hid := splitHidden([]string{c.in})
		var hs []string
		for _, h := range hid[0] {
			hs = append(hs, h.text)
		}
		if vis[0] != c.vis || strings.Join(hs, "|") != c.hid {
			t.Errorf("%q: visible %q hidden %q, want %q %q", c.in, vis[0], strings.Join(hs, "|"), c.vis, c.hid)
		}
	}
}

// A declaration a reader reads is parsed or flagged, never skipped; one
// in a comment is not parsed and is flagged once per comment.
func TestUnread(t *testing.T) {
	const decl = "Conforms to DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static layer only)"
	for _, c := range []struct {
		name, text string
		parsed     []int // lines of the parsed declarations
		flagged    []int // lines of the findings
	}{
		{"plain", decl, []int{1}, nil},
		{"italic", "*Conforms* to DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, _static layer only_)", []int{1}, nil},
		{"no-break entity", strings.Replace(decl, " to ", "&nbsp;to&#160;", 1), []int{1}, nil},
		{"zero width", strings.Replace(decl, "Conforms", "Con\u200bforms", 1), []int{1}, nil},
		{"cyrillic o", strings.Replace(decl, "Conforms", "C\u043enforms", 1), nil, []int{1}},
		{"greek omicron in DSHIO", strings.Replace(decl, "DSHIO", "DSHI\u039f", 1), nil, []int{1}},
		{"digit zero", strings.Replace(decl, "DSHIO", "DSHI0", 1), nil, []int{1}},
		{"wrapped", "x\n> Conforms to\n> DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static layer only)", nil, []int{2}},
		{"two on a line", decl + " " + decl, []int{1}, []int{1}},
		{"comment", "x\n<!--\n" + decl + "\nTested: 2026-11-20\n-->\n", nil, []int{3}},
		{"field in a comment", decl + "\n<!-- Tested: 2026-11-20 -->\n", []int{1}, []int{2}},
		{"unterminated comment", "x <!-- y\n\n" + decl, nil, []int{3}},
		{"wrapped round a comment", "Conforms to\n<!--\n-->\nDSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static layer only)", nil, []int{1}},
		{"a denial is not a declaration", "It does not conform to DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static + dynamic layer).\n<!-- does not conform to DSHIO/T 10 -->", nil, nil},
		{"a denial and a declaration", "Does not conform to DSHIO/T 20 but conforms to DSHIO/T 10 in full.", nil, []int{1}},
		{"comment text is not a claim", "<!-- TODO: badges -->\n" + decl, []int{2}, nil},
		{"image alt text", "![" + decl + "](x.png)", nil, []int{1}},
		{"image alt text over lines", "![x\n" + decl + "\nTested: 2026-11-20\n](x.png)", nil, []int{2}},
		{"link reference definition", "[//]: # (" + decl + ")", nil, []int{1}},
		{"definition title on the next line", "[x]: http://a\n\"" + decl + "\"", nil, []int{2}},
		{"link title", "See [a](http://a \"" + decl + "\").", nil, []int{1}},
		{"link title holding a parenthesis", "[a](u \"x) " + decl + "\")", nil, []int{1}},
		{"title attribute", `<span title="` + decl + `">x</span>`, nil, []int{1}},
		{"alt attribute on the tag's second line", "<img src=x.png\n     alt=\"" + decl + "\">", nil, []int{2}},
		{"field in an alt attribute", decl + "\n<img alt=\"Tested: 2026-11-20\">", []int{1}, []int{2}},
		{"script element", "<script>\n" + decl + "\n</script>", nil, []int{2}},
		{"tags around a declaration", `<span title="x">` + decl + "</span>", []int{1}, nil},
		{"details content is shown", "<details><summary>Conformance</summary>\n\n" + decl + "\n\n</details>", []int{3}, nil},
		{"badges", "[![DSHIO](https://img.shields.io/badge/DSHIO%2FT%2010-2026-blue)](#conformance)\n\n" + decl, []int{3}, nil},
		{"paragraph after a definition", "[x]: http://a\n" + decl, []int{2}, nil},
	} {
		p := read(c.text)
		decls := parseLines(p.forms, p.raw)
		declLines := map[int]bool{}
		var parsed, flagged []int
		for _, d := range decls {
			declLines[d.Line] = true
			parsed = append(parsed, d.Line)
		}
		for _, f := range unread(p, declLines) {
			flagged = append(flagged, f.Line)
		}
		if !slices.Equal(parsed, c.parsed) || !slices.Equal(flagged, c.flagged) {
			t.Errorf("%s: parsed %v flagged %v, want %v %v", c.name, parsed, flagged, c.parsed, c.flagged)
		}
	}
}

// A field given twice keeps both values, the first in the field and the
// later in Repeated, each with its line.
func TestParseRepeatedFields(t *testing.T) {
	text := "Conforms to DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static layer only)\nPackage: a@1.0.0\nTested: 2026-11-20\n\nPackage: b@1.0.0\nPackage: a@1.0.0\n"
	ds := Parse(text)
	if len(ds) != 1 {
		t.Fatalf("%d declarations", len(ds))
	}
	d := ds[0]
	want := []Field{{FieldPackage, "b@1.0.0", 5}, {FieldPackage, "a@1.0.0", 6}}
	if d.Package != "a@1.0.0" || d.PackageLine != 2 || !slices.Equal(d.Repeated, want) {
		t.Errorf("package %q line %d repeated %+v, want a@1.0.0 line 2 %+v", d.Package, d.PackageLine, d.Repeated, want)
	}
}

// A line of a parsed declaration that holds a bidi control is flagged:
// it is read with the control removed but displayed with it applied.
func TestReordered(t *testing.T) {
	const decl = "Conforms to DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static layer only)"
	for _, c := range []struct {
		name, text string
		flagged    []int
	}{
		{"none", decl + "\nTested: 2026-11-20", nil},
		{"override in the declaration", strings.Replace(decl, "static", "\u202estatic", 1) + "\u202c\nTested: 2026-11-20", []int{1}},
		{"isolate in a field", decl + "\nPackage: \u2066a@1.0.0\u2069\nTested: 2026-11-20", []int{2}},
		{"mark in a deviation", decl + "\nCondition deviation: x: a changed to b (c\u200f)", []int{2}},
		{"embedding in a repeated field", decl + "\nTested: 2026-11-20\nTested: \u202a2026-11-20", []int{3}},
		{"prose between fields", decl + "\n\u202bשלום\u202c\nTested: 2026-11-20", nil},
		{"prose outside a declaration", "\u202ex\u202c\n\n" + decl, nil},
	} {
		p := read(c.text)
		var flagged []int
		for _, f := range reordered(p, parseLines(p.forms, p.raw)) {
			flagged = append(flagged, f.Line)
		}
		if !slices.Equal(flagged, c.flagged) {
			t.Errorf("%s: flagged %v, want %v", c.name, flagged, c.flagged)
		}
	}
}

// What a CommonMark renderer does not show is no declaration (SPEC.md
// "Reading the text", "Consumers"): a fence's info string, an HTML
// declaration block, a comment whose "-->" CommonMark renders as text.
func TestRenderedDeclarationsOnly(t *testing.T) {
	decl := "Conforms to DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static layer only)"
	for _, c := range []struct {
		text string
		want int
	}{
		{decl + "\n", 1},
		{"```\n" + decl + "\n```\n", 1},               // code is shown
		{"~~~ " + decl + "\n~~~\n", 0},                // the info string is not
		{"```` x\n``` " + decl + "\n````\n", 1},       // inside the fence it is content
		{"<!x\n" + decl + "\n>\n", 0},                 // CommonMark 0.31 hides a declaration block
		{"text <!x " + decl + " >\n", 0},              // and inline
		{"</span>\n<!--\n\n-->\n\n" + decl + "\n", 0}, // the -->, in a paragraph, closes nothing
		{"<!--\nnote\n\n-->\n\n" + decl + "\n", 1},    // a comment block runs across blank lines
	} {
		if got := len(Parse(c.text)); got != c.want {
			t.Errorf("%q: %d declarations parsed, want %d", c.text, got, c.want)
		}
	}
	if r := Check("~~~ "+decl+"\n~~~\n", Facts{}, ""); !slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Kind == KindForbidden }) {
		t.Errorf("a declaration in an info string is not flagged: %+v", r)
	}
}
