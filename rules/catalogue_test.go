package rules

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each form matches its example line, the example holds the literal, and
// the literal is printable ASCII (so that cleaning cannot make or break
// it); a form whose pattern does not match its own example is a typo the
// reader would never report.
func TestCatalogueFormsMatchTheirExamples(t *testing.T) {
	if len(Catalogue) > 64 {
		t.Fatalf("%d forms: ReadForms marks a line's forms in a uint64", len(Catalogue))
	}
	names := map[FormName]bool{}
	for _, f := range Catalogue {
		if names[f.Name] {
			t.Errorf("form %s listed twice", f.Name)
		}
		names[f.Name] = true
		if f.Literal == "" || !printableASCII([]byte(f.Literal)) {
			t.Errorf("%s: literal %q is not printable ASCII", f.Name, f.Literal)
		}
		if !strings.HasPrefix(f.Pattern.String(), "^") {
			t.Errorf("%s: pattern %q is not anchored at the line's start", f.Name, f.Pattern)
		}
		if !strings.Contains(f.Example, f.Literal) {
			t.Errorf("%s: example %q lacks the literal %q", f.Name, f.Example, f.Literal)
		}
		if !f.Pattern.MatchString(f.Example) {
			t.Errorf("%s: pattern %q does not match its example %q", f.Name, f.Pattern, f.Example)
		}
		if f.Source == "" || f.Snippet == "" || (f.Producer != ProducerDSH && f.Producer != ProducerPNPM && f.Producer != ProducerNode) {
			t.Errorf("%s: no source, snippet or producer", f.Name)
		}
		var got []FormName
		ReadForms([]byte("x\n"+f.Example+"\ny"), func(r Reading) bool {
			got = append(got, r.Form)
			return true
		})
		if !containsForm(got, f.Name) {
			t.Errorf("%s: ReadForms reads its example as %v", f.Name, got)
		}
	}
}

func containsForm(fs []FormName, n FormName) bool {
	for _, f := range fs {
		if f == n {
			return true
		}
	}
	return false
}

// ReadForms reads what matching every cleaned line against every form
// reads (its oracle): on the real evidence, and on lines whose literal
// an escape sequence, a control character or a tab splits in the raw
// bytes, which cleaning joins.
func TestReadFormsAsEveryLine(t *testing.T) {
	outs := [][]byte{
		[]byte("Done\x1b[1m in 1s using pnpm v9.15.9\nProgress: resolved\t1, reused 1, downloaded 0, added 1, done\r\n"),
		[]byte("dsh: initialized\x00 profile web at /x\r\nxx Progress: resolved 1, reused 1, downloaded 0\n\x1b[33mProgress: resolved 1, reused 1, downloaded 0\x1b[39m"),
		[]byte("Done in 1s using pnpm v9.15.9\rDone in 2s using pnpm v8\n"),
		[]byte("Progress: resolved 1, reused 2, downloaded 3, added 4, done  \nProgress: resolved 1, reused 2, downloaded 3, done\nProgress: resolved 1, reused 2, downloaded 3 \nProgress: resolved , reused 2, downloaded 3\n" +
			"Progress: resolved 1, reused 2, downloaded 3, added 4, done x\nProgress: resolved 1, reused 2, downloaded 3, added , done\nProgress: resolved 1, reused 2, downloaded 3, added 4x\nProgress: resolved 1, reused 2\n" +
			"Progress: resolved 1, reused 2, downloaded 3, done, done\nProgress: resolved 1, reused 2, downloaded 3,added 4\nProgress: resolved 012, reused 0, downloaded 1, added 1\t\f\r\n" +
			"Progress: resolved 1, reuses 2, downloaded 3, added 4\nProgress: resolved 1; reused 2, downloaded 3\nProgress: resolved 1, reused 2, downloaded 3, addeD 4\nProgress: resolved 1, reused 2, downloaded 3, dune\n"),
		[]byte("Done\u0085 in 1s using pnpm v9.15.9\nProgress: resolved 1,\u009b reused 1, downloaded 0\n"),
		{},
	}
	files, _ := filepath.Glob(filepath.Join(evidenceDir, "*/t*.std*"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b)
	}
	// Generated output of the forms' pieces, spaces, newlines, escapes,
	// control characters and invalid bytes (issue 48's oracle for the
	// profile and "Done in" lines, over every form).
	parts := []string{"\n", "\n", " ", "\t", "\r", "\f", "\x00", "\x7f", "\xff", "\xc2\xa0", "\x1b[0m", "\u0085", "\u009b", "é", "│", "→", "1", "2.5", "s", "ms", "m", "x", ".",
		"/dsh-home/profiles/web", " at ", "web", ", ", " using pnpm v", "9.15.9", "Done", "ERR_PNPM_", "ADD", " (PRIVATE)", "dsh-profile-web", "{\"node\":\"v24.11.1\"}", " (current: "}
	for _, f := range Catalogue {
		parts = append(parts, f.Literal, f.Example, "\n"+f.Example+"\n")
	}
	rng := rand.New(rand.NewPCG(45, 1))
	for range 20000 {
		var b []byte
		for range rng.IntN(16) {
			b = append(b, parts[rng.IntN(len(parts))]...)
		}
		outs = append(outs, b)
	}
	read := 0
	for _, out := range outs {
		var got, want []string
		ReadForms(out, func(r Reading) bool {
			subs := make([]string, len(r.Sub))
			for i, s := range r.Sub {
				subs[i] = string(s)
				if s == nil {
					subs[i] = "<nil>"
				}
			}
			got = append(got, string(r.Form)+" "+string(r.Line)+" "+strings.Join(subs, "|"))
			return true
		})
		eachLine(out, func(l string) bool {
			for _, f := range Catalogue {
				if sm := f.Pattern.FindSubmatch([]byte(l)); sm != nil {
					subs := make([]string, len(sm))
					for i, s := range sm {
						subs[i] = string(s)
						if s == nil {
							subs[i] = "<nil>"
						}
					}
					want = append(want, string(f.Name)+" "+l+" "+strings.Join(subs, "|"))
				}
			}
			return true
		})
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("output %q:\nReadForms %q\nevery line %q", bytes.TrimSpace(out[:min(len(out), 200)]), got, want)
		}
		read += len(got)
	}
	if read < 5000 {
		t.Fatalf("only %d readings in the outputs: the test reads nothing", read)
	}
}

// A T1 log of 60 MiB of pnpm's counter lines (issue 48's t1log-60MiB):
// every line holds a literal, so this is the reader's worst honest case.
func BenchmarkReadStageModelProgressLog(b *testing.B) {
	var out bytes.Buffer
	for n := 0; out.Len() < 60<<20; n++ {
		fmt.Fprintf(&out, "Progress: resolved %d, reused 0, downloaded %d, added %d\n", n, n%40, n%40)
	}
	b.SetBytes(int64(out.Len()))
	for b.Loop() {
		ReadStageModel(out.Bytes())
	}
}

// TestEachCleanLineHoldingAsEveryLine: EachCleanLineHolding gives exactly
// the cleaned lines that hold one of the literals, in order, as cleaning
// every line and searching it does: a literal split by an escape
// sequence or a control character is found, and one made only by raw
// bytes that cleaning changes is not.
func TestEachCleanLineHoldingAsEveryLine(t *testing.T) {
	lits := []string{"Node.js v", "using pnpm v"}
	out := []byte("a\nNode.js v24.11.1\n\x1b[0mNode.js v22.0.0\nNode\x1b[1m.js v1.0.0\r\nNo\x07de.js v2.0.0\n" +
		"x using pnpm v9.15.9\nNode.js\tv3\nNode.js v\xff4\nplain\n\x1b[0m\n\x1b[\x1b[\x1b[\nusing pnpm v1")
	var want []string
	for _, l := range strings.Split(string(out), "\n") {
		c := cleanLine([]byte(l))
		if strings.Contains(c, lits[0]) || strings.Contains(c, lits[1]) {
			want = append(want, c)
		}
	}
	var got []string
	EachCleanLineHolding(out, NewLiterals(lits...), func(l string) bool {
		got = append(got, l)
		return true
	})
	if fmt.Sprint(got) != fmt.Sprint(want) || len(want) != 8 {
		t.Errorf("EachCleanLineHolding = %q\nwant (every line cleaned) %q", got, want)
	}
}
