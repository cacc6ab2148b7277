package static

import (
	"bufio"
	"bytes"
	"html"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
)

// The README is read as its consumer, a Markdown renderer, shows it
// (SPEC.md "Consumers", "README exception"): parsed per CommonMark by
// goldmark, a CommonMark-compliant parser, with no extensions. What a
// renderer does not show as prose — an HTML comment or other raw HTML,
// closed or not, a fenced or indented code block, an image — is no text
// of a section; a line that a renderer shows as a heading (ATX or
// setext) is a heading, never an item. TestREADMEAsCommonMark checks the
// reading against commonmark.js, the reference implementation.

var lineEndings = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// markdown is the CommonMark parser: goldmark without extensions.
// Made on first use, as the patterns are (DESIGN.md "Start-up cost").
var markdown = sync.OnceValue(func() goldmark.Markdown { return goldmark.New() })

// permissionSections returns, for each "Permissions" section of the
// Markdown md, the lines of prose a renderer shows in it: a section
// opens at a heading of the document (not one inside a list or a quote)
// whose text starts with "Permissions" (case-insensitive) and runs to
// the next such heading of the same or a higher level. Each paragraph
// gives its lines (its soft and hard line breaks), emphasis, code-span
// marks, links' destinations, raw HTML and images taken out, backslash
// escapes and character references resolved; paragraphs, and a heading
// nested in a list or quote, are separated by an empty line.
func permissionSections(md string) [][]string {
	if !containsFoldASCII(md, "permissions") && strings.IndexByte(md, '&') < 0 {
		return nil // no heading can read "Permissions" (a character reference could spell it)
	}
	// A line ending is LF, CR or CRLF (CommonMark 0.31 section 2.1);
	// goldmark takes a lone CR for a character, so both become LF first
	// (TestREADMEAsCommonMark found it).
	src := []byte(lineEndings.Replace(md))
	doc := markdown().Parser().Parse(text.NewReader(src))
	var secs [][]string
	var cur []string
	level, in := 0, false
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			if in && h.Level <= level {
				secs = append(secs, cur)
				in, cur = false, nil
			}
			if !in && strings.HasPrefix(strings.ToLower(strings.TrimSpace(inlineText(h, src))), "permissions") {
				in, level, cur = true, h.Level, nil
			}
			continue
		}
		if in {
			cur = proseLines(n, src, cur)
		}
	}
	if in {
		secs = append(secs, cur)
	}
	return secs
}

// markdownConflict says where CommonMark renderers show md differently,
// so that no section of it is read (SPEC.md "Consumers"), or "". Each
// rule is a disagreement TestREADMEAsCommonMark found between goldmark
// and commonmark.js, the reference implementation:
//
//   - U+FEFF anywhere: commonmark.js takes it for white space
//     (JavaScript's \s), which changes emphasis, trailing space and a
//     heading at the start, where goldmark takes it for a character (and
//     cmark drops a leading one);
//   - "<!" and a lower-case letter: CommonMark 0.31 opens an HTML block
//     there (type 4, a declaration, now any ASCII letter), hiding text up
//     to the next ">", where goldmark, as the specification before 0.31,
//     needs an upper-case letter and shows the text;
//   - a tag name followed by a tab ("</details\t>"): commonmark.js opens
//     an HTML block, goldmark shows the text;
//   - "</" and a space: goldmark opens an HTML block, hiding text, where
//     CommonMark shows it;
//   - a tab between "](" and the next ")": commonmark.js shows the link as
//     written, brackets and destination, goldmark as its text.
func markdownConflict(md string) string {
	if strings.Contains(md, "\ufeff") {
		return "the README holds U+FEFF, which CommonMark renderers read differently (as white space or as a character)"
	}
	for i := 0; i+2 < len(md); i++ {
		if md[i] != '<' {
			continue
		}
		j := i + 1
		if md[j] == '!' && 'a' <= md[j+1] && md[j+1] <= 'z' {
			return "the README has \"<!\" and a lower-case letter, where CommonMark 0.31 hides text in an HTML block and earlier renderers show it"
		}
		if md[j] == '/' {
			if md[j+1] == ' ' || md[j+1] == '\t' {
				return "the README has \"</\" and a space, where goldmark opens an HTML block and CommonMark shows text"
			}
			j++
		}
		k := j
		for k < len(md) && isASCIIAlnum(md[k]) {
			k++
		}
		if k > j && k < len(md) && md[k] == '\t' {
			return "the README has an HTML tag name followed by a tab, which CommonMark renderers read differently (an HTML block or text)"
		}
	}
	for rest := md; ; {
		i := strings.Index(rest, "](")
		if i < 0 {
			break
		}
		rest = rest[i+2:]
		if end := strings.IndexByte(rest, ')'); end >= 0 && strings.IndexByte(rest[:end], '\t') >= 0 {
			return "the README has a tab in a link's destination, which CommonMark renderers read differently (a link or text)"
		}
	}
	return ""
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9'
}

// proseLines appends the lines of the paragraphs under the block n.
func proseLines(n ast.Node, src []byte, lines []string) []string {
	switch n.Kind() {
	case ast.KindParagraph, ast.KindTextBlock:
		lines = append(lines, strings.Split(inlineText(n, src), "\n")...)
		return append(lines, "")
	case ast.KindHeading:
		return append(lines, "")
	case ast.KindFencedCodeBlock, ast.KindCodeBlock, ast.KindHTMLBlock, ast.KindThematicBreak:
		return lines
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		lines = proseLines(c, src, lines)
	}
	return lines
}

// inlineText is the text a renderer shows for the inline content of n,
// line breaks as "\n".
func inlineText(n ast.Node, src []byte) string {
	var b bytes.Buffer
	writeInline(&b, n, src)
	return b.String()
}

func writeInline(b *bytes.Buffer, n ast.Node, src []byte) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.WriteString(plain(c.Segment.Value(src), c.IsRaw()))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.WriteString(plain(c.Value, c.IsRaw() || c.IsCode()))
		case *ast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if tx, ok := t.(*ast.Text); ok {
					v := tx.Segment.Value(src)
					if bytes.HasSuffix(v, []byte("\n")) {
						v = append(v[:len(v)-1:len(v)-1], ' ')
					}
					b.Write(v)
				}
			}
		case *ast.AutoLink:
			b.Write(c.Label(src))
		case *ast.RawHTML, *ast.Image:
			// not text on the page
		default:
			writeInline(b, c, src)
		}
	}
}

// plain is text as the renderer shows it: through goldmark's own HTML
// writer (backslash escapes and character references resolved), then
// unescaped back from HTML.
func plain(v []byte, raw bool) string {
	if raw {
		return string(v)
	}
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	gmhtml.DefaultWriter.Write(w, v)
	_ = w.Flush()
	return html.UnescapeString(b.String())
}
