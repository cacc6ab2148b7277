package manifest

import (
	"errors"
	"strings"
	"testing"
)

func TestTextError(t *testing.T) {
	for s, ok := range map[string]bool{
		"":                              true,
		"one line, with é and → arrows": true,
		"no-break\u00a0space and\u3000 ideographic space": true,
		"U+FFFD \ufffd itself is a symbol":                true,
		strings.Repeat("a", MaxTextBytes):                 true,
		strings.Repeat("a", MaxTextBytes+1):               false,
		"two\nlines":                                      false,
		"carriage\rreturn":                                false,
		"tab\there":                                       false,
		"line\u2028separator":                             false,
		"paragraph\u2029separator":                        false,
		"escape \x1b[31m":                                 false,
		"delete \x7f":                                     false,
		"c1 \u0085":                                       false,
		"bad \xff utf-8":                                  false,
		"surrogate \xed\xa0\x80":                          false,
		"right-to-left \u202e override":                   false,
		"isolate \u2066 bidi":                             false,
		"zero\u200bwidth":                                 false,
		"\ufeffbyte order mark":                           false,
		"private \ue000 use":                              false,
		"unassigned \U000e0fff":                           false,
	} {
		err := TextError(s)
		if (err == nil) != ok {
			t.Errorf("TextError(%q) = %v, want ok=%v", s, err, ok)
		}
		if err != nil && !errors.Is(err, ErrText) {
			t.Errorf("TextError(%q) = %v, does not wrap ErrText", s, err)
		}
	}
}
