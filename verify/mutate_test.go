package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// The mutation harness (DESIGN.md "Tests and benchmarks"): the
// verifier attacked by its own test. Each valid vector (and, with
// DSHAUDIT_E2E=1 and -mutate.dir, each bundle found there) is mutated,
// re-signed with the writer's key and verified.
var (
	mutateN    = flag.Int("mutate.n", 0, "mutations to run in TestMutations (0: the CI budget, 3000; the soak runs 1000000)")
	mutateSeed = flag.Uint64("mutate.seed", 20261204, "seed of TestMutations' mutations")
	mutateDir  = flag.String("mutate.dir", "", "also mutate every *.dshaudit.tar.zst in this directory, when DSHAUDIT_E2E=1 (the runner's end-to-end tests keep their bundles in $DSHAUDIT_E2E_BUNDLES)")
)

// ciMutations is the seeded budget CI runs (about a minute on one CPU of
// the 2-core CI machine).
const ciMutations = 3000

// mutationBase is one valid bundle the harness starts from.
type mutationBase struct {
	name  string
	m     *manifest.Manifest
	files map[string][]byte
	view  string
}

// mutant is one mutation of a base, before it is signed.
type mutant struct {
	desc  string
	m     *manifest.Manifest
	files map[string][]byte
	// ptr is the manifest leaf a manifest mutation edited; reclaimed says
	// every claimed field was then re-derived.
	ptr       string
	reclaimed bool
	// manifest, when not nil, replaces the encoding of m (a mutation of
	// the JSON that does not decode to a Manifest is skipped instead).
}

// verifiedView is what verify prints as verified about a bundle: its
// report without the unverified fields, the writer's free text (every
// deviation's why, its clause) and the bundle's own digest. A mutation
// that leaves it byte-identical changed only unverified fields or raw
// evidence the verdicts are re-derived from, and they agree.
func verifiedView(r *Report) string {
	type dev struct{ What, Standard, ChangedTo string }
	var devs []dev
	for _, d := range r.DeviationRecords {
		devs = append(devs, dev{d.What, d.Standard, d.ChangedTo})
	}
	// Their order is the writer's (the declaration lists them in it).
	slices.SortFunc(devs, func(a, b dev) int {
		return strings.Compare(a.What+"\x00"+a.Standard+"\x00"+a.ChangedTo, b.What+"\x00"+b.Standard+"\x00"+b.ChangedTo)
	})
	var pkg any
	if r.Package != nil {
		pkg = []string{r.Package.Name, r.Package.Version, r.Package.Spec}
	}
	v := map[string]any{
		"status": r.Status, "signer": r.Signer, "package": pkg, "standards": r.Standards, "fingerprint": r.Fingerprint,
		"test_date": r.TestDate, "baseline": r.Baseline, "dynamic": r.Dynamic, "deviations": devs,
		"claimed_verdict": r.ClaimedVerdict, "derived_verdict": r.DerivedVerdict, "conforming_static": r.ConformingStatic,
		"unstable": r.Unstable, "usable": r.Usable, "not_usable": r.NotUsable, "repetitions": r.Repetitions, "findings": r.Findings,
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMutations: every mutation of a valid bundle, re-signed by the
// writer, is refused, or verify prints the same verified result as for
// the bundle it came from. A survivor fails the test with the mutation.
// `go test ./verify/ -run TestMutations -mutate.n 1000000` is the soak.
func TestMutations(t *testing.T) {
	n := *mutateN
	if n == 0 {
		n = ciMutations
		if testing.Short() {
			n = 300
		}
	}
	signer, err := attest.LoadSigner(vectorsDir + "/keys/signer.key")
	if err != nil {
		t.Fatal(err)
	}
	paths, pol := validVectorPaths(t)
	if *mutateDir != "" {
		e2etest.Require(t)
		more, _ := filepath.Glob(filepath.Join(*mutateDir, "*.dshaudit.tar.zst"))
		paths = append(paths, more...)
	}
	var bases []mutationBase
	for _, p := range paths {
		bases = append(bases, loadBase(t, p, pol))
	}
	rng := rand.New(rand.NewPCG(*mutateSeed, 0x9e3779b97f4a7c15))
	type tally struct{ ran, refused, same, skipped int }
	var all tally
	byOp := map[string]*tally{}
	var survivors []string
	classified := map[string]int{}
	start := time.Now()
	for i := range n {
		b := bases[i%len(bases)]
		mu, op, ok := mutate(rng, b)
		tt := byOp[op]
		if tt == nil {
			tt = &tally{}
			byOp[op] = tt
		}
		if !ok {
			all.skipped++
			tt.skipped++
			continue
		}
		all.ran++
		tt.ran++
		archive, err := signMutant(mu, signer)
		if err != nil {
			all.skipped++ // not a manifest the writer could encode
			tt.skipped++
			all.ran--
			tt.ran--
			continue
		}
		rep, err := Verify(context.Background(), b.name, bytes.NewReader(archive), Options{Policy: pol})
		if err != nil {
			t.Fatalf("%s: %s: Verify: %v", b.name, mu.desc, err)
		}
		switch {
		case rep.Status != StatusVerified:
			all.refused++
			tt.refused++
		case verifiedView(rep) == b.view:
			all.same++
			tt.same++
		default:
			if c := classifySurvivor(mu, b.view, verifiedView(rep)); c != "" {
				classified[c]++
				continue
			}
			survivors = append(survivors, fmt.Sprintf("%s: %s [%s]: %s", b.name, mu.desc, op, firstDiff(b.view, verifiedView(rep))))
		}
	}
	ops := make([]string, 0, len(byOp))
	for op := range byOp {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		c := byOp[op]
		t.Logf("%-22s ran %6d  refused %6d  same verified result %6d  skipped %5d", op, c.ran, c.refused, c.same, c.skipped)
	}
	t.Logf("seed %d: %d mutations of %d bundles in %s: ran %d, refused %d, same verified result %d, skipped %d (no manifest), survived %d",
		*mutateSeed, n, len(bases), time.Since(start).Round(time.Millisecond), all.ran, all.refused, all.same, all.skipped, len(survivors))
	for c, k := range classified {
		t.Logf("classified survivors: %d: %s", k, c)
	}
	for i, s := range survivors {
		if i == 40 {
			t.Errorf("and %d more survivors", len(survivors)-i)
			break
		}
		t.Errorf("survivor: %s", s)
	}
}

// classifySurvivor names the kind of a bundle that verifies with another
// verified result than its base, when the difference is one that offline
// verification cannot catch by design (SPEC.md "What offline verification
// cannot catch"), or "".
func classifySurvivor(mu mutant, was, now string) string {
	if sm := deviationText.FindStringSubmatch(mu.ptr); sm != nil {
		if i, err := strconv.Atoi(sm[1]); err == nil && i < len(mu.m.Deviations) {
			if w := mu.m.Deviations[i].What; w != assemble.DeviationBaseline && !sandboxDeviation(w) {
				return "the standard or changed_to of a deviation of a name SPEC.md \"Deviation names\" does not list: the writer's own words, checked only for recording a difference"
			}
		}
	}
	switch {
	case mu.reclaimed && observationLeaf.MatchString(mu.ptr):
		return "a stage's recorded observation (exit status, time-out, liveness) invented and every claim re-derived from it: what offline verification cannot catch by design; replay refutes it"
	case strip(durationMS, was) == strip(durationMS, now):
		return "stage times moved consistently: the writer's clock (each stage's times are listed unverified)"
	case strip(exitCode, was) == strip(exitCode, now):
		return "a stage's exit status changed, every verdict and first_error unchanged: a recorded observation only replay can refute (listed unverified)"
	}
	return ""
}

var (
	// observationLeaf is a recorded observation the rules read (SPEC.md
	// "What offline verification cannot catch").
	observationLeaf = regexp.MustCompile(`^/repetitions/[0-9]+/stages/[0-9]+/(exit_code|timed_out|liveness/(alive_ms|alive_at_end|window_ms))$`)
	deviationText   = regexp.MustCompile(`^/deviations/([0-9]+)/(standard|changed_to)$`)
	durationMS      = regexp.MustCompile(`"duration_ms":-?[0-9]+`)
	exitCode        = regexp.MustCompile(`"exit_code":-?[0-9]+`)
)

func strip(re *regexp.Regexp, v string) string { return re.ReplaceAllString(v, `0`) }

// firstDiff names the first JSON Pointer where two views differ.
func firstDiff(was, now string) string {
	d := manifestDiff([]byte(was), []byte(now))
	if len(d) == 0 {
		return "(same)"
	}
	return fmt.Sprintf("%s: was %s, now %s (%d difference(s))", d[0].pointer, short(d[0].signed), short(d[0].rebuilt), len(d))
}

func short(s string) string {
	if len(s) > 300 {
		return clip(s, 300)
	}
	return s
}

func loadBase(t *testing.T, path string, pol attest.Policy) mutationBase {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := bundle.Read(bytes.NewReader(raw), bundle.DefaultLimits())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	m, err := manifest.Decode(a.RawManifest)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	// Signed again by the harness's writer key, so that a bundle the
	// end-to-end tests signed with a key of their own is a base too.
	signer, err := attest.LoadSigner(vectorsDir + "/keys/signer.key")
	if err != nil {
		t.Fatal(err)
	}
	if raw, err = signMutant(mutant{m: cloneManifest(m), files: a.Files}, signer); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	rep, err := Verify(context.Background(), filepath.Base(path), bytes.NewReader(raw), Options{Policy: pol})
	if err != nil || rep.Status != StatusVerified {
		t.Fatalf("%s: the base does not verify: %v %v", path, err, rep.Findings)
	}
	return mutationBase{name: filepath.Base(path), m: m, files: a.Files, view: verifiedView(rep)}
}

// signMutant encodes the mutant's manifest with its file list made to
// match its files and signs it as the writer would.
func signMutant(mu mutant, signer *attest.Signer) ([]byte, error) {
	mu.m.Files = bundle.FileList(mu.files)
	raw, err := manifest.Encode(mu.m)
	if err != nil {
		return nil, err
	}
	sig, err := attest.Sign(context.Background(), raw, attest.Predicate{
		Tool:    attest.Tool{Name: mu.m.Tool.Name, Version: mu.m.Tool.Version},
		Subject: attest.Package{Name: mu.m.Subject.Name, Version: mu.m.Subject.Version},
		Verdict: assemble.PredicateVerdict(mu.m),
	}, signer)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := bundle.Write(&buf, bundle.Contents{Manifest: raw, Signature: sig, Files: mu.files}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// mutate makes one mutation of b: of a manifest leaf or array, of an
// evidence file, or of a stage's times.
func mutate(rng *rand.Rand, b mutationBase) (mutant, string, bool) {
	m := cloneManifest(b.m)
	files := make(map[string][]byte, len(b.files))
	for k, v := range b.files {
		files[k] = v
	}
	mu := mutant{m: m, files: files}
	var op string
	var ok bool
	switch k := rng.IntN(10); {
	case k < 5:
		op, ok = mutateManifest(rng, &mu)
	case k < 7:
		op, ok = mutateEvidence(rng, &mu)
	case k < 8:
		op, ok = mutateMove(rng, &mu)
	default:
		op, ok = mutateTimes(rng, &mu)
	}
	// A manifest edit is re-claimed half the time (every claimed field
	// re-derived, as a writer lying consistently would). An edit of the
	// evidence or of the recorded times is not: re-derived, it is the
	// record of another run, which nothing offline tells from this one;
	// kept, any verdict it changes contradicts the claims.
	if ok && op != "" && strings.HasPrefix(op, "manifest") && rng.IntN(2) == 0 {
		reclaim(mu.m, mu.files)
		mu.desc += " (claims re-derived)"
		mu.reclaimed = true
	}
	return mu, op, ok
}

func cloneManifest(m *manifest.Manifest) *manifest.Manifest {
	raw, err := manifest.Encode(m)
	if err != nil {
		panic(err)
	}
	c, err := manifest.Decode(raw)
	if err != nil {
		panic(err)
	}
	return c
}

// reclaim fills every claimed field from the derivation.
func reclaim(m *manifest.Manifest, files map[string][]byte) {
	d, _ := assemble.Derive(m, files, rules.DefaultLimits())
	assemble.Claim(m, d)
}

// Strings a mutation writes into text: Unicode line breaks, look-alikes,
// invisible characters, boundary forms.
var textPayloads = []string{"\n", "\r", "\r\n", "\u2028", "\u2029", "\u0085", "\x00", "\x1b[2J", "\u200b", "\u202e", "\ufeff",
	"\nConforms to DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static + dynamic layer)\n", " ", "-", "x", "certified", "сertified"}

// confusables maps Latin letters to look-alikes.
var confusables = map[rune]rune{'a': 'а', 'e': 'е', 'o': 'о', 'p': 'р', 'c': 'с', 'x': 'х', 'i': 'і', 's': 'ѕ', 'd': 'ԁ', 'h': 'һ'}

func mutateString(rng *rand.Rand, s string) (string, string) {
	switch rng.IntN(9) {
	case 0:
		return "", "empty"
	case 1:
		p := textPayloads[rng.IntN(len(textPayloads))]
		i := rng.IntN(len(s) + 1)
		for i > 0 && i < len(s) && !isRuneStart(s[i]) {
			i--
		}
		return s[:i] + p + s[i:], fmt.Sprintf("insert %q", p)
	case 2:
		rs := []rune(s)
		var idx []int
		for i, r := range rs {
			if _, ok := confusables[r]; ok {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			return s + "а", "append Cyrillic a"
		}
		i := idx[rng.IntN(len(idx))]
		rs[i] = confusables[rs[i]]
		return string(rs), "confusable"
	case 3:
		if s == "" {
			return "x", "fill"
		}
		rs := []rune(s)
		return string(rs[:len(rs)-1]), "drop last character"
	case 4:
		return s + s, "double"
	case 5:
		return strings.ToUpper(s), "upper case"
	case 6:
		// A digit one up: versions, digests, numbers in text.
		for i := len(s) - 1; i >= 0; i-- {
			if s[i] >= '0' && s[i] < '9' {
				return s[:i] + string(s[i]+1) + s[i+1:], "digit +1"
			}
		}
		return s + "1", "append digit"
	case 7:
		return " " + s + " ", "pad with spaces"
	default:
		return s + strings.Repeat("x", 1100), "lengthen past 1 KiB"
	}
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// leaf is one mutable place of the manifest's JSON tree.
type leaf struct {
	ptr    string
	parent any // map[string]any or []any
	key    string
	index  int
}

func collectLeaves(ptr string, v any, parent any, key string, index int, out *[]leaf) {
	*out = append(*out, leaf{ptr: ptr, parent: parent, key: key, index: index})
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			collectLeaves(ptr+"/"+k, x[k], x, k, -1, out)
		}
	case []any:
		for i, e := range x {
			collectLeaves(ptr+"/"+strconv.Itoa(i), e, x, "", i, out)
		}
	}
}

func (l leaf) get() any {
	if p, ok := l.parent.(map[string]any); ok {
		return p[l.key]
	}
	return l.parent.([]any)[l.index]
}

func (l leaf) set(v any) {
	if p, ok := l.parent.(map[string]any); ok {
		p[l.key] = v
		return
	}
	l.parent.([]any)[l.index] = v
}

// mutateManifest edits one leaf, array or map of the manifest, keeping
// its type, and decodes the result back into mu.m.
func mutateManifest(rng *rand.Rand, mu *mutant) (string, bool) {
	raw, _ := manifest.Encode(mu.m)
	var tree any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&tree) != nil {
		return "manifest", false
	}
	var leaves []leaf
	collectLeaves("", tree, nil, "", -1, &leaves)
	// Not the file list (remade to match the files) nor the kind (refused
	// before anything else).
	leaves = slices.DeleteFunc(leaves[1:], func(l leaf) bool {
		return strings.HasPrefix(l.ptr, "/files") || l.ptr == "/media_type" || l.ptr == "/schema_version"
	})
	l := leaves[rng.IntN(len(leaves))]
	var op, what string
	switch v := l.get().(type) {
	case string:
		s, w := mutateString(rng, v)
		l.set(s)
		op, what = "manifest string", w
	case json.Number:
		n, _ := v.Int64()
		cands := []int64{n + 1, n - 1, 0, -1, n * 2, n / 2, math.MaxInt64, math.MinInt64, n + 1000, n - 1000}
		c := cands[rng.IntN(len(cands))]
		l.set(json.Number(strconv.FormatInt(c, 10)))
		op, what = "manifest number", fmt.Sprintf("%d → %d", n, c)
	case bool:
		l.set(!v)
		op, what = "manifest bool", fmt.Sprintf("%v → %v", v, !v)
	case nil:
		l.set(json.Number("0"))
		op, what = "manifest null", "null → 0"
	case []any:
		switch {
		case len(v) > 0 && rng.IntN(3) == 0:
			i := rng.IntN(len(v))
			l.set(slices.Delete(slices.Clone(v), i, i+1))
			op, what = "manifest array", fmt.Sprintf("delete element %d", i)
		case len(v) > 0 && rng.IntN(2) == 0:
			i := rng.IntN(len(v))
			dup := decodeJSON(jsonText(v[i]))
			l.set(slices.Insert(slices.Clone(v), i, dup))
			op, what = "manifest array", fmt.Sprintf("duplicate element %d", i)
		case len(v) > 1:
			i := rng.IntN(len(v) - 1)
			c := slices.Clone(v)
			c[i], c[i+1] = c[i+1], c[i]
			l.set(c)
			op, what = "manifest array", fmt.Sprintf("swap elements %d and %d", i, i+1)
		default:
			l.set(append(slices.Clone(v), "x"))
			op, what = "manifest array", "append \"x\""
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) == 0 || rng.IntN(2) == 0 {
			v["version"] = json.Number("1000")
			op, what = "manifest map", "add member version"
		} else {
			k := keys[rng.IntN(len(keys))]
			delete(v, k)
			op, what = "manifest map", "delete member "+k
		}
	default:
		return "manifest", false
	}
	b, _ := json.Marshal(tree)
	var m manifest.Manifest
	if json.Unmarshal(b, &m) != nil {
		return op, false
	}
	*mu.m = m
	mu.ptr = l.ptr
	mu.desc = fmt.Sprintf("%s: %s", l.ptr, what)
	return op, true
}

func decodeJSON(s string) any {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	_ = d.Decode(&v)
	return v
}

// Lines a mutation inserts into evidence: what the rules and the cross
// checks read (fatal lines, pnpm's summary, versions, the dependency
// line), and plain text.
var evidenceLines = []string{
	"Error: boom", "FATAL ERROR: Reached heap limit Allocation failed", "Done in 99.9s", "Done in 0.1s", "+ other-plugin 1.0.0",
	"Packages: +1", "using pnpm v9.15.8", "Node.js v24.11.0", "ERR_PNPM_FETCH_404", "TypeError: x is not a function",
	"[plugin] loaded", "hello", "", "\x1b[31mred\x1b[0m", "    at Object.<anonymous> (/x.js:1:1)",
}

// mutateEvidence edits one evidence file by lines: a stream edit is made
// in merged too, so that merged stays an interleaving and the rules read
// the change; a splice moves a line between stdout and stderr, leaving
// merged as it is.
func mutateEvidence(rng *rand.Rand, mu *mutant) (string, bool) {
	paths := make([]string, 0, len(mu.files))
	for p := range mu.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	p := paths[rng.IntN(len(paths))]
	lines := strings.SplitAfter(string(mu.files[p]), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	stream := strings.HasSuffix(p, "/stdout") || strings.HasSuffix(p, "/stderr")
	merged := strings.TrimSuffix(strings.TrimSuffix(p, "stdout"), "stderr") + "merged"
	var op, what string
	var old, repl string // a line of a stream and what it became, for merged
	switch k := rng.IntN(5); {
	case k == 0 && len(lines) > 0:
		i := rng.IntN(len(lines))
		old, repl = lines[i], ""
		lines = slices.Delete(lines, i, i+1)
		op, what = "evidence delete", fmt.Sprintf("line %d", i+1)
	case k == 1 && len(lines) > 0:
		i := rng.IntN(len(lines))
		s, w := mutateString(rng, strings.TrimSuffix(lines[i], "\n"))
		old, repl = lines[i], s+"\n"
		lines[i] = repl
		op, what = "evidence edit", fmt.Sprintf("line %d: %s", i+1, w)
	case k == 4 && stream && len(lines) > 0:
		// Splice: the line leaves this stream for the other; merged keeps it.
		i := rng.IntN(len(lines))
		other := merged[:len(merged)-len("merged")] + map[bool]string{true: "stderr", false: "stdout"}[strings.HasSuffix(p, "/stdout")]
		line := lines[i]
		lines = slices.Delete(lines, i, i+1)
		ol := strings.SplitAfter(string(mu.files[other]), "\n")
		j := rng.IntN(len(ol))
		ol = slices.Insert(ol, j, line)
		mu.files[other] = []byte(strings.Join(ol, ""))
		mu.files[p] = []byte(strings.Join(lines, ""))
		mu.desc = fmt.Sprintf("%s: line %d %q moved to %s", p, i+1, line, other)
		return "evidence splice", true
	default:
		i := rng.IntN(len(lines) + 1)
		ins := evidenceLines[rng.IntN(len(evidenceLines))] + "\n"
		lines = slices.Insert(lines, i, ins)
		op, what = "evidence insert", fmt.Sprintf("%q before line %d", ins, i+1)
		if stream {
			// In merged, after the line before it (or first).
			mb := string(mu.files[merged])
			at := 0
			if i > 0 {
				prev := lines[i-1]
				if k := strings.Index(mb, prev); k >= 0 {
					at = k + len(prev)
				}
			}
			mu.files[merged] = []byte(mb[:at] + ins + mb[at:])
		}
	}
	mu.files[p] = []byte(strings.Join(lines, ""))
	if stream && old != "" {
		mb := string(mu.files[merged])
		if k := strings.Index(mb, old); k >= 0 {
			mu.files[merged] = []byte(mb[:k] + repl + mb[k+len(old):])
		}
	}
	mu.desc = fmt.Sprintf("%s: %s", p, what)
	return op, true
}

// mutateTimes moves a stage's times, keeping or breaking its duration.
func mutateTimes(rng *rand.Rand, mu *mutant) (string, bool) {
	var stages []*manifest.Stage
	for i := range mu.m.Repetitions {
		for j := range mu.m.Repetitions[i].Stages {
			if st := &mu.m.Repetitions[i].Stages[j]; st.ExitCode != nil {
				stages = append(stages, st)
			}
		}
	}
	deltas := []time.Duration{time.Millisecond, -time.Millisecond, time.Second, -time.Second, time.Hour, -24 * time.Hour, 365 * 24 * time.Hour, -3 * 365 * 24 * time.Hour}
	dt := deltas[rng.IntN(len(deltas))]
	shift := func(s *string) {
		t, err := time.Parse(time.RFC3339Nano, *s)
		if err == nil {
			*s = t.Add(dt).UTC().Format(time.RFC3339Nano)
		}
	}
	if len(stages) == 0 || rng.IntN(4) == 0 {
		// The run's own times, with test_date following finished_at.
		shift(&mu.m.StartedAt)
		if rng.IntN(2) == 0 {
			shift(&mu.m.FinishedAt)
			if t, err := time.Parse(time.RFC3339Nano, mu.m.FinishedAt); err == nil {
				mu.m.TestDate = t.UTC().Format(time.DateOnly)
			}
		}
		mu.desc = fmt.Sprintf("run times moved by %s", dt)
		return "times run", true
	}
	st := stages[rng.IntN(len(stages))]
	switch rng.IntN(3) {
	case 0: // the whole stage moves
		shift(&st.StartedAt)
		shift(&st.EndedAt)
		mu.desc = fmt.Sprintf("%s moved by %s", st.Stage, dt)
	case 1: // it ends later, duration follows
		shift(&st.EndedAt)
		st.DurationMS += dt.Milliseconds()
		mu.desc = fmt.Sprintf("%s ends %s later, duration_ms follows", st.Stage, dt)
	default: // the duration alone
		st.DurationMS += dt.Milliseconds()
		mu.desc = fmt.Sprintf("%s duration_ms %+d", st.Stage, dt.Milliseconds())
	}
	return "times stage", true
}
