package report

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
)

//go:embed assets/style.css assets/page.html.tmpl assets/index.html.tmpl
var assets embed.FS

// style is the one stylesheet every page inlines.
var style = mustRead("assets/style.css")

// CSP is the Content-Security-Policy every page carries: nothing may be
// fetched, no script may run, and the only style is the inline sheet,
// allowed by its hash (DESIGN.md "Report pages").
var CSP = "default-src 'none'; style-src '" + hashOf(style) + "'; img-src data:; base-uri 'none'; form-action 'none'"

// templates parses the page and index templates on first use, so that no
// command but report pays for it at start-up (DESIGN.md "Start-up cost").
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"slug":  slug,
		"exit":  exitText,
		"bar":   timelineBar,
		"plus1": func(i int) int { return i + 1 },
		"join":  strings.Join,
		"brk":   breakable,
	}).ParseFS(assets, "assets/page.html.tmpl", "assets/index.html.tmpl"))
})

// document is what a template gets: the page or index, and the head.
type document struct {
	CSP  string
	CSS  template.CSS
	Page *Page
	Ix   *Index
}

// WritePage writes p as one self-contained HTML document.
func WritePage(w io.Writer, p *Page) error {
	return templates().ExecuteTemplate(w, "page.html.tmpl", document{CSP: CSP, CSS: template.CSS(style), Page: p})
}

// WriteIndex writes ix as one self-contained HTML document.
func WriteIndex(w io.Writer, ix *Index) error {
	return templates().ExecuteTemplate(w, "index.html.tmpl", document{CSP: CSP, CSS: template.CSS(style), Ix: ix})
}

func mustRead(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// hashOf is a CSP source expression for an inline element's content.
func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// slug makes a class-name fragment: letters, digits and "-" only.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

func exitText(p *int) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprint(*p)
}

// timelineBar is the length in pixels of a stage's duration bar, scaled
// so that the longest stage of the repetition fills width pixels.
func timelineBar(ms int64, r Repetition, width int) int {
	var longest int64 = 1
	for _, s := range r.Stages {
		longest = max(longest, s.DurationMS)
	}
	w := int(ms * int64(width) / longest)
	if ms > 0 && w < 1 {
		w = 1
	}
	return w
}

// breakable escapes s as HTML text and lets a line break after each "/",
// "-", "_", ":" and "=", before each "@" and each "." not between two
// digits (a version stays whole), and after every 16
// digits of a longer run of hexadecimal (a digest), each by a <wbr>, so
// that paths, package names and identifiers wrap between their parts,
// not in the middle of a word. Only the report's own <wbr> is markup;
// every piece of s is escaped.
func breakable(s string) template.HTML {
	var b strings.Builder
	start, hex := 0, 0
	cut := func(i int) {
		b.WriteString(template.HTMLEscapeString(s[start:i]))
		b.WriteString("<wbr>")
		start = i
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isHex(c) {
			hex++
		} else {
			hex = 0
		}
		switch {
		case c == '/' || c == '-' || c == '_' || c == ':' || c == '=':
			if i+1 < len(s) {
				cut(i + 1)
			}
		case c == '@' && i > start, c == '.' && i > start && !(isDigit(s[i-1]) && i+1 < len(s) && isDigit(s[i+1])):
			cut(i)
		case hex > 16 && hex%16 == 1 && hexRunLen(s[i:]) >= 4:
			cut(i)
		}
	}
	b.WriteString(template.HTMLEscapeString(s[start:]))
	return template.HTML(b.String())
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// hexRunLen is the number of hexadecimal digits s starts with.
func hexRunLen(s string) int {
	n := 0
	for n < len(s) && isHex(s[n]) {
		n++
	}
	return n
}
