package claim

import "testing"

// TestFieldWindowEndsAtSetextHeading: a setext heading ends a
// declaration's field window as an ATX one does (SPEC.md "Reading the
// text", M2); the underline of the declaration's own heading does not,
// and a "---" after a list item is a thematic break, not a heading.
func TestFieldWindowEndsAtSetextHeading(t *testing.T) {
	const decl = "Conforms to DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static + dynamic layer)\n"
	for _, c := range []struct {
		name, text string
		tested     string
	}{
		{"setext h2 after", decl + "\nOther section\n-------------\nTested: 2026-11-20\n", ""},
		{"setext h1 after", decl + "\nOther section\n=============\n\nTested: 2026-11-20\n", ""},
		{"setext heading text that looks like a field", decl + "\nTested: 2026-11-20\n---\n", ""},
		{"own heading", decl + "---\n\nTested: 2026-11-20\n", "2026-11-20"},
		{"quoted own heading", "> " + decl + "> ===\n>\n> Tested: 2026-11-20\n", "2026-11-20"},
		{"thematic break after blank", decl + "\n---\n\nTested: 2026-11-20\n", "2026-11-20"},
		{"thematic break after a list item", decl + "\n- note\n---\nTested: 2026-11-20\n", "2026-11-20"},
	} {
		ds := Parse(c.text)
		if len(ds) != 1 {
			t.Errorf("%s: %d declarations", c.name, len(ds))
			continue
		}
		if ds[0].Tested != c.tested {
			t.Errorf("%s: Tested %q, want %q", c.name, ds[0].Tested, c.tested)
		}
	}
}

// TestDeviationNotice: DSHIO/T 21 8.2's notice in the declaration's
// words or the standard's, and not either half alone.
func TestDeviationNotice(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{DeviationNotice, true},
		{"The verdict shall not be compared with undeviated reports and shall not be used as a basis for certification.", true},
		{"*Not comparable with undeviated reports*; **not a basis for certification**", true},
		{"Not comparable with undeviated reports.", false},
		{"Not a basis for certification.", false},
		{"Comparable with undeviated reports; a basis for certification", false},
	} {
		ds := Parse("Conforms to DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static + dynamic layer)\n" + c.line + "\n")
		if len(ds) != 1 || ds[0].Notice != c.want {
			t.Errorf("%q: notice %v, want %v", c.line, len(ds) == 1 && ds[0].Notice, c.want)
		}
	}
}
