package rules

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// ansiEscape is SPEC.md "Output lines"' escape sequences as the pattern
// that cleanLine used before it matched them by hand (escapeLen).
var ansiEscape = regexp.MustCompile("\x1b(?:\\[[0-?]*[ -/]*[@-~]|\\][^\x07\x1b]*(?:\x07|\x1b\\\\)?|[@-Z\\\\-_])")

// composedCleanLine is cleanLine as it was written before it worked on
// bytes (dshaudit 0e0e43f): the oracle of TestCleanLineAsComposed.
func composedCleanLine(l []byte) string {
	s := strings.TrimSuffix(string(l), "\r")
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = ansiEscape.ReplaceAllString(s, "")
	return strings.Map(cleanRune, s)
}

// cleanRune, the oracle's last step, turns a tab into a space and drops other control characters.
func cleanRune(r rune) rune {
	if r == '\t' {
		return ' '
	}
	if unicode.IsControl(r) {
		return -1
	}
	return r
}

// cleanLineCases are lines where escape removal, control removal and
// UTF-8 repair could interact.
var cleanLineCases = []string{
	"", "plain", "tab\there", "cr\r", "cr\r\r", "\x1b[31mred\x1b[0m", "\x1b[", "\x1b[\x1b[m",
	"\xff\x1b[m\xff", "\xff\xfe\x1b[1m\xfd", "a\x1b]0;title\x07b", "a\x1b]0;ti\xfftle\x1b\\b", "\x1b]unterminated",
	"\x1bM", "\x1b\\", "\x1b_", "\x1b@", "\x1b[?25l", "é\x1b[1mé", "\x00\x01\x7f\u0085\u2028", "\uFFFD\xff",
	"\x1b[1;2;3 !m", "\x1b[\xffm", "\xe2\x82\x1b[m\xac", "\x1b\xff", "\r\x1b[m\r",
	"\x1b]\x1b]\x1b\\", "\x1b]a\x1bb", "\x1b]a\x1b", "\x1b[0\x1b[m", "\x1b[12", "\x1b[1 ", "\x1b[ 1m", "\x1b", "\xff\x1b\xff",
	"\x1b\x7f", "\x1b^", "\x1bZ", "\x1b[", "\x1b[~", "\x1b[?", "\x1b]\x07\xff", "\xff\x00\xff", "\xffa\xffa", "\u0085\xff\u0085",
}

func TestCleanLineAsComposed(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	// Pieces that escape removal, control removal and UTF-8 repair act
	// on, whole characters beside the single bytes of cut ones.
	alphabet := []string{"\x1b", "[", "]", "m", "0", ";", "?", " ", "\x07", "\\", "\xff", "\xe2\x82", "é", "\t", "\r", "a", "\x00", "\u0085", "\uFFFD", "@", "_", "M",
		"\x7f", "\xc3", "\xa9", "\x80", "\xe2", "\x82", "\xac", "\xef", "\xbf", "\xbd", "\xf0", "\x9f"}
	cases := append([]string{}, cleanLineCases...)
	files, _ := filepath.Glob(filepath.Join(evidenceDir, "*/t*.std*"))
	if len(files) == 0 {
		t.Fatalf("no evidence under %s", evidenceDir)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			cases = append(cases, string(l))
		}
	}
	for range 40000 {
		var b strings.Builder
		for range rng.Intn(16) {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, c := range cases {
		if got, want := cleanLine([]byte(c)), composedCleanLine([]byte(c)); got != want {
			t.Fatalf("cleanLine(%q) = %q, want %q", c, got, want)
		}
	}
}

// FuzzCleanLine checks cleanLine against composedCleanLine.
func FuzzCleanLine(f *testing.F) {
	for _, c := range cleanLineCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, l []byte) {
		if got, want := cleanLine(l), composedCleanLine(l); got != want {
			t.Fatalf("cleanLine(%q) = %q, want %q", l, got, want)
		}
	})
}
