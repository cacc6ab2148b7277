package rules

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// checkFastAgrees fails when the fast path accepts dump and yaml.v3 either
// refuses it or reads other entries from it. It reports whether the fast
// path accepted.
func checkFastAgrees(t testing.TB, name string, dump []byte) bool {
	t.Helper()
	fast, ok := parseDumpFast(dump)
	if !ok {
		return false
	}
	slow, err := parseDumpYAML(dump)
	if err != nil {
		t.Fatalf("%s: the fast path accepts a dump yaml.v3 refuses (%v):\n%s", name, err, dump)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%s: entries differ\nfast: %#v\nyaml: %#v\n%s", name, fast, slow, dump)
	}
	return true
}

// The generated and edited dumps are this many times as many, from this
// seed, when asked: go test ./rules/ -run ParseDumpFast -dumpfast.scale
// 50 -dumpfast.seed $RANDOM (DESIGN.md "Reading the T3 dump").
var (
	dumpFastScale = flag.Int("dumpfast.scale", 1, "multiply the generated and edited T3 dumps by this")
	dumpFastSeed  = flag.Uint64("dumpfast.seed", 0, "seed the generated and edited T3 dumps with this (added to each test's own)")
)

// fastTally counts the dumps the fast path accepted and gave up on.
type fastTally struct{ accepted, refused int }

func (c *fastTally) check(t *testing.T, name string, dump []byte) {
	t.Helper()
	if checkFastAgrees(t, name, dump) {
		c.accepted++
	} else {
		c.refused++
	}
}

// enough fails unless at least accepted dumps were accepted and refused
// given up on, per unit of -dumpfast.scale.
func (c fastTally) enough(t *testing.T, accepted, refused int) {
	t.Helper()
	t.Logf("accepted %d, gave up on %d", c.accepted, c.refused)
	if c.accepted < accepted**dumpFastScale || c.refused < refused**dumpFastScale {
		t.Fatalf("accepted %d and gave up on %d: too few of one to compare", c.accepted, c.refused)
	}
}

// TestParseDumpFastReadsRealDumps: every real dump dsh wrote, and each
// with the plugin's entry disabled or its disabled an expression, is read
// by the fast path (else it would gain nothing) and gives yaml.v3's
// entries.
func TestParseDumpFastReadsRealDumps(t *testing.T) {
	n := 0
	for _, dump := range evidenceSeeds(t, "*/t3.stdout") {
		if len(dump) == 0 {
			continue // badyaml: dsh printed nothing
		}
		n++
		variants := map[string][]byte{"as captured": dump}
		for _, tail := range []string{"  disabled: true\n", "  disabled: false\n", "  disabled: !!js process.platform === 'win32'\n", "  x: 'it''s'\n"} {
			variants[tail] = append(bytes.Clone(dump), tail...)
		}
		for name, v := range variants {
			if !checkFastAgrees(t, name, v) {
				t.Fatalf("%s: the fast path gives up on a real dump:\n%s", name, v)
			}
		}
	}
	if n == 0 {
		t.Fatal("no real dump read")
	}
}

// TestParseDumpFastDirected: small dumps at the edges of the subset, each
// either given up on or read as yaml.v3 reads it; the ones marked accept
// must be read by the fast path.
func TestParseDumpFastDirected(t *testing.T) {
	cases := []struct {
		dump   string
		accept bool
	}{
		{"- id: a\n  name: b\n", true},
		{"# c\n- id: a\n\n# d\n  name: b\n", true},
		{"- id: a\n  name: '@x/y'\n  disabled: true\n", true},
		{"- id: a\n  disabled: false\n- id: a\n  disabled: !!js x ?? 'y'\n", true},
		{"- id: a\n  config:\n    k: >-\n      text: # x\n\n      more\n    j: 1\n", true},
		{"- id: a\n  config:\n    k: |\n# c\n    j: 1\n", false}, // an empty block scalar: the reference refuses it
		{"- id: a\n  config:\n    l:\n      - .\n      - 3\n      - k: v\n        j: w\n", true},
		{"- id: a\n  config:\n    e:\n    f: []\n    g: {}\n", true},
		{"- x\n- 'y'\n- id: z\n", true},
		{"- id: 'a''b'\n  name: c\n", true},
		{"- name: only\n", true},
		{"- id: a\n  name: a,b\n", true},
		{"- id: -1\n", false},                // a number to js-yaml: the reference decides
		{"- id: a\n  x: 1\n  x: 2\n", false}, // a duplicated key: the reference refuses it
		{"- id: a\n  config:\n    k: 1\n    k: 1\n", false},
		{"- id: a\n  1: x\n", false}, // a number key
		{"- id: a\n  true: x\n", false},
		{"- id: a\n  name: 'b'\n  disabled: false\n", true},
		{"- id: a\n  x: \u00e9t\u00e9\n", true},
		// Given up on, each for one reason.
		{"", false},
		{"# only a comment\n", false},
		{"id: a\n", false},
		{"- id: null\n", false},
		{"- id: ~\n", false},
		{"- id: a\n  id: b\n", false},
		{"- id: a\n  disabled: True\n", false},
		{"- id: a\n  disabled: 'true'\n", false},
		{"- id: a\n  disabled:\n", false},
		{"- id: !!js a\n", false},
		{"- id: &x a\n", false},
		{"- id: *x\n", false},
		{"- <<: {id: a}\n", false},
		{"- {id: a}\n", false},
		{"- id: [a]\n", false},
		{"- id: \"a\"\n", false},
		{"- id: a #c\n", false},
		{"- id: a: b\n", false},
		{"- id: a:\n", false},
		{"- id: a \n", false},
		{"- id:  a\n", false},
		{"- id: a\n\tname: b\n", false},
		{"- id: a\r\n", false},
		{"- id: a\n   name: b\n", false},
		{"- id: a\n name: b\n", false},
		{"- id: a\n  inject:\n  - b\n", false},
		{"- id: a\n  # indented comment\n", false},
		{"- id: a\n  \n", false},
		{"- id: a\n  k: >2\n    x\n", false},
		{"- id: a\n  k: > # c\n    x\n", false},
		{"- id: a\n  k: 'x\n    y'\n", false},
		{"- id: a\n  k: x\n    y\n", false},
		{"- id: a\n---\n- id: b\n", false},
		{"- id: a\n...\n", false},
		{"-  id: a\n", false},
		{"-\n  id: a\n", false},
		{"- - a\n", false},
		{"- >\n  x\n", false},
		{"\ufeff- id: a\n", false},
		{"- id: a\u2028\n", false},
		{"- id: \U0001F600\n", false},
		{"%YAML 1.1\n---\n- id: a\n", false},
		{"- id: a\n  ? k\n  : v\n", false},
		{"- id: a\n  \"k\": v\n", false},
		{"- id: a\n  " + strings.Repeat("k", dumpFastMaxKey+1) + ": v\n", false},
	}
	for i, c := range cases {
		name := fmt.Sprintf("case %d %q", i, c.dump)
		if got := checkFastAgrees(t, name, []byte(c.dump)); got != c.accept {
			t.Errorf("%s: fast path accepted=%v, want %v", name, got, c.accept)
		}
	}
}

// TestParseDumpFastMutations applies small edits to the real dumps —
// lines dropped, doubled, re-indented, cut, or given a value from a list
// of awkward scalars — and checks every edit the fast path accepts
// against yaml.v3. It fails when too few edits are accepted or refused
// for the comparison to mean anything.
func TestParseDumpFastMutations(t *testing.T) {
	awkward := []string{
		"true", "false", "True", "null", "~", "", "a: b", "a #b", "a#b", "-1", "- a", "'q'", "'it''s'",
		"'a' b", "!!js x", "!!js >-", ">-", "|+", "> x", "[]", "{}", "[a]", "{a: b}", "&a x", "*a", "<<",
		"@x", "`x", "%x", "a,b", "a:b", "x:", "? x", ": x", "\u00e9", "a\u2028b", "a\tb", "a  ", "\"x\"",
		"!!str x", "!x y", "--- x", "...", "-", "--", ".", "a ? b", "'", "''", "'''", "x'", "!!js", "!!js  x",
		"!!js 'x'", "|", "|-", ">", ">+", "|2", "{", "}", "[", "]", "#", " #", "a # b", "0x1f", "1e3", "=",
	}
	seeds := evidenceSeeds(t, "*/t3.stdout")
	rng := rand.New(rand.NewPCG(11+*dumpFastSeed, 3))
	var tally fastTally
	for round := 0; round < 6000**dumpFastScale; round++ {
		src := seeds[rng.IntN(len(seeds))]
		if len(src) == 0 {
			continue
		}
		lines := strings.SplitAfter(string(src), "\n")
		for edits := 1 + rng.IntN(3); edits > 0; edits-- {
			i := rng.IntN(len(lines))
			l := lines[i]
			switch rng.IntN(7) {
			case 0: // drop
				lines = append(lines[:i:i], lines[i+1:]...)
			case 1: // double
				lines = append(lines[:i+1:i+1], lines[i:]...)
			case 2: // re-indent
				d := rng.IntN(5) - 2
				if d < 0 && strings.HasPrefix(l, strings.Repeat(" ", -d)) {
					lines[i] = l[-d:]
				} else if d > 0 {
					lines[i] = strings.Repeat(" ", d) + l
				}
			case 3: // cut the line somewhere
				if len(l) > 1 {
					lines[i] = l[:rng.IntN(len(l))] + "\n"
				}
			case 4, 5: // an awkward value after the key, or as a list entry
				v := awkward[rng.IntN(len(awkward))]
				if k := strings.Index(l, ": "); k >= 0 {
					lines[i] = l[:k+2] + v + "\n"
				} else if k := strings.Index(l, "- "); k >= 0 {
					lines[i] = l[:k+2] + v + "\n"
				} else {
					lines[i] = strings.TrimSuffix(l, "\n") + " " + v + "\n"
				}
			case 6: // an awkward line of its own
				v := awkward[rng.IntN(len(awkward))]
				lines = append(lines[:i:i], append([]string{strings.Repeat(" ", rng.IntN(7)) + v + "\n"}, lines[i:]...)...)
			}
			if len(lines) == 0 {
				lines = []string{"\n"}
			}
		}
		tally.check(t, fmt.Sprintf("round %d", round), []byte(strings.Join(lines, "")))
	}
	// A doubled line is a duplicated key, which the reference refuses and
	// the fast path gives up on: about 950 of 5,000 edits are accepted.
	tally.enough(t, 800, 500)
}

// TestParseDumpFastGenerated builds dumps from the shapes the subset
// reads — nested mappings and lists, block scalars, comments, tags,
// quotes — with characters drawn from an alphabet of YAML's indicators,
// so that most are near the subset's edges, and checks each the fast
// path accepts against yaml.v3.
func TestParseDumpFastGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(5+*dumpFastSeed, 8))
	alphabet := []string{"a", "b", "1", " ", ":", "#", "-", "'", ".", "?", ",", "!", "\u00e9", "[", "{", "&", "*", "@", "|", ">", "~", "%", "\"", "<"}
	word := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if rng.IntN(8) == 0 {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			} else {
				b.WriteByte(byte('a' + rng.IntN(26)))
			}
		}
		return b.String()
	}
	keys := []string{"id", "name", "disabled", "config", "inject", "x", "y-z", "$k", "k0", "a.b"}
	var value func(b *strings.Builder, col, depth int)
	var mapping func(b *strings.Builder, col, depth int, first string)
	value = func(b *strings.Builder, col, depth int) {
		switch k := rng.IntN(10); {
		case k < 4:
			b.WriteString(" " + word(1+rng.IntN(6)) + "\n")
		case k == 4:
			b.WriteString(" '" + strings.ReplaceAll(word(rng.IntN(6)), "'", "''") + "'\n")
		case k == 5:
			b.WriteString(" !!js " + word(1+rng.IntN(6)) + "\n")
		case k == 6:
			b.WriteString([]string{" >-", " >", " |", " !!js >-", " |+"}[rng.IntN(5)] + "\n")
			ind := col + 1 + rng.IntN(3)
			for n := rng.IntN(4); n >= 0; n-- {
				switch rng.IntN(5) {
				case 0:
					b.WriteString("\n")
				case 1:
					b.WriteString(strings.Repeat(" ", ind+rng.IntN(2)) + word(rng.IntN(8)) + "\n")
				default:
					b.WriteString(strings.Repeat(" ", ind) + word(1+rng.IntN(8)) + "\n")
				}
			}
		case k == 7 && depth < 4:
			b.WriteString("\n")
			mapping(b, col+2, depth+1, "")
		case k == 8 && depth < 4:
			b.WriteString("\n")
			for n := rng.IntN(3); n >= 0; n-- {
				b.WriteString(strings.Repeat(" ", col+2) + "-")
				if rng.IntN(2) == 0 {
					value(b, col+2, depth+1)
				} else {
					mapping(b, col+4, depth+1, " ")
				}
			}
		default:
			b.WriteString([]string{" []", " {}", ""}[rng.IntN(3)] + "\n")
		}
	}
	mapping = func(b *strings.Builder, col, depth int, first string) {
		// Mostly distinct keys: a mapping with a duplicated key is refused
		// by the reference (js-yaml throws), so the fast path gives up on it.
		used := map[string]bool{}
		for n := rng.IntN(4); n >= 0; n-- {
			k := keys[rng.IntN(len(keys))]
			if used[k] && rng.IntN(8) != 0 {
				continue
			}
			used[k] = true
			if first != "" {
				b.WriteString(first)
				first = ""
			} else {
				b.WriteString(strings.Repeat(" ", col))
			}
			b.WriteString(k + ":")
			value(b, col, depth)
			if rng.IntN(8) == 0 {
				b.WriteString("# " + word(4) + "\n")
			}
		}
	}
	var tally fastTally
	for round := 0; round < 20000**dumpFastScale; round++ {
		var b strings.Builder
		for n := rng.IntN(5); n >= 0; n-- {
			if rng.IntN(4) == 0 {
				b.WriteString("# == " + word(5) + "\n")
			}
			b.WriteString("-")
			if rng.IntN(6) == 0 {
				value(&b, 0, 1)
			} else {
				mapping(&b, 2, 1, " ")
			}
		}
		tally.check(t, fmt.Sprintf("round %d", round), []byte(b.String()))
	}
	tally.enough(t, 4000, 4000)
}

// FuzzParseDumpFast: whatever the bytes, a dump the fast path accepts is
// one yaml.v3 parses into the same entries.
func FuzzParseDumpFast(f *testing.F) {
	// The real dumps are four times fuzzDumpLimit: their heads and tails,
	// cut at a line, are the seeds.
	for _, d := range evidenceSeeds(f, "*/t3.stdout") {
		if len(d) > fuzzDumpLimit {
			head := d[:fuzzDumpLimit]
			f.Add(head[:bytes.LastIndexByte(head, '\n')+1])
			tail := d[len(d)-fuzzDumpLimit:]
			f.Add(tail[bytes.IndexByte(tail, '\n')+1:])
		}
	}
	f.Add([]byte("- id: a\n  name: 'b''c'\n  disabled: !!js x\n  config:\n    k: >-\n      t\n"))
	f.Fuzz(func(t *testing.T, dump []byte) {
		if len(dump) > fuzzDumpLimit {
			return
		}
		checkFastAgrees(t, "input", dump)
	})
}
