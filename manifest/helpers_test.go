package manifest_test

import (
	"path/filepath"
	"testing"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/internal/testutil/manifesttest"
	"github.com/dshaudit/dshaudit/manifest"
)

// sampleFiles is the shared sample evidence (manifesttest.SampleFiles).
func sampleFiles(t testing.TB) map[string][]byte {
	t.Helper()
	return manifesttest.SampleFiles(t, filepath.Join("..", "bundle", "testdata", "dsh-sample"))
}

// sampleManifest is the shared sample manifest listing files.
func sampleManifest(files map[string][]byte) *manifest.Manifest {
	m := manifesttest.SampleManifest()
	m.Files = bundle.FileList(files)
	return m
}

// newManifest is an empty manifest as Decode returns one.
func newManifest() *manifest.Manifest { return manifesttest.Empty() }
