// Package vectortest loads the shared bundle test vectors
// (testdata/vectors, SPEC.md "Test vectors") and reads bundles for the
// tests of every package that reads them: verify, report, claim and cmd. It is imported only
// by tests.
package vectortest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
)

// Vector is one entry of testdata/vectors/vectors.json.
type Vector struct {
	Name, File, Description string
	// Status is the expected verify result ("verified", …) and Verdict
	// the expected derived verdict.
	Status, Verdict string
	// Classes are the finding classes the vector gives.
	Classes []string
	// Class and Field, on a lying vector, are the finding it must give.
	Class, Field string
}

// MinVectors is fewer vectors than the index has ever held: a loader that
// finds fewer is reading the wrong file.
const MinVectors = 20

// Index reads dir/vectors.json (dir is the path of testdata/vectors from
// the test's package) and returns the vectors and the path of the
// signer's public key it names. The caller loads the key with attest:
// this package does not import attest, so a test binary that uses it
// without attest (verify/verifyfuzz) does not link the Sigstore stack.
func Index(t testing.TB, dir string) ([]Vector, string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "vectors.json"))
	if err != nil {
		t.Fatalf("test vectors missing (run go generate ./verify/): %v", err)
	}
	var idx struct {
		Key     string
		Vectors []Vector
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatalf("%s: %v", filepath.Join(dir, "vectors.json"), err)
	}
	if len(idx.Vectors) < MinVectors {
		t.Fatalf("only %d vectors in %s", len(idx.Vectors), dir)
	}
	return idx.Vectors, filepath.Join(dir, idx.Key)
}

// ReadBundle reads the bundle file at path with the default reader
// limits and decodes its manifest, failing the test on any error. It
// returns the file's bytes too, for a test that also verifies them.
func ReadBundle(t testing.TB, path string) ([]byte, *bundle.Archive, *manifest.Manifest) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	arc, err := bundle.Read(bytes.NewReader(raw), bundle.DefaultLimits())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	m, err := manifest.Decode(arc.RawManifest)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return raw, arc, m
}
