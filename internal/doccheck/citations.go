package doccheck

import (
	"regexp"
	"strings"
)

// Citation is one `SPEC.md "Heading"` or `DESIGN.md "Heading"` reference
// in source code.
type Citation struct {
	File string
	Line int
	// Doc is "SPEC.md" or "DESIGN.md".
	Doc string
	// Heading is the quoted heading, white space collapsed; empty for a
	// citation by number (SPEC.md 3.3), which names no heading.
	Heading string
	// Text is the citation as written, for messages.
	Text string
}

var (
	// A comment or string line break inside a citation: the newline, its
	// indentation and a "//" continuing the comment.
	lineBreakRE = regexp.MustCompile(`\n[ \t]*(?://[ \t]?)?`)
	citationRE  = regexp.MustCompile(`(?:^|[^\w-])(SPEC|DESIGN)(?:\.md)?[ \t]+(?:"([^"\n]{1,120})"|§?\d)`)
)

// Citations returns every citation of SPEC.md or DESIGN.md in src, also
// when it wraps over comment lines. "SPEC" alone counts as SPEC.md.
func Citations(file string, src []byte) []Citation {
	// Flatten line breaks to single spaces, keeping for every flattened
	// offset the line it came from.
	text := string(src)
	var flat strings.Builder
	var lineOf []int
	line, last := 1, 0
	for _, m := range lineBreakRE.FindAllStringIndex(text, -1) {
		for i := last; i < m[0]; i++ {
			flat.WriteByte(text[i])
			lineOf = append(lineOf, line)
		}
		flat.WriteByte(' ')
		lineOf = append(lineOf, line)
		line++
		last = m[1]
	}
	for i := last; i < len(text); i++ {
		flat.WriteByte(text[i])
		lineOf = append(lineOf, line)
	}
	f := flat.String()
	var cites []Citation
	for _, m := range citationRE.FindAllStringSubmatchIndex(f, -1) {
		c := Citation{File: file, Line: lineOf[m[2]], Doc: f[m[2]:m[3]] + ".md", Text: strings.TrimSpace(f[m[2]:m[1]])}
		if m[4] >= 0 {
			c.Heading = strings.Join(strings.Fields(f[m[4]:m[5]]), " ")
		}
		cites = append(cites, c)
	}
	return cites
}
