package manifest

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxTextBytes bounds a writer's text (SPEC.md "Manifest fields and how
// each is checked"): far above any text a run records, low enough that
// no text is a flood.
const MaxTextBytes = 4096

// ErrText: a writer's text is not one line of printable text.
var ErrText = errors.New("not one line of printable text")

// TextError says why s, a text the writer of a bundle chose (a recorded
// input such as a condition's value or a deviation's reason, or an
// informative text of a recorded result), is not one line of printable
// text (SPEC.md "Manifest fields and how each is checked"): at most
// MaxTextBytes of valid UTF-8 holding no control (Cc), format (Cf: zero
// width, bidi, U+FEFF), line or paragraph separator (Zl, Zp),
// private-use, surrogate or unassigned character. It wraps ErrText; nil
// when s is one.
func TextError(s string) error {
	if len(s) > MaxTextBytes {
		return fmt.Errorf("%w: longer than %d bytes", ErrText, MaxTextBytes)
	}
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return fmt.Errorf("%w: invalid UTF-8 at byte %d", ErrText, i)
			}
		}
		// Graphic is L, M, N, P, S and Zs: it leaves out Cc, Cf, Co,
		// Cs, Cn, Zl and Zp.
		if !unicode.IsGraphic(r) {
			return fmt.Errorf("%w: holds %U at byte %d", ErrText, r, i)
		}
	}
	return nil
}
