package oracle

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
)

// JSONDocs returns n package.json-like documents drawn from seed: half
// generated where readers of JSON part ways (members repeated with the
// same or other values, names escaped or differing in case, lone and
// paired surrogates, bytes that are not UTF-8, numbers at and beyond
// float64's range, __proto__, a byte order mark, white space of every
// kind, trailing data), half byte-level mutations of those and of base
// (real package.json files).
func JSONDocs(seed int64, n int, base [][]byte) [][]byte {
	rng := rand.New(rand.NewSource(seed))
	g := &jsonGen{rng: rng}
	out := make([][]byte, 0, n)
	pool := append([][]byte(nil), base...)
	for len(out) < n {
		if len(pool) > 0 && rng.Intn(2) == 0 {
			out = append(out, Mutate(rng, pool[rng.Intn(len(pool))]))
			continue
		}
		d := g.doc()
		out = append(out, d)
		if len(pool) < 200 {
			pool = append(pool, d)
		}
	}
	return out
}

type jsonGen struct {
	rng   *rand.Rand
	depth int
}

var keyPool = []string{"name", "version", "dependencies", "optionalDependencies", "peerDependencies", "devDependencies",
	"dsh", "bundle", "patch", "permissions", "files", "main", "type", "engines", "hello-dsh-plugin", "a", "x",
	"__proto__", "constructor", "Name", "NAME", "Dependencies", "n\\u0061me", "\\u0064ependencies", "d\\u0073h",
	"name ", "", "é", "\\u00e9", "hello-dsh-plugi\\u006e"}

var stringPool = []string{"hello-dsh-plugin", "1.0.0", "file:./x", "patch.yml", "./patch.yml", "network", "shell", "fs-write",
	"", " ", "a\\\"b", "\\\\", "\\/", "\\b\\f\\n\\r\\t", "\\u0000", "\\u001f", "\\u00e9", "é", "😀", "\\ud83d\\ude00",
	"\\uD83D\\uDE00", "\\ufeff", "\ufeff", "\\ufffd", "\ufffd", "\u202e", "^1.0.0", "lib/index.js"}

// badStrings are the string contents readers part ways on.
var badStrings = []string{"\\ud800", "\\udc00", "\\ud800\\ud800", "\\ude00\\ud83d", "x\\ud83d",
	"\xff", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "a\xe2\x82"}

var numberPool = []string{"0", "-0", "1", "-1", "1.5", "1e3", "1E+3", "1e-7", "1e21", "1e-6", "123456789012345678901",
	"9007199254740993", "0.1", "1.7976931348623157e308", "1.7976931348623159e308", "1e400", "-1e400", "1e-400",
	"5e-324", "2.5e-324", "0.30000000000000004", "100", "1e+21", "12345678.9"}

var spaces = []string{"", "", "", " ", "\n", "\t", "\r\n", "  \n  "}

func (g *jsonGen) pick(s []string) string { return s[g.rng.Intn(len(s))] }

func (g *jsonGen) sp() string { return g.pick(spaces) }

func (g *jsonGen) doc() []byte {
	var b bytes.Buffer
	if g.rng.Intn(40) == 0 {
		b.WriteString("\xef\xbb\xbf")
	}
	b.WriteString(g.sp())
	g.depth = 0
	if g.rng.Intn(20) == 0 {
		b.WriteString(g.value())
	} else {
		b.WriteString(g.object())
	}
	b.WriteString(g.sp())
	if g.rng.Intn(30) == 0 {
		b.WriteString(g.pick([]string{"}", "]", "x", "{}", "\x00", "\ufeff"}))
	}
	return b.Bytes()
}

func (g *jsonGen) object() string {
	g.depth++
	defer func() { g.depth-- }()
	n := g.rng.Intn(6)
	if g.depth > 4 {
		n = g.rng.Intn(2)
	}
	var members []string
	for range n {
		k, v := g.pick(keyPool), g.value()
		members = append(members, g.sp()+`"`+k+`"`+g.sp()+":"+g.sp()+v+g.sp())
		if g.rng.Intn(12) == 0 { // the same name again
			if g.rng.Intn(2) == 0 {
				v = g.value()
			}
			members = append(members, g.sp()+`"`+k+`"`+g.sp()+":"+g.sp()+v+g.sp())
		}
	}
	if g.depth == 1 { // the members the readers under test look up
		if g.rng.Intn(3) > 0 {
			members = append(members, `"name":`+g.str(), `"version":`+g.str())
		}
		if g.rng.Intn(2) == 0 {
			members = append(members, `"dependencies":{"hello-dsh-plugin":`+g.value()+`,"a":`+g.str()+`}`)
		}
	}
	g.rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return "{" + strings.Join(members, ",") + "}"
}

func (g *jsonGen) value() string {
	r := g.rng.Intn(10)
	if g.depth > 5 && r >= 7 {
		r = 0
	}
	switch r {
	case 0, 1, 2:
		return g.str()
	case 3:
		return g.pick(numberPool)
	case 4:
		return g.pick([]string{"true", "false", "null"})
	case 5, 6:
		g.depth++
		defer func() { g.depth-- }()
		var items []string
		for range g.rng.Intn(4) {
			items = append(items, g.sp()+g.value()+g.sp())
		}
		return "[" + strings.Join(items, ",") + "]"
	default:
		return g.object()
	}
}

func (g *jsonGen) str() string {
	s := g.pick(stringPool)
	if g.rng.Intn(3) == 0 {
		s += g.pick(stringPool)
	}
	if g.rng.Intn(12) == 0 {
		s += g.pick(badStrings)
	}
	return `"` + s + `"`
}

// mutationAlphabet holds the bytes a mutation inserts: JSON's structure,
// escapes, digits, and bytes that are not UTF-8.
var mutationAlphabet = []string{"{", "}", "[", "]", "\"", ",", ":", "\\", "u", "0", "1", "e", "-", ".", " ", "\n", "\t",
	"\\u", "\\ud800", "\xff", "\xef\xbb\xbf", "n", "t", "f", "a", "\"name\":\"x\",", "\"dependencies\":{},"}

// Mutate returns a copy of b with one to three edits: a byte replaced, a
// piece inserted, a run deleted or duplicated.
func Mutate(rng *rand.Rand, b []byte) []byte {
	out := bytes.Clone(b)
	for range 1 + rng.Intn(3) {
		if len(out) == 0 {
			out = []byte(mutationAlphabet[rng.Intn(len(mutationAlphabet))])
			continue
		}
		i := rng.Intn(len(out))
		switch rng.Intn(4) {
		case 0:
			out[i] = mutationAlphabet[rng.Intn(len(mutationAlphabet))][0]
		case 1:
			ins := mutationAlphabet[rng.Intn(len(mutationAlphabet))]
			out = append(out[:i:i], append([]byte(ins), out[i:]...)...)
		case 2:
			j := min(len(out), i+1+rng.Intn(8))
			out = append(out[:i:i], out[j:]...)
		default:
			j := min(len(out), i+1+rng.Intn(16))
			out = append(out[:j:j], append(bytes.Clone(out[i:j]), out[j:]...)...)
		}
	}
	return out
}

// Tally counts a differential run's outcomes for the test log.
type Tally map[string]int

func (t Tally) String() string {
	var parts []string
	for _, k := range []string{"compared", "both-read", "both-refused", "refused-conflict", "refused-other", "stricter"} {
		if t[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, t[k]))
		}
	}
	return strings.Join(parts, ", ")
}
