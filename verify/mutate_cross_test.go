package verify

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/manifest"
)

// The mutation harness across stages (issue 45 item 5): the edits a
// writer makes to one stage or one repetition only, so that the raw
// evidence of that stage contradicts the rest of the run while each
// stage, read alone, still looks like dsh's and pnpm's output. The rules
// of one stage cannot see them; the relations between stages must.

// crossRename is a name of the run renamed in one stage's evidence only.
type crossRename struct {
	what     string
	old, new func(m *manifest.Manifest) string
}

func lit(s string) func(*manifest.Manifest) string {
	return func(*manifest.Manifest) string { return s }
}

// crossRenames are the names every stage of one run must agree on: the
// profile's name (in its directory, dsh's line and its package's name),
// its home (DSH_HOME) and the plugin's section of the T3 dump.
var crossRenames = []crossRename{
	{"profile directory", lit("/profiles/web"), lit("/profiles/cli")},
	{"profile named by dsh", lit("initialized profile web at"), lit("initialized profile cli at")},
	{"profile package name", lit("dsh-profile-web"), lit("dsh-profile-cli")},
	{"profile home", lit("/dsh-home/"), lit("/dsh-home-2/")},
	{"plugin's dump section", func(m *manifest.Manifest) string { return "# == " + m.Subject.Name + "\n" },
		lit("# == @deepseek-ai/dsh-base\n")},
}

// knownCrossSurvivors are the renames, by what and stage, that some
// valid vector still verifies after: each is a contradiction between
// stages that no relation reads yet. The list only shrinks: a survivor
// not in it fails the test, and one in it that no longer survives is
// logged so that it can be removed.
var knownCrossSurvivors = map[string]bool{}

// TestCrossStageRenames renames each name of crossRenames in one stage
// of one repetition only (its streams and merged alike, and the profile
// package.json the stage recorded), re-signs the bundle as its writer
// would, and requires verify to refuse it: the stage now names another
// profile, home or section than the rest of the run.
func TestCrossStageRenames(t *testing.T) {
	signer, err := attest.LoadSigner(vectorsDir + "/keys/signer.key")
	if err != nil {
		t.Fatal(err)
	}
	paths, pol := validVectorPaths(t)
	if testing.Short() {
		paths = paths[:min(len(paths), 6)]
	}
	survived := map[string][]string{} // what in stage → bases
	ran, refused := 0, 0
	for _, p := range paths {
		b := loadBase(t, p, pol)
		for _, dir := range stageDirs(b.files) {
			for _, r := range crossRenames {
				files, changed := replaceIn(b.files, func(f string) bool { return path.Dir(f) == dir }, r.old(b.m), r.new(b.m))
				if !changed {
					continue
				}
				ran++
				if !verifiesResigned(t, b, files, signer, pol, r.what+" in "+dir) {
					refused++
					continue
				}
				key := fmt.Sprintf("%s in %s", r.what, path.Base(dir))
				survived[key] = append(survived[key], fmt.Sprintf("%s (%s)", b.name, dir))
			}
		}
	}
	t.Logf("%d renames confined to one stage: %d refused, %d verified", ran, refused, ran-refused)
	for _, k := range slices.Sorted(maps.Keys(survived)) {
		bases := survived[k]
		if knownCrossSurvivors[k] {
			t.Logf("known survivor: %s: %d bundles, e.g. %s", k, len(bases), bases[0])
			continue
		}
		t.Errorf("survivor: %s verifies after it in %d bundles, e.g. %s", k, len(bases), bases[0])
	}
	for k := range knownCrossSurvivors {
		if _, ok := survived[k]; !ok {
			t.Logf("%s is refused now: remove it from knownCrossSurvivors", k)
		}
	}
}

// crossLie is an edit of one stage's evidence (every file under dir, in
// repetition 1 unless dir names another) that contradicts the rest of
// the run while the stage read alone looks honest.
type crossLie struct {
	what, dir, old, new string
}

// crossLies are single-stage lies found by hand, each refused or listed
// in knownCrossLieSurvivors.
var crossLies = []crossLie{
	{"T2 lists another version", "repetitions/1/T2/", "hello-dsh-plugin 1.0.0", "hello-dsh-plugin 0.9.0"},
	{"T1 adds another version", "repetitions/1/T1/", "+ hello-dsh-plugin 1.0.0", "+ hello-dsh-plugin 0.9.0"},
	{"T1's profile depends on another tarball", "repetitions/1/T1/", "file:/pkgs/hello-dsh-plugin-1.0.0.tgz", "file:/pkgs/hello-dsh-plugin-0.9.0.tgz"},
	{"T1's profile depends on the registry", "repetitions/1/T1/", "file:/pkgs/hello-dsh-plugin-1.0.0.tgz", "1.0.0"},
	{"T3's entry has another id", "repetitions/1/T3/", "- id: hello-dsh\n", "- id: hello-dsh2\n"},
	{"T3's entry has another name", "repetitions/1/T3/", "  name: hello-dsh-plugin\n", "  name: hello-dsh-plugin2\n"},
	{"T3's entry has a field the patch lacks", "repetitions/1/T3/", "  name: hello-dsh-plugin\n", "  name: hello-dsh-plugin\n  config:\n    x: 1\n"},
	{"T1 ran another pnpm", "repetitions/1/T1/", "using pnpm v9.15.9", "using pnpm v8.6.0"},
	{"T1's update box names another pnpm", "repetitions/1/T1/", "Update available! 9.15.9", "Update available! 8.6.0"},
	{"T1 reused the store", "repetitions/1/T1/", "resolved 1, reused 0, downloaded 1, added 1", "resolved 1, reused 1, downloaded 0, added 1"},
	{"T2 lists no project", "repetitions/1/T2/", "dsh-profile-web /dsh-home/profiles/web (PRIVATE)\n", ""},
	{"repetition 2's T1 initialised no profile", "repetitions/2/T1/", "dsh: initialized profile web at /dsh-home/profiles/web\n", ""},
	{"T2's pnpm warns of another node and pnpm", "repetitions/1/T2/", "Legend:", " WARN  Unsupported engine: wanted: {\"node\":\">=25\"} (current: {\"node\":\"v22.1.0\",\"pnpm\":\"8.6.0\"})\nLegend:"},
}

// knownCrossLieSurvivors are the crossLies some valid vector still
// verifies after; the list only shrinks, as knownCrossSurvivors.
var knownCrossLieSurvivors = map[string]bool{}

// TestCrossStageLies makes each crossLie in every valid vector where its
// text stands, re-signs it and requires a refusal.
func TestCrossStageLies(t *testing.T) {
	signer, err := attest.LoadSigner(vectorsDir + "/keys/signer.key")
	if err != nil {
		t.Fatal(err)
	}
	paths, pol := validVectorPaths(t)
	survived := map[string][]string{}
	applied := map[string]int{}
	for _, p := range paths {
		b := loadBase(t, p, pol)
		for _, l := range crossLies {
			files, changed := replaceIn(b.files, func(f string) bool { return strings.HasPrefix(f, l.dir) }, l.old, l.new)
			if !changed {
				continue
			}
			applied[l.what]++
			if verifiesResigned(t, b, files, signer, pol, l.what) {
				survived[l.what] = append(survived[l.what], b.name)
			}
		}
	}
	for _, l := range crossLies {
		if applied[l.what] == 0 {
			t.Errorf("%s: its text %q stands in no valid vector's %s", l.what, l.old, l.dir)
			continue
		}
		bases, ok := survived[l.what]
		switch {
		case ok && knownCrossLieSurvivors[l.what]:
			t.Logf("known survivor: %s: %d of %d bundles, e.g. %s", l.what, len(bases), applied[l.what], bases[0])
		case ok:
			t.Errorf("survivor: %s verifies in %d of %d bundles, e.g. %s", l.what, len(bases), applied[l.what], bases[0])
		case knownCrossLieSurvivors[l.what]:
			t.Logf("%s is refused now: remove it from knownCrossLieSurvivors", l.what)
		}
	}
}

// stageDirs are the evidence directories of the executed stages
// ("repetitions/1/T2"), in order.
func stageDirs(files map[string][]byte) []string {
	var dirs []string
	for f := range files {
		if strings.HasPrefix(f, "repetitions/") && strings.HasSuffix(f, "/merged") {
			dirs = append(dirs, path.Dir(f))
		}
	}
	slices.Sort(dirs)
	return dirs
}

// replaceIn returns a copy of files with old replaced by repl in every
// file in selects, and whether any file changed.
func replaceIn(files map[string][]byte, in func(string) bool, old, repl string) (map[string][]byte, bool) {
	out := maps.Clone(files)
	changed := false
	for f, b := range files {
		if !in(f) {
			continue
		}
		if n := bytes.ReplaceAll(b, []byte(old), []byte(repl)); !bytes.Equal(n, b) {
			out[f] = n
			changed = true
		}
	}
	return out, changed
}

// verifiesResigned signs files with b's manifest as its writer would and
// reports whether verify says verified.
func verifiesResigned(t *testing.T, b mutationBase, files map[string][]byte, signer *attest.Signer, pol attest.Policy, what string) bool {
	t.Helper()
	archive, err := signMutant(mutant{m: cloneManifest(b.m), files: files}, signer)
	if err != nil {
		t.Fatalf("%s: %s: %v", b.name, what, err)
	}
	rep, err := Verify(context.Background(), b.name, bytes.NewReader(archive), Options{Policy: pol})
	if err != nil {
		t.Fatalf("%s: %s: Verify: %v", b.name, what, err)
	}
	return rep.Status == StatusVerified
}

// mutateMove moves one line of a stage's stream to the same stream of
// another stage or another repetition, merged following in both: the
// record of one stage shows what another stage printed.
func mutateMove(rng *rand.Rand, mu *mutant) (string, bool) {
	var streams []string
	for f := range mu.files {
		if strings.HasPrefix(f, "repetitions/") && (strings.HasSuffix(f, "/stdout") || strings.HasSuffix(f, "/stderr")) && len(mu.files[f]) > 0 {
			streams = append(streams, f)
		}
	}
	slices.Sort(streams)
	if len(streams) == 0 {
		return "evidence move", false
	}
	from := streams[rng.IntN(len(streams))]
	var targets []string
	for f := range mu.files {
		if f != from && path.Base(f) == path.Base(from) && strings.HasPrefix(f, "repetitions/") {
			targets = append(targets, f)
		}
	}
	slices.Sort(targets)
	if len(targets) == 0 {
		return "evidence move", false
	}
	to := targets[rng.IntN(len(targets))]
	lines := strings.SplitAfter(string(mu.files[from]), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	i := rng.IntN(len(lines))
	orig := lines[i]
	line := orig
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	mu.files[from] = []byte(strings.Join(slices.Delete(lines, i, i+1), ""))
	fm := path.Dir(from) + "/merged"
	if k := indexLine(mu.files[fm], orig); k >= 0 {
		mu.files[fm] = slices.Concat(mu.files[fm][:k], mu.files[fm][k+len(orig):])
	}
	tl := strings.SplitAfter(string(mu.files[to]), "\n")
	if tl[len(tl)-1] == "" {
		tl = tl[:len(tl)-1]
	}
	j := rng.IntN(len(tl) + 1)
	tm := path.Dir(to) + "/merged"
	at := 0
	if j > 0 {
		if k := indexLine(mu.files[tm], tl[j-1]); k >= 0 {
			at = k + len(tl[j-1])
		}
	}
	mu.files[tm] = slices.Concat(mu.files[tm][:at], []byte(line), mu.files[tm][at:])
	mu.files[to] = []byte(strings.Join(slices.Insert(tl, j, line), ""))
	mu.desc = fmt.Sprintf("%s: line %d %q moved to %s before line %d", from, i+1, line, to, j+1)
	return "evidence move", true
}

// indexLine is where line stands in b as a whole line (at b's start or
// after a newline), or -1.
func indexLine(b []byte, line string) int {
	for off := 0; off <= len(b); {
		k := bytes.Index(b[off:], []byte(line))
		if k < 0 {
			return -1
		}
		if k += off; k == 0 || b[k-1] == '\n' {
			return k
		}
		off = k + 1
	}
	return -1
}
