package compare

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
)

func side(t *testing.T, name string) Side {
	t.Helper()
	f, err := os.Open("../../testdata/vectors/" + name + ".dshaudit.tar.zst")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := bundle.Read(f, bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Decode(a.RawManifest)
	if err != nil {
		t.Fatal(err)
	}
	return Side{Manifest: m, Files: a.Files}
}

func TestCompareSame(t *testing.T) {
	c := Compare(side(t, "pass"), side(t, "pass"))
	if c.Outcome != Reproduced || c.FirstDifferent != "" || !c.FingerprintsEqual || len(c.Rows) != 8 {
		t.Fatalf("%+v", c)
	}
}

func TestCompareDifferentNamesStage(t *testing.T) {
	c := Compare(side(t, "pass"), side(t, "unstable"))
	if c.Outcome != Different {
		t.Fatalf("outcome %s", c.Outcome)
	}
	if c.FirstDifferent != "repetition 2 T4" {
		t.Errorf("first different %q, want repetition 2 T4", c.FirstDifferent)
	}
	if len(c.Diff) == 0 {
		t.Error("no diff shown for the differing evidence")
	}
	for _, r := range c.Rows {
		if (r.Repetition == 2 && r.Stage == "T4") == r.Same {
			t.Errorf("row %d %s same=%v", r.Repetition, r.Stage, r.Same)
		}
	}
}

func TestCompareVerdictChange(t *testing.T) {
	c := Compare(side(t, "pass"), side(t, "boot_failed"))
	if c.Outcome != Different || !strings.HasPrefix(c.FirstDifferent, "repetition 1 T1") {
		t.Fatalf("%s %q", c.Outcome, c.FirstDifferent)
	}
}

func TestNormalise(t *testing.T) {
	for in, want := range map[string]string{
		"Done in 1.1s using pnpm v9.15.9\n":                                        "Done in <DURATION> using pnpm v9.15.9\n",
		"(node:12) [DEP0169] DeprecationWarning\n":                                 "(<PID>) [DEP0169] DeprecationWarning\n",
		"dsh web: http://127.0.0.1:3080\n":                                         "dsh web: http://127.0.0.1:<PORT>\n",
		"at 2026-11-29T18:00:01.123Z ok\n":                                         "at <TIME> ok\n",
		"open /tmp/dshaudit-123/x.tgz failed\n":                                    "open <TMP> failed\n",
		"   ╭──╮\n   │ Update available! │\n   ╰──╯\nPackages: +1\n":               "Packages: +1\n",
		"Progress: resolved 1, reused 0, downloaded 1, added 1, done\n+ x 1.0.0\n": "+ x 1.0.0\n",
		// Only a whole box goes (SPEC.md "Normalisation"): lone │ … │
		// lines, a box never closed and a closing line alone stay.
		"│ x │\nok\n":                           "│ x │\nok\n",
		"ok\n  │ plugin table │  \n":            "ok\n  │ plugin table │  \n",
		"╭──╮\n│ a │\nnot a box line\n╰──╯\n":   "╭──╮\n│ a │\nnot a box line\n╰──╯\n",
		"╭──╮\n│ a │\n":                         "╭──╮\n│ a │\n",
		"│ a │\n╰──╯\n":                         "│ a │\n╰──╯\n",
		"x\n   ╭─╮\n   │ a │\n   │ b │\n   ╰─╯": "x\n",
	} {
		if got := string(Normalise([]byte(in))); got != want {
			t.Errorf("Normalise(%q) = %q, want %q", in, got, want)
		}
	}
	// What must reproduce is not normalised away.
	if string(Normalise([]byte("+ hello-dsh-plugin 1.0.0\n"))) != "+ hello-dsh-plugin 1.0.0\n" {
		t.Error("normalisation changed the added-dependency line")
	}
	// The real pnpm update notice (testdata/dsh-evidence) goes whole.
	real, err := os.ReadFile("../../testdata/dsh-evidence/hello/t1.stdout")
	if err != nil {
		t.Fatal(err)
	}
	if got := Normalise(real); bytes.ContainsAny(got, "╭│╰") || !bytes.HasPrefix(got, []byte("Packages: +1\n")) {
		t.Errorf("real update notice not removed: %q", got)
	}
}

// A difference in a │ … │ line outside a pnpm box is a difference: a
// plugin's own boxed message or table is output. SPEC.md "Normalisation".
func TestNormaliseKeepsLoneBoxLines(t *testing.T) {
	a := Normalise([]byte("dsh web: ready\n│ plugin: hello │\n"))
	b := Normalise([]byte("dsh web: ready\n│ plugin: other │\n"))
	if bytes.Equal(a, b) {
		t.Errorf("a lone │ … │ line difference is normalised away: %q", a)
	}
}
