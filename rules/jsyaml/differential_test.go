package jsyaml_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"github.com/dshaudit/dshaudit/rules/jsyaml"
	"gopkg.in/yaml.v3"
)

// The differential test runs js-yaml itself, the version dsh ships, on
// the same bytes as this package, and fails on any input this package
// accepts but reads differently from js-yaml (or that js-yaml refuses).
// Its oracle is scripts/consumers/js-yaml/oracle.cjs under the machine's
// node, with js-yaml installed by scripts/setup.sh (npm ci from the
// committed lock) into $DSHAUDIT_CACHE/consumers/js-yaml.
//
// A long soak: go test ./rules/jsyaml/ -run Differential -jsyaml.n 500000 -jsyaml.seed $RANDOM
var (
	diffN    = flag.Int("jsyaml.n", 4000, "inputs the js-yaml differential test generates and mutates")
	diffSeed = flag.Int64("jsyaml.seed", 1, "seed of the js-yaml differential test's generator")
)

// oracleDir is where scripts/setup.sh installs js-yaml.
func oracleDir() string {
	if d := os.Getenv("DSHAUDIT_JSYAML_DIR"); d != "" {
		return d
	}
	return filepath.Join(e2etest.CacheDir(), "consumers", "js-yaml")
}

func repoRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

type oracleResult struct {
	V   json.RawMessage `json:"v"`
	T   []any           `json:"t"`
	Err string          `json:"err"`
}

// runOracle loads every input with js-yaml in one node process.
func runOracle(t testing.TB, inputs [][]byte) []oracleResult {
	t.Helper()
	e2etest.Require(t, "node")
	dir := oracleDir()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "js-yaml", "package.json")); err != nil {
		t.Fatalf("js-yaml %s is not installed in %s (scripts/setup.sh installs it): %v", jsyaml.Version, dir, err)
	}
	script := filepath.Join(repoRoot(t), "scripts", "consumers", "js-yaml", "oracle.cjs")
	ver, err := exec.Command("node", script, dir, "--version").Output()
	if err != nil {
		t.Fatalf("node %s --version: %v", script, err)
	}
	if got := strings.TrimSpace(string(ver)); got != jsyaml.Version {
		t.Fatalf("the oracle's js-yaml is %s, want %s (the version dsh ships)", got, jsyaml.Version)
	}
	var in bytes.Buffer
	for _, b := range inputs {
		in.WriteString(base64.StdEncoding.EncodeToString(b))
		in.WriteByte('\n')
	}
	cmd := exec.Command("node", script, dir)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("js-yaml oracle: %v: %s", err, stderr.String())
	}
	var res []oracleResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r oracleResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("oracle line %d: %v", len(res)+1, err)
		}
		res = append(res, r)
	}
	if len(res) != len(inputs) {
		t.Fatalf("oracle answered %d of %d inputs", len(res), len(inputs))
	}
	return res
}

// canon writes a Value in the oracle's encoding, mapping keys sorted (a
// JavaScript object orders integer-like keys first).
func canon(v *jsyaml.Value) any {
	if v == nil {
		return map[string]any{"undef": true}
	}
	switch v.Kind {
	case jsyaml.Null:
		return nil
	case jsyaml.Bool:
		return v.Bool
	case jsyaml.Number:
		switch {
		case math.IsNaN(v.Num):
			return map[string]any{"n": "NaN"}
		case math.IsInf(v.Num, 1):
			return map[string]any{"n": "Infinity"}
		case math.IsInf(v.Num, -1):
			return map[string]any{"n": "-Infinity"}
		}
		if v.Num == 0 {
			return map[string]any{"n": 0} // JSON.stringify(-0) is 0
		}
		return map[string]any{"n": v.Num}
	case jsyaml.String:
		return map[string]any{"s": v.Str}
	case jsyaml.Expr:
		return map[string]any{"js": v.Str}
	case jsyaml.List:
		l := make([]any, len(v.Items))
		for i, it := range v.Items {
			l[i] = canon(it)
		}
		return map[string]any{"l": l}
	}
	type kv struct {
		k string
		v any
	}
	ps := make([]kv, len(v.Keys))
	for i, k := range v.Keys {
		ps[i] = kv{k, canon(v.Vals[i])}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].k < ps[j].k })
	m := make([]any, len(ps))
	for i, p := range ps {
		m[i] = []any{p.k, p.v}
	}
	return map[string]any{"m": m}
}

// canonJSON re-encodes an oracle value with mapping keys sorted.
func canonJSON(raw json.RawMessage) (string, error) {
	var x any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		return "", err
	}
	x = sortMaps(x)
	b, err := json.Marshal(x)
	return string(b), err
}

func sortMaps(x any) any {
	switch t := x.(type) {
	case map[string]any:
		for k, v := range t {
			t[k] = sortMaps(v)
		}
		if m, ok := t["m"].([]any); ok {
			sort.SliceStable(m, func(i, j int) bool {
				return m[i].([]any)[0].(string) < m[j].([]any)[0].(string)
			})
		}
		if n, ok := t["n"].(json.Number); ok {
			f, _ := n.Float64()
			t["n"] = f
		}
	case []any:
		for i := range t {
			t[i] = sortMaps(t[i])
		}
	}
	return x
}

// truthiness is what the oracle reports per root-list item.
func truthiness(v *jsyaml.Value) []any {
	if v == nil || v.Kind != jsyaml.List {
		return nil
	}
	out := make([]any, len(v.Items))
	for i, it := range v.Items {
		if it.Kind != jsyaml.Map {
			continue
		}
		b, decided := jsyaml.Truthy(it.Get("disabled"))
		if !decided {
			out[i] = "expr"
		} else {
			out[i] = b
		}
	}
	return out
}

// tally counts the outcomes of a differential run.
type tally struct {
	compared, agreed, bothRefused, goRefusedOnly, disagreements int
}

func (c tally) String() string {
	return fmt.Sprintf("%d inputs: %d read the same, %d refused by both, %d refused by dshaudit only (js-yaml loads them), %d disagreements",
		c.compared, c.agreed, c.bothRefused, c.goRefusedOnly, c.disagreements)
}

// compare runs every input through both readers; mustAccept inputs must
// also be accepted by this package.
func compare(t *testing.T, inputs [][]byte, mustAccept func(i int) bool) tally {
	t.Helper()
	res := runOracle(t, inputs)
	var c tally
	for i, in := range inputs {
		c.compared++
		v, _, err := jsyaml.Load(in)
		r := res[i]
		if err != nil {
			if r.Err != "" {
				c.bothRefused++
			} else {
				c.goRefusedOnly++
				if mustAccept != nil && mustAccept(i) {
					t.Errorf("input %d is one dshaudit must read, but it refuses it: %v\n%s", i, err, in)
				}
			}
			continue
		}
		if r.Err != "" {
			c.disagreements++
			if c.disagreements <= 10 {
				t.Errorf("input %d: dshaudit reads it, js-yaml throws %q\n%q", i, r.Err, in)
			}
			continue
		}
		if v == nil && (string(r.V) == "null" || string(r.V) == `{"undef":true}`) {
			// No document, or a null one: js-yaml gives undefined for some
			// of these and null for others; neither is anything a caller
			// reads (each wants a list).
			c.agreed++
			continue
		}
		want, err := canonJSON(r.V)
		if err != nil {
			t.Fatalf("input %d: oracle value: %v", i, err)
		}
		gotB, _ := json.Marshal(canon(v))
		got, _ := canonJSON(gotB)
		gotT, _ := json.Marshal(truthiness(v))
		wantT, _ := json.Marshal(r.T)
		if got != want || (r.T != nil && string(gotT) != string(wantT)) {
			c.disagreements++
			if c.disagreements <= 10 {
				t.Errorf("input %d read differently:\ndshaudit %s %s\njs-yaml  %s %s\ninput %q", i, got, gotT, want, wantT, in)
			}
			continue
		}
		c.agreed++
	}
	return c
}

// seeds are the real YAML dsh reads and writes: dumps and patches.
func seeds(t testing.TB) [][]byte {
	root := repoRoot(t)
	var out [][]byte
	for _, pat := range []string{"testdata/dsh-evidence/*/t3.stdout", "testdata/dsh-evidence/plugins/*/*.yml", "testdata/static/*/*.yml", "testdata/plugins/*/*.yml"} {
		ms, _ := filepath.Glob(filepath.Join(root, pat))
		for _, m := range ms {
			b, err := os.ReadFile(m)
			if err == nil && len(b) > 0 {
				out = append(out, b)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no seed YAML found under testdata")
	}
	return out
}

func TestDifferentialRealInputs(t *testing.T) {
	in := seeds(t)
	c := compare(t, in, nil)
	t.Logf("real dumps and patches: %v", c)
	// The real dumps must be read: they are what dsh writes.
	for i, b := range in {
		if bytes.HasPrefix(b, []byte("# == ")) {
			if _, _, err := jsyaml.Load(b); err != nil {
				t.Errorf("real dump %d refused: %v", i, err)
			}
		}
	}
}

func TestDifferentialGenerated(t *testing.T) {
	r := rand.New(rand.NewSource(*diffSeed))
	in := make([][]byte, 0, *diffN)
	for len(in) < *diffN {
		in = append(in, genDoc(r))
	}
	c := compare(t, in, nil)
	t.Logf("generated (seed %d): %v", *diffSeed, c)
	if c.agreed < len(in)/8 {
		t.Errorf("only %d of %d generated inputs were read by both: the generator is too hostile to test the readings", c.agreed, len(in))
	}
}

func TestDifferentialMutated(t *testing.T) {
	r := rand.New(rand.NewSource(*diffSeed + 1))
	base := seeds(t)
	in := make([][]byte, 0, *diffN)
	for len(in) < *diffN {
		in = append(in, mutate(r, base[r.Intn(len(base))]))
	}
	c := compare(t, in, nil)
	t.Logf("mutated (seed %d): %v", *diffSeed+1, c)
}

// The generator: documents in the shapes of patches and dumps, with the
// scalars, keys, tags and structures where YAML readers part ways.

var scalarPool = []string{
	"true", "True", "TRUE", "false", "False", "FALSE", "yes", "no", "on", "off", "y", "n", "Yes", "NO",
	"~", "null", "Null", "NULL", "", "0", "-0", "+0", "00", "08", "012", "0x0", "0x1F", "0X1", "0o0", "0o17", "0b0", "0b101",
	"1_000", "1,000", "0.0", "-0.0", ".0", "0.", "1.", "1e3", "1E-3", "1e400", "-1e400", "1e-400", ".5", "+.5", "-.5e1",
	".nan", ".NaN", ".NAN", "+.nan", ".inf", "-.Inf", "+.INF", ".infinity", "9007199254740993", "123456789012345678901234567890",
	"0x7FFFFFFFFFFFFFFF", "1:2", "12:30:00", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "=", "<<", "x", "hello-dsh-plugin",
	"@scope/pkg", "`tick`", "a b", "a #b", "a# b", "-x", "- x", ":x", "?x", "%x", "!x", "&x", "*x", "a: b", "'q'", "\"dq\"",
	"\u00a0x", "é", "\ufeffx", "a\tb", "NaN", "Infinity", "undefined", "0.1e+2", "-", "--", "...", "---", "[]", "{}",
}

var keyPool = []string{"id", "name", "disabled", "config", "insert", "<<", "'<<'", "\"id\"", "1", "true", "null", "~", "''", "a", "b", "id ", "__proto__", "constructor", "0x1", "01", "? id"}

var tagPool = []string{"", "", "", "", "", "!!js ", "!!str ", "!!int ", "!!bool ", "!!null ", "!!float ", "!foo ", "! ", "!<tag:yaml.org,2002:str> ", "!<tag:yaml.org,2002:js> ", "!!binary ", "!!timestamp ", "!!map ", "!!seq ", "!!merge "}

func pick(r *rand.Rand, pool []string) string { return pool[r.Intn(len(pool))] }

// genScalar writes a scalar in a random style for a value on a line at
// indentation ind.
func genScalar(r *rand.Rand, ind int) string {
	s := pick(r, scalarPool)
	tag := ""
	switch r.Intn(16) {
	case 0:
		tag = pick(r, tagPool)
	case 1, 2:
		tag = pick(r, []string{"!!js ", "!!str "})
	case 3:
		tag = pick(r, []string{"&s ", "&t !!str ", "!!str &u ", "&v ! ", "! &w "})
	}
	switch r.Intn(9) {
	case 0, 1, 2, 3:
		return tag + s
	case 4:
		return tag + "'" + strings.ReplaceAll(s, "'", "''") + "'"
	case 5:
		q := strings.NewReplacer("\\", "\\\\", "\"", "\\\"").Replace(s)
		if r.Intn(3) == 0 {
			q += pick(r, []string{"\\n", "\\t", "\\x41", "\\u00e9", "\\U0001F600", "\\/", "\\ ", "\\0", "\\e", "\\N", "\\_", "\\L", "\\P", "\\q", "\\ud800"})
		}
		return tag + "\"" + q + "\""
	case 6, 7:
		h := pick(r, []string{"|", "|-", "|+", ">", ">-", ">+", "|2", ">1-", "| # c"})
		pad := strings.Repeat(" ", ind+2)
		lines := []string{s, pick(r, scalarPool), "", pad + "more"}
		var b strings.Builder
		b.WriteString(tag + h + "\n")
		n := 1 + r.Intn(3)
		for i := 0; i < n; i++ {
			b.WriteString(pad + lines[r.Intn(len(lines))])
			if i < n-1 {
				b.WriteString("\n")
			}
		}
		return b.String()
	}
	// a flow collection
	items := []string{pick(r, scalarPool), "'" + pick(r, scalarPool) + "'", "a: 1", "[x]", "{y: 2}"}
	if r.Intn(2) == 0 {
		return tag + "[" + items[r.Intn(len(items))] + ", " + items[r.Intn(len(items))] + "]"
	}
	return tag + "{" + pick(r, []string{"id", "name", "disabled", "a", "<<"}) + ": " + items[r.Intn(len(items))] + "}"
}

// genMapping writes a block mapping at indentation ind, its first line
// without indentation (it follows "- " or a key).
func genMapping(r *rand.Rand, ind, depth int) string {
	var b strings.Builder
	n := 1 + r.Intn(4)
	pad := strings.Repeat(" ", ind)
	keys := []string{"id", "name"}
	if r.Intn(2) == 0 {
		keys = append(keys, "disabled")
	}
	if r.Intn(3) == 0 {
		keys = append(keys, "config")
	}
	for i := 0; i < n; i++ {
		keys = append(keys, pick(r, keyPool))
	}
	if r.Intn(3) != 0 {
		keys = keys[:2+r.Intn(len(keys)-1)]
	}
	if r.Intn(8) != 0 {
		// Mostly distinct keys: js-yaml throws on a duplicated one, so
		// a document with one compares only the refusal.
		seen := map[string]bool{}
		uniq := keys[:0]
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				uniq = append(uniq, k)
			}
		}
		keys = uniq
	}
	for i, k := range keys {
		if i > 0 {
			b.WriteString("\n" + pad)
		}
		switch {
		case k == "id" && r.Intn(3) != 0:
			b.WriteString("id: " + pick(r, []string{"hello", "hello-dsh-plugin", "'x'", "\"y\"", "timer", "123", "true", "~", "''"}))
		case k == "name" && r.Intn(3) != 0:
			b.WriteString("name: " + pick(r, []string{"hello-dsh-plugin", "'@scope/pkg'", "\"@deepseek-ai/dsh\"", "x"}))
		case k == "disabled":
			b.WriteString("disabled: " + genScalar(r, ind))
		case (k == "config" || k == "insert" || k == "<<") && depth < 4 && r.Intn(2) == 0:
			if r.Intn(2) == 0 {
				b.WriteString(k + ":\n" + pad + "  " + genMapping(r, ind+2, depth+1))
			} else {
				b.WriteString(k + ":\n" + pad + "  - " + genMapping(r, ind+4, depth+1))
			}
		case k == "<<" && r.Intn(2) == 0:
			b.WriteString("<<: *a")
		default:
			b.WriteString(k + ": " + genScalar(r, ind))
		}
	}
	return b.String()
}

// genDoc writes a whole document: a root list of mappings, mostly.
func genDoc(r *rand.Rand) []byte {
	var b strings.Builder
	if r.Intn(10) == 0 {
		b.WriteString(pick(r, []string{"---\n", "%YAML 1.2\n---\n", "%YAML 1.1\n---\n", "# c\n", "\ufeff", "--- # c\n"}))
	}
	n := 1 + r.Intn(4)
	anchored := false
	for i := 0; i < n; i++ {
		if r.Intn(3) == 0 {
			b.WriteString("# == @deepseek-ai/dsh-base\n")
		}
		switch r.Intn(10) {
		case 0:
			b.WriteString("- " + genScalar(r, 2) + "\n")
		case 1:
			b.WriteString("- &a " + "{id: a, name: b}\n")
			anchored = true
		case 2:
			if anchored {
				b.WriteString("- *a\n")
			} else {
				b.WriteString("- {id: " + pick(r, scalarPool) + ", disabled: " + pick(r, scalarPool) + "}\n")
			}
		default:
			b.WriteString("- " + genMapping(r, 2, 0) + "\n")
		}
	}
	if r.Intn(10) == 0 {
		b.WriteString(pick(r, []string{"...\n", "---\n- x\n", "...\n---\n", "# end"}))
	}
	return []byte(b.String())
}

var tokenPool = []string{": ", "- ", "'", "\"", "#", " #", "&a ", "*a", "!!js ", "<<: ", "\t", "\r\n", "\r", "---\n", "...\n", "{", "}", "[", "]", ",", "? ", "|", ">", "-", "\\", "\u00a0", "\ufeff", " ", "  ", "\n", "true", "0x0", "\"no\"", "'false'", "yes", "0", "''", ".nan", "~", "\x00", "\x85", "\u2028", "%", "@", "`", "!", "!!str ", "*", "&"}

// mutate applies one to three edits to a seed: a token inserted or
// written over bytes, bytes or a line deleted, a line duplicated.
func mutate(r *rand.Rand, seed []byte) []byte {
	b := append([]byte(nil), seed...)
	for n := 1 + r.Intn(3); n > 0; n-- {
		if len(b) == 0 {
			b = append(b, pick(r, tokenPool)...)
			continue
		}
		p := r.Intn(len(b))
		switch r.Intn(6) {
		case 0, 1:
			b = append(b[:p], append([]byte(pick(r, tokenPool)), b[p:]...)...)
		case 2:
			tok := pick(r, tokenPool)
			end := min(len(b), p+len(tok))
			b = append(b[:p], append([]byte(tok), b[end:]...)...)
		case 3:
			b = append(b[:p], b[min(len(b), p+1+r.Intn(4)):]...)
		case 4, 5:
			// duplicate or delete the line at p
			s := bytes.LastIndexByte(b[:p], '\n') + 1
			e := bytes.IndexByte(b[p:], '\n')
			if e < 0 {
				e = len(b)
			} else {
				e += p + 1
			}
			line := append([]byte(nil), b[s:e]...)
			if r.Intn(2) == 0 {
				b = append(b[:e], append(line, b[e:]...)...)
			} else {
				b = append(b[:s], b[e:]...)
			}
		}
	}
	return b
}

// TestLoadDecodedAsLoad: on every input whose one document yaml.v3
// decodes (as T0's clause 5.1.3 decodes the patch before reading it with
// LoadDecoded), LoadDecoded gives Load's value, root line and error; and
// on every input, LoadItems and LoadDecoded with an item function give
// Load's root list items one at a time, and Load's error.
func TestLoadDecodedAsLoad(t *testing.T) {
	r := rand.New(rand.NewSource(*diffSeed + 2))
	base := seeds(t)
	in := append([][]byte{nil, []byte("# only a comment\n"), []byte("- a\r- b\n"), []byte("- \u2028\n"), []byte("&r [*r]\n"), []byte("[&a {id: x}, *a]\n")}, base...)
	for range 3000 {
		in = append(in, genDoc(r), mutate(r, base[r.Intn(len(base))]))
	}
	same := func(i int, b []byte, what string, v1 *jsyaml.Value, root1 *yaml.Node, err1 error, v2 *jsyaml.Value, root2 *yaml.Node, err2 error) {
		t.Helper()
		if fmt.Sprint(err1) != fmt.Sprint(err2) || fmt.Sprint(canon(v1)) != fmt.Sprint(canon(v2)) || (root1 == nil) != (root2 == nil) || (root1 != nil && root1.Line != root2.Line) {
			t.Fatalf("input %d %q: Load gives %v, %v; %s %v, %v", i, b, canon(v1), err1, what, canon(v2), err2)
		}
	}
	// withItems puts the items given one at a time back into the list.
	withItems := func(load func(item func(*jsyaml.Value)) (*jsyaml.Value, *yaml.Node, error)) (*jsyaml.Value, *yaml.Node, error) {
		var items []*jsyaml.Value
		v, root, err := load(func(it *jsyaml.Value) { items = append(items, it) })
		if v != nil && v.Kind == jsyaml.List {
			if v.Items != nil {
				return nil, nil, fmt.Errorf("the root list kept %d items", len(v.Items))
			}
			v.Items = items
		} else if len(items) > 0 && err == nil {
			return nil, nil, fmt.Errorf("%d items given for a root that is not a list", len(items))
		}
		return v, root, err
	}
	decoded, accepted, refused := 0, 0, 0
	for i, b := range in {
		v1, root1, err1 := jsyaml.Load(b)
		v2, root2, err2 := withItems(func(item func(*jsyaml.Value)) (*jsyaml.Value, *yaml.Node, error) { return jsyaml.LoadItems(b, item) })
		same(i, b, "LoadItems", v1, root1, err1, v2, root2, err2)
		dec := yaml.NewDecoder(bytes.NewReader(b))
		var doc, second yaml.Node
		if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
			continue
		} else if err == nil && !errors.Is(dec.Decode(&second), io.EOF) {
			continue
		}
		decoded++
		v2, root2, err2 = jsyaml.LoadDecoded(b, &doc, nil)
		same(i, b, "LoadDecoded", v1, root1, err1, v2, root2, err2)
		v2, root2, err2 = withItems(func(item func(*jsyaml.Value)) (*jsyaml.Value, *yaml.Node, error) {
			return jsyaml.LoadDecoded(b, &doc, item)
		})
		same(i, b, "LoadDecoded with items", v1, root1, err1, v2, root2, err2)
		if err1 == nil {
			accepted++
		} else {
			refused++
		}
	}
	t.Logf("%d of %d inputs decoded: %d read, %d refused by both", decoded, len(in), accepted, refused)
	if accepted < 500 || refused < 50 {
		t.Errorf("%d read and %d refused: too few of either for the comparison to mean something", accepted, refused)
	}
}
