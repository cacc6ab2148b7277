package termtext

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, ünïcödé, 中文", "plain text, ünïcödé, 中文"},
		{"a\nb\r\tc", `a\nb\r\tc`},
		{"\x1b[2J\x1b[1;1HRESULT: verified", `\x1b[2J\x1b[1;1HRESULT: verified`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"\u202egnp.exe", `\u202egnp.exe`},
		{"\u2066x\u2069 \u200e\u200f \u200b \ufeff", `\u2066x\u2069 \u200e\u200f \u200b \ufeff`},
		{"c1\u0085\u009b", `c1\u0085\u009b`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"bad\xff\xfe", `bad\xff\xfe`},
		{"pua\U000F0000", `pua\U000f0000`},
		{"\ufffd kept", "\ufffd kept"},
	} {
		got := Escape(c.in)
		if got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
		assertSafe(t, got, false)
	}
}

func TestBlockKeepsLinesOnly(t *testing.T) {
	got := Block("line 1\n\tline 2\r\x1b[31mred\u202e\n")
	want := "line 1\n\tline 2\\r\\x1b[31mred\\u202e\n"
	if got != want {
		t.Errorf("Block = %q, want %q", got, want)
	}
	assertSafe(t, got, true)
}

func TestField(t *testing.T) {
	if got := Field("short", 10); got != "short" {
		t.Errorf("Field short = %q", got)
	}
	got := Field(strings.Repeat("x", 50)+"\n", 10)
	if got != "xxxxxxxxx…[+43]" {
		t.Errorf("Field long = %q", got)
	}
	if got := Field(strings.Repeat("y", 500), 0); len(got) != 500 {
		t.Errorf("Field unbounded cut to %d", len(got))
	}
}

func TestWidthAndCut(t *testing.T) {
	if w := Width("中文ab"); w != 6 {
		t.Errorf("Width(中文ab) = %d, want 6", w)
	}
	if w := Width("e\u0301"); w != 1 {
		t.Errorf("combining mark counted: %d", w)
	}
	if got := Cut("中文中文", 5); got != "中文…" || Width(got) > 5 {
		t.Errorf("Cut = %q", got)
	}
}

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		in       string
		w, lines int
		want     []string
	}{
		{"fits", 10, 3, []string{"fits"}},
		{"the quick brown fox jumps", 10, 3, []string{"the quick", "brown fox", "jumps"}},
		{"the quick brown fox jumps over the lazy dog", 10, 3, []string{"the quick", "brown fox", "jumps ove…"}},
		{"abcdefghijklmnop", 5, 3, []string{"abcde", "fghij", "klmn…"}},
		{"", 5, 3, []string{""}},
		{"中文中文", 1, 5, []string{"中", "文", "中", "文"}},
	} {
		got := Wrap(c.in, c.w, c.lines)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("Wrap(%q, %d, %d) = %q, want %q", c.in, c.w, c.lines, got, c.want)
		}
	}
}

func TestTableFitsWidth(t *testing.T) {
	tb := NewTable("", "CLAUSE", "SEVERITY", "STATUS", "OBSERVED", "MESSAGE")
	tb.Row("5.1.1", "critical", "pass", "dsh field present", "")
	tb.Row("5.2.2", "critical", "fail", strings.Repeat("range >=0.1.0 <0.2.0 excludes 0.2.2-rc.1 ", 10), "the declared range does not include the baseline")
	tb.Row("5.3.1", "major", "pass", "files: dist/, patch.yml\x1b[2J\nRESULT: verified", "ok")
	for _, width := range []int{50, 80, 100, 200} {
		var b bytes.Buffer
		if err := tb.Write(&b, width); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if Width(l) > width {
				t.Errorf("width %d: line of %d columns: %q", width, Width(l), l)
			}
			if strings.HasPrefix(l, "RESULT") {
				t.Errorf("width %d: a cell started a line: %q", width, l)
			}
			if l != strings.TrimRight(l, " ") {
				t.Errorf("trailing space: %q", l)
			}
		}
		assertSafe(t, out, true)
		if !strings.Contains(out, "…") {
			t.Errorf("width %d: the long cell was not cut:\n%s", width, out)
		}
		if !strings.HasPrefix(out, "CLAUSE  SEVERITY  STATUS") {
			t.Errorf("width %d: narrow columns were shrunk:\n%s", width, out)
		}
	}
	// Natural widths when everything fits: a plain aligned table.
	small := NewTable("  ", "A", "B")
	small.Row("x", "yy")
	var b bytes.Buffer
	small.Write(&b, 100)
	if b.String() != "  A  B\n  x  yy\n" {
		t.Errorf("small table = %q", b.String())
	}
}

func TestTerminalWidth(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	var buf bytes.Buffer
	for _, c := range []struct {
		flag int
		env  string
		want int
	}{
		{0, "", DefaultWidth},
		{0, "132", 132},
		{0, "junk", DefaultWidth},
		{0, "-5", DefaultWidth},
		{0, "10", MinWidth},
		{90, "132", 90},
	} {
		if got := TerminalWidth(c.flag, &buf, env(c.env)); got != c.want {
			t.Errorf("TerminalWidth(%d, COLUMNS=%q) = %d, want %d", c.flag, c.env, got, c.want)
		}
	}
	// A file that is not a terminal gets the default.
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := TerminalWidth(0, f, env("")); got != DefaultWidth {
		t.Errorf("regular file: %d", got)
	}
}

// assertSafe fails when s holds a byte or character a terminal acts on.
func assertSafe(t *testing.T, s string, newlines bool) {
	t.Helper()
	if bad := Unsafe(s, newlines); bad != "" {
		t.Errorf("unsafe %s in %q", bad, s)
	}
	if !utf8.ValidString(s) {
		t.Errorf("invalid UTF-8 in %q", s)
	}
}

// TestStreamMatchesTable: a Stream told the widest cell of each column
// writes what a Table of the same rows writes, row by row; a cell wider
// than it was told is wrapped, not allowed to break the columns.
func TestStreamMatchesTable(t *testing.T) {
	header := []string{"STATUS", "VERDICT", "PACKAGE", "BUNDLE"}
	rows := [][]string{
		{"verified", "pass", "cordis@1.0.0", "a.dshaudit.tar.zst"},
		{"signature invalid", "-", "", "dir/b\x1b[2J.dshaudit.tar.zst"},
		{"verified", "installs_but_not_registered", "@scope/a-much-longer-name@10.20.30-rc.1", "c.dshaudit.tar.zst"},
	}
	for _, width := range []int{200, 80, 40} {
		tb := NewTable("", header...)
		for _, r := range rows {
			tb.Row(r...)
		}
		var want, got bytes.Buffer
		if err := tb.Write(&want, width); err != nil {
			t.Fatal(err)
		}
		cells := make([]int, len(header))
		for _, r := range rows {
			for c, cell := range r {
				cells[c] = max(cells[c], Width(Escape(cell)))
			}
		}
		st := NewStream(&got, width, "", header, cells)
		for _, r := range rows {
			st.Row(r...)
		}
		if st.Err() != nil {
			t.Fatal(st.Err())
		}
		if got.String() != want.String() {
			t.Errorf("width %d: stream\n%s\ntable\n%s", width, got.String(), want.String())
		}
	}
	var b bytes.Buffer
	st := NewStream(&b, 80, "", []string{"A", "B"}, []int{4, 4})
	st.Row("aaaa aaaa aaaa", "b")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[1], "aaaa  b") || lines[2] != "aaaa" || lines[3] != "aaaa" {
		t.Errorf("a cell wider than told is not wrapped in its column:\n%s", b.String())
	}
}
