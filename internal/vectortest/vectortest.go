// Package vectortest loads the shared bundle test vectors
// (testdata/vectors, SPEC.md "Test vectors") for the tests of every
// package that reads them: verify, report and claim. It is imported only
// by tests.
package vectortest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
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

// Load reads dir/vectors.json (dir is the path of testdata/vectors from
// the test's package) and the signer's public key it names, and returns
// the vectors and a policy trusting that key.
func Load(t testing.TB, dir string) ([]Vector, attest.Policy) {
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
	key, err := attest.LoadPublicKey(filepath.Join(dir, idx.Key))
	if err != nil {
		t.Fatal(err)
	}
	return idx.Vectors, attest.Policy{Key: key}
}
