package main

import (
	"os"

	"github.com/dshaudit/dshaudit/internal/termtext"
)

// textFlags are the global flags that shape text output for a person.
type textFlags struct {
	Width   int
	MaxText int
}

// style is how text for a person is laid out on s.Out: the table width
// (flag, $COLUMNS, the terminal, or the default) and the bound on one
// value (SPEC.md "Output safety").
func (s *streams) style() termtext.Style {
	return termtext.Style{Width: termtext.TerminalWidth(s.Text.Width, s.Out, os.Getenv), MaxText: s.Text.MaxText}
}
