package verify

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// TestRebuildReproducesValidVectors: every valid vector's manifest is
// what assemble.Build makes of its recorded inputs and its evidence, byte
// for byte (SPEC.md "Rebuilding the manifest"), so that the rebuild
// refuses no true bundle.
func TestRebuildReproducesValidVectors(t *testing.T) {
	paths, pol := validVectorPaths(t)
	for _, p := range paths {
		b := loadBase(t, p, pol)
		raw, err := manifest.Encode(b.m)
		if err != nil {
			t.Fatal(err)
		}
		in, ok := recordedInput(b.m, b.files, rules.Limits{})
		if !ok {
			t.Fatalf("%s: inputs not recorded", b.name)
		}
		m, _, err := assemble.Build(in)
		if err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		got, err := manifest.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, raw) {
			t.Errorf("%s: the rebuilt manifest differs: %v", b.name, manifestDiff(raw, got))
		}
	}
}

// TestRebuildNamesWhatNoCheckNames: a duration 1 ms off its times is
// within the time check's tolerance (the writer truncates), but it is
// not what the writer's own assembly computes: only the rebuild names
// it, by JSON Pointer.
func TestRebuildNamesWhatNoCheckNames(t *testing.T) {
	paths, pol := validVectorPaths(t)
	signer, err := attest.LoadSigner(vectorsDir + "/keys/signer.key")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(paths, func(p string) bool { return bytes.HasSuffix([]byte(p), []byte("/pass.dshaudit.tar.zst")) })
	b := loadBase(t, paths[i], pol)
	m := cloneManifest(b.m)
	m.Repetitions[0].Stages[1].DurationMS++
	archive, err := signMutant(mutant{m: m, files: b.files}, signer)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(context.Background(), "pass", bytes.NewReader(archive), Options{Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Field != "/repetitions/0/stages/1/duration_ms" || rep.Findings[0].Class != ClassVerdictMismatch {
		t.Fatalf("want one verdict-mismatch naming /repetitions/0/stages/1/duration_ms; findings:\n%s", findingsText(rep))
	}
}

func TestManifestDiff(t *testing.T) {
	a := `{"a":{"b/c":1,"d~e":[1,2,3]},"f":"x","g":true}`
	b := `{"a":{"b/c":2,"d~e":[1,3]},"g":true,"h":null}`
	got := manifestDiff([]byte(a), []byte(b))
	want := []fieldDiff{
		{"/a/b~1c", "1", "2"},
		{"/a/d~0e/1", "2", "3"},
		{"/a/d~0e/2", "3", absent},
		{"/f", `"x"`, absent},
		{"/h", absent, "null"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("manifestDiff = %v, want %v", got, want)
	}
}

// TestRebuildClaimsTheVerifiersDerivation: the rebuild claims the
// derivation the verification made (assemble.Input.Derived) instead of
// deriving again; on every test vector whose rebuild runs, the manifest
// it makes is byte for byte the one Build makes deriving for itself.
func TestRebuildClaimsTheVerifiersDerivation(t *testing.T) {
	vs, pol := loadVectors(t)
	rebuilt := 0
	for _, v := range vs {
		raw, err := os.ReadFile(filepath.Join(vectorsDir, v.File))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Verify(context.Background(), v.File, bytes.NewReader(raw), Options{Policy: pol, KeepEvidence: true})
		if err != nil || rep.Evidence == nil {
			continue
		}
		if slices.ContainsFunc(rep.Findings, func(f Finding) bool { return f.Clause != rebuildClause }) {
			continue // the rebuild did not run
		}
		arc := rep.Evidence.Archive
		m, err := manifest.Decode(arc.RawManifest)
		if err != nil {
			t.Fatal(err)
		}
		in, ok := recordedInput(m, arc.Files, rules.Limits{})
		if !ok {
			continue
		}
		own, _, err := assemble.Build(in)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		d := rep.Evidence.Derived
		in.Derived = &d
		given, _, err := assemble.Build(in)
		if err != nil {
			t.Fatalf("%s: with the verifier's derivation: %v", v.Name, err)
		}
		a, _ := manifest.Encode(own)
		b, _ := manifest.Encode(given)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the rebuild with the verifier's derivation differs from Build's own: %v", v.Name, manifestDiff(a, b))
		}
		rebuilt++
	}
	t.Logf("%d of %d vectors rebuilt both ways", rebuilt, len(vs))
	if rebuilt < 10 {
		t.Errorf("only %d vectors reached the rebuild", rebuilt)
	}
}
