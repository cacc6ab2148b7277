package termtext

import (
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// DefaultCellLines is how many lines a wrapped cell may take before the
// rest is cut with "…".
const DefaultCellLines = 3

// colGap is the space between two columns.
const colGap = 2

// minColWidth is the narrowest a shrunk column gets (unless its content
// is narrower).
const minColWidth = 6

// Table lays out rows of cells in a given width. Every cell is escaped;
// when the natural widths do not fit, the widest columns are narrowed and
// their cells wrapped at spaces onto at most CellLines lines, the last
// cut with "…". The full values belong in --json.
type Table struct {
	// Indent starts every line (e.g. "  ").
	Indent string
	// CellLines bounds a wrapped cell; 0 means DefaultCellLines.
	CellLines int
	header    []string
	rows      [][]string
}

// NewTable starts a table with a header row.
func NewTable(indent string, header ...string) *Table {
	return &Table{Indent: indent, header: escapeAll(header)}
}

// Row adds a row; missing cells are empty, extra cells are dropped.
func (t *Table) Row(cells ...string) {
	t.rows = append(t.rows, fitRow(len(t.header), cells))
}

// fitRow is cells escaped, cut or padded with empty cells to n.
func fitRow(n int, cells []string) []string {
	row := make([]string, n)
	copy(row, escapeAll(cells))
	return row
}

func escapeAll(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = Escape(c)
	}
	return out
}

// Write writes the table in at most width columns (when even the
// narrowest columns do not fit, lines are longer).
func (t *Table) Write(w io.Writer, width int) error {
	natural := make([]int, len(t.header))
	for c := range natural {
		for _, r := range t.rows {
			natural[c] = max(natural[c], Width(r[c]))
		}
	}
	widths := columnWidths(t.Indent, t.header, natural, width)
	lines := cellLines(t.CellLines)
	var b strings.Builder
	writeRow(&b, t.Indent, t.header, widths, 1)
	for _, row := range t.rows {
		writeRow(&b, t.Indent, row, widths, lines)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cellLines is n, or DefaultCellLines when n < 1.
func cellLines(n int) int {
	if n < 1 {
		return DefaultCellLines
	}
	return n
}

// writeRow lays out one row of escaped cells in widths, each cell wrapped
// onto at most lines lines.
func writeRow(b *strings.Builder, indent string, row []string, widths []int, lines int) {
	cells := make([][]string, len(row))
	height := 1
	for c, cell := range row {
		cells[c] = Wrap(cell, widths[c], lines)
		height = max(height, len(cells[c]))
	}
	for l := 0; l < height; l++ {
		var line strings.Builder
		line.WriteString(indent)
		for c := range row {
			part := ""
			if l < len(cells[c]) {
				part = cells[c][l]
			}
			line.WriteString(part)
			if c < len(row)-1 {
				line.WriteString(strings.Repeat(" ", widths[c]-Width(part)+colGap))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
}

// columnWidths gives each column its natural width (the widest of its
// cells, and of its header) when all fit in width, else shares the room
// left by the narrow columns among the wide ones.
func columnWidths(indent string, header []string, cells []int, width int) []int {
	n := len(header)
	natural := make([]int, n)
	floor := make([]int, n)
	for c := range n {
		natural[c] = max(Width(header[c]), cells[c])
		floor[c] = min(natural[c], max(Width(header[c]), minColWidth))
	}
	avail := width - Width(indent) - colGap*(n-1)
	total := 0
	for _, x := range natural {
		total += x
	}
	if total <= avail {
		return natural
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return natural[a] - natural[b] })
	out := make([]int, n)
	left := avail
	for k, c := range order {
		share := left / (n - k)
		out[c] = max(min(natural[c], share), floor[c])
		left -= out[c]
	}
	return out
}

// Stream writes a table row by row, for output that should appear as it
// is made and not be kept: its column widths are fixed when it starts,
// from the widths the caller says each column's cells may take (a cell
// wider than that is wrapped onto at most DefaultCellLines lines, as in
// Table), not from the rows.
type Stream struct {
	w      io.Writer
	indent string
	widths []int
	err    error
}

// NewStream writes the header row to w and returns the stream. cells[c]
// is the widest column c's cells are expected to be; width is the line
// width, as for Table.Write.
func NewStream(w io.Writer, width int, indent string, header []string, cells []int) *Stream {
	h := escapeAll(header)
	s := &Stream{w: w, indent: indent, widths: columnWidths(indent, h, cells, width)}
	s.write(h, 1)
	return s
}

// Row writes a row; missing cells are empty, extra cells are dropped.
// After a write error nothing more is written; Err returns it.
func (s *Stream) Row(cells ...string) {
	s.write(fitRow(len(s.widths), cells), DefaultCellLines)
}

func (s *Stream) write(row []string, lines int) {
	if s.err != nil {
		return
	}
	var b strings.Builder
	writeRow(&b, s.indent, row, s.widths, lines)
	_, s.err = io.WriteString(s.w, b.String())
}

// Err is the first write error, if any.
func (s *Stream) Err() error { return s.err }

// Wrap breaks s (already escaped) into lines of at most w columns,
// breaking at the last space that fits and hard-breaking words longer
// than w; when more than maxLines lines would be needed, the last kept
// line is cut with "…".
func Wrap(s string, w, maxLines int) []string {
	if w < 1 {
		w = 1
	}
	var lines []string
	rest := s
	for rest != "" {
		if len(lines) == maxLines-1 || Width(rest) <= w {
			lines = append(lines, Cut(rest, w))
			break
		}
		line, tail := breakLine(rest, w)
		lines = append(lines, line)
		rest = tail
	}
	if len(lines) == 0 {
		lines = []string{""}
	}
	return lines
}

// breakLine splits s after at most w columns, at the last space if there
// is one past the start; the space itself is dropped.
func breakLine(s string, w int) (string, string) {
	n, end, lastSpace := 0, len(s), -1
	for i, r := range s {
		rw := RuneWidth(r)
		if n+rw > w {
			end = i
			break
		}
		if r == ' ' && i > 0 {
			lastSpace = i
		}
		n += rw
	}
	if end == 0 { // one character wider than w: it goes alone
		_, end = utf8.DecodeRuneInString(s)
	}
	if lastSpace > 0 && end < len(s) && s[end] != ' ' {
		return strings.TrimRight(s[:lastSpace], " "), strings.TrimLeft(s[lastSpace:], " ")
	}
	return strings.TrimRight(s[:end], " "), strings.TrimLeft(s[end:], " ")
}
