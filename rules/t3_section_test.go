package rules

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/rules/jsyaml"
)

// TestEntryPlacementRealEvidence: in every real dump of a plugin whose
// patch inserts entries, the plugin's entry stands in the section dsh
// labels with the package's name and equals the patch's row; the same
// entry moved under another bundle's section, or with a field changed,
// is named with both sides.
func TestEntryPlacementRealEvidence(t *testing.T) {
	n := 0
	for _, c := range []string{"hello", "throws", "hang", "exits"} {
		dump, err := os.ReadFile(filepath.Join(evidenceDir, c, "t3.stdout"))
		if err != nil {
			t.Fatal(err)
		}
		patch, err := os.ReadFile(filepath.Join(evidenceDir, "plugins", c, "cordis.patch.yml"))
		if err != nil {
			t.Fatal(err)
		}
		pkg := c + "-dsh-plugin"
		rows, err := PatchRows(patch, Limits{})
		if err != nil || len(rows) == 0 {
			t.Fatalf("%s: PatchRows: %d rows, %v", c, len(rows), err)
		}
		entries, err := ParseDump(dump)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range entries {
			if d.Name != pkg {
				continue
			}
			n++
			if why := readDump(t, dump).EntryPlacement(d, pkg, IndexRows(rows)); len(why) != 0 {
				t.Errorf("%s: a real dump breaks the relation: %v", c, why)
			}
			moved := strings.Replace(string(dump), "# == "+pkg+"\n", "", 1)
			md := entryByID(t, []byte(moved), d.ID)
			why := readDump(t, []byte(moved)).EntryPlacement(md, pkg, IndexRows(rows))
			if len(why) != 1 || !strings.Contains(why[0], `"# == @deepseek-ai/dsh-web-app"`) || !strings.Contains(why[0], `"# == `+pkg+`"`) {
				t.Errorf("%s: entry moved into dsh-web-app's section: %q", c, why)
			}
			patched := strings.Replace(string(dump), "# == "+pkg+"\n", "# == "+pkg+", patched by /dsh-home/cordis.patch.yml\n", 1)
			if why := readDump(t, []byte(patched)).EntryPlacement(d, pkg, IndexRows(rows)); len(why) != 1 || !strings.Contains(why[0], "later layer") {
				t.Errorf("%s: section patched by a later layer: %q", c, why)
			}
			extra := string(dump) + "  config:\n    port: 8080\n"
			why = readDump(t, []byte(extra)).EntryPlacement(entryByID(t, []byte(extra), d.ID), pkg, IndexRows(rows))
			if len(why) != 1 || !strings.Contains(why[0], "config: a mapping of 1 keys against absent") {
				t.Errorf("%s: dump entry with a field the patch lacks: %q", c, why)
			}
		}
	}
	if n != 4 {
		t.Fatalf("read %d plugin entries, want 4", n)
	}
}

func readDump(t *testing.T, dump []byte) *Dump {
	t.Helper()
	d, err := ReadDump(dump)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func entryByID(t *testing.T, dump []byte, id string) DumpEntry {
	t.Helper()
	entries, err := ParseDump(dump)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range entries {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("no entry %q", id)
	return DumpEntry{}
}

// TestPatchRows: the rows dsh's patch algorithm leaves for a patch's own
// root inserts, after the patch's later items that target them.
func TestPatchRows(t *testing.T) {
	for _, tt := range []struct {
		name, patch, dump string
		want              string // "" for no difference, else a part of it
	}{
		{"plain", "- insert:\n    - id: a\n      name: p\n", "- id: a\n  name: p\n", ""},
		{"key order", "- insert:\n    - name: p\n      id: a\n", "- id: a\n  name: p\n", ""},
		{"number form", "- insert:\n    - id: a\n      name: p\n      config: {n: 1.0}\n", "- id: a\n  name: p\n  config:\n    n: 1\n", ""},
		{"expression", "- insert:\n    - id: a\n      name: p\n      config: {r: !!js \"x('y')\"}\n", "- id: a\n  name: p\n  config:\n    r: !!js x('y')\n", ""},
		{"own override", "- insert:\n    - id: a\n      name: p\n- id: a\n  config: {k: 1}\n", "- id: a\n  name: p\n  config:\n    k: 1\n", ""},
		{"override before insert targets another row", "- id: a\n  config: {k: 1}\n- insert:\n    - id: a\n      name: p\n", "- id: a\n  name: p\n", ""},
		{"override with another name is skipped", "- insert:\n    - id: a\n      name: p\n- id: a\n  name: q\n  config: {k: 1}\n", "- id: a\n  name: p\n", ""},
		{"group insert into own group", "- insert:\n    - id: g\n      name: p\n      group: true\n- id: g\n  insert:\n    - id: c\n      name: p\n", "- id: g\n  name: p\n  group: true\n  config:\n    - id: c\n      name: p\n", ""},
		{"dump has more", "- insert:\n    - id: a\n      name: p\n", "- id: a\n  name: p\n  config:\n    port: 1\n", "config: a mapping of 1 keys against absent"},
		{"dump differs deep", "- insert:\n    - id: a\n      name: p\n      config: {root: [.]}\n", "- id: a\n  name: p\n  config:\n    root:\n      - src\n", `config.root[0]: "src" against "."`},
		{"string against number", "- insert:\n    - id: a\n      name: p\n      config: {n: 1}\n", "- id: a\n  name: p\n  config:\n    n: '1'\n", `config.n: "1" against 1`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := PatchRows([]byte(tt.patch), Limits{})
			if err != nil || len(rows) != 1 {
				t.Fatalf("rows %d, %v", len(rows), err)
			}
			got, err := DumpEntryValue([]byte("# == p\n"+tt.dump), 2)
			if err != nil {
				t.Fatal(err)
			}
			diff := ValueDiff(got, rows[0])
			if (tt.want == "") != (diff == "") || !strings.Contains(diff, tt.want) {
				t.Fatalf("diff %q, want %q", diff, tt.want)
			}
		})
	}
}

// TestDumpSection: the section comment an entry stands under, read by
// lines only where no scalar can hold such a line.
func TestDumpSection(t *testing.T) {
	for _, tt := range []struct {
		name, dump string
		line       int
		want       string
		ok         bool
	}{
		{"first", "# == a\n- id: x\n  name: y\n", 2, "a", true},
		{"second", "# == a\n- id: x\n# == b, patched by c\n- id: z\n", 4, "b, patched by c", true},
		{"none", "- id: x\n", 1, "", false},
		{"indented comment is no section", "# == a\n- id: x\n  # == b\n  name: y\n- id: z\n", 5, "a", true},
		// A double-quoted scalar sends the dump to the reference, and its
		// continuation line at column 0 is no comment.
		{"inside a quoted scalar", "# == a\n- id: x\n  name: \"y\n# == p\n  z\"\n- id: p\n  name: p\n", 6, "", false},
		{"reference without the text", "# == a\n- id: x\n  name: \"y\"\n# == p\n- id: p\n  name: p\n", 5, "p", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := DumpSection([]byte(tt.dump), tt.line)
			if got != tt.want || ok != tt.ok {
				t.Fatalf("got %q %v, want %q %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestDumpEntryValueAsWholeLoad: an entry read from its own lines is the
// entry the whole dump gives, for every root entry of every real dump.
func TestDumpEntryValueAsWholeLoad(t *testing.T) {
	for _, dump := range evidenceSeeds(t, "*/t3.stdout") {
		if len(dump) == 0 {
			continue
		}
		entries, err := ParseDump(dump)
		if err != nil {
			t.Fatal(err)
		}
		whole := append([]byte(nil), dump...)
		whole = append(whole, "- x: \"forces the reference\"\n"...)
		for _, d := range entries {
			a, err := DumpEntryValue(dump, d.Line)
			if err != nil {
				t.Fatal(err)
			}
			b, err := DumpEntryValue(whole, d.Line)
			if err != nil {
				t.Fatal(err)
			}
			if diff := ValueDiff(a, b); diff != "" {
				t.Fatalf("line %d: %s", d.Line, diff)
			}
		}
	}
}

// TestPatchRowsAliasBomb: an insert entry whose config shares one
// anchor's value many times over is not copied out, and a comparison of
// such values stops, both within MaxComposedValues.
func TestPatchRowsAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("- a0: &a0 [x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "- a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("- insert:\n    - id: a\n      name: p\n      config: *a8\n")
	start := time.Now()
	if _, err := PatchRows([]byte(b.String()), Limits{}); !errors.Is(err, ErrPatch) || !strings.Contains(err.Error(), "expand") {
		t.Fatalf("err %v", err)
	}
	root, _, err := jsyaml.Load([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	big := root.Items[8].Get("a8")
	if d := ValueDiff(big, big); !strings.Contains(d, "values to compare") {
		t.Fatalf("diff %q", d)
	}
	// A dump outside the block style is searched for "# ==" once per
	// shared value.
	dump := b.String() + "# == p\n- id: a\n  name: p\n"
	if label, ok := DumpSection([]byte(dump), strings.Count(dump, "\n")-1); label != "p" || !ok {
		t.Fatalf("section %q %v", label, ok)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("took %s", el)
	}
}

// TestEntryPlacementReadsTheDumpOnce: placing every entry of a dump reads
// the dump once, not once per entry: the allocations per entry stay the
// same for four times as many entries, in the block style dsh writes, in a
// dump the fast path gives up on, and in one above keepWholeDump. Each
// entry read the whole dump again before (and walked its lines from the
// first), so an author could make verify's time grow with the square of
// the dump.
func TestEntryPlacementReadsTheDumpOnce(t *testing.T) {
	build := func(n int, style string) (dump []byte, entries []DumpEntry, rows []*jsyaml.Value) {
		var d, p strings.Builder
		d.WriteString("# == p\n")
		p.WriteString("- insert:\n")
		for i := range n {
			switch style {
			case "block":
				fmt.Fprintf(&d, "- id: e%d\n  name: p\n", i)
			default: // quoted keys: the fast path gives up
				fmt.Fprintf(&d, "- \"id\": e%d\n  \"name\": p\n  # %s\n", i, strings.Repeat("x", 60))
			}
			fmt.Fprintf(&p, "    - id: e%d\n      name: p\n", i)
		}
		rows, err := PatchRows([]byte(p.String()), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return []byte(d.String()), nil, rows
	}
	perEntry := func(n int, style string) float64 {
		dump, _, rows := build(n, style)
		var findings int
		byID := IndexRows(rows)
		allocs := testing.AllocsPerRun(1, func() {
			dp, err := ReadDump(dump)
			if err != nil {
				t.Fatal(err)
			}
			if dp.fast != (style == "block") {
				t.Fatalf("%s: fast path %v", style, dp.fast)
			}
			for _, e := range dp.Entries {
				findings += len(dp.EntryPlacement(e, "p", byID))
			}
		})
		if findings != 0 {
			t.Fatalf("%s, %d entries: %d findings", style, n, findings)
		}
		return allocs / float64(n)
	}
	for _, tc := range []struct {
		style string
		n     int
	}{{"block", 300}, {"quoted", 100}, {"quoted", 1000}} {
		dump, _, _ := build(tc.n, tc.style)
		if tc.n == 1000 && len(dump) <= keepWholeDump {
			t.Fatalf("%d-byte dump is not above keepWholeDump", len(dump))
		}
		a, b := perEntry(tc.n, tc.style), perEntry(4*tc.n, tc.style)
		t.Logf("%s: %d entries %.0f allocations each, %d entries %.0f", tc.style, tc.n, a, 4*tc.n, b)
		if b > 1.5*a {
			t.Errorf("%s: %.0f allocations per entry for %d entries, %.0f for %d: the dump is read again per entry", tc.style, b, 4*tc.n, a, tc.n)
		}
	}
}

// TestEachSectionAnyStyle: EachSection gives the `# ==` lines of a dump
// the fast path gives up on (here a double-quoted name) as it gives those
// of dsh's block style, so that a style dsh does not write hides no
// section from the run model's relation 8.
func TestEachSectionAnyStyle(t *testing.T) {
	block := "# == a\n- id: x\n  name: 'p'\n# == b, patched by c\n- id: y\n  name: q\n"
	for _, tc := range []struct {
		dump string
		fast bool
	}{
		{block, true},
		{strings.Replace(block, "'p'", `"p"`, 1), false},
		{"[\n# == a\n{id: x, name: p},\n# == b, patched by c\n{id: y, name: q}]\n", false},
	} {
		if _, fast := parseDumpFast([]byte(tc.dump)); fast != tc.fast {
			t.Fatalf("parseDumpFast(%q) ok = %v, want %v", tc.dump, fast, tc.fast)
		}
		dp, err := ReadDump([]byte(tc.dump))
		if err != nil {
			t.Fatalf("ReadDump(%q): %v", tc.dump, err)
		}
		var got []string
		dp.EachSection(func(line int, label string) bool {
			got = append(got, fmt.Sprintf("%d:%s", line, label))
			return true
		})
		want := []string{"1:a", "4:b, patched by c"}
		if tc.dump[0] == '[' {
			want = []string{"2:a", "4:b, patched by c"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("EachSection(%q) = %q, want %q", tc.dump, got, want)
		}
	}
}
