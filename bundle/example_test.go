package bundle_test

import (
	"bytes"
	"fmt"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
)

// The runner collects evidence, lists it in the manifest, encodes the
// manifest (attest signs these bytes) and writes the bundle; verify reads
// it back, decodes the manifest and compares the files.
func Example() {
	var b bundle.Builder
	if err := b.Add("r1/t1/stdout", []byte("Packages: +1\n")); err != nil {
		panic(err)
	}
	m := &manifest.Manifest{MediaType: manifest.MediaType, SchemaVersion: manifest.SchemaVersion}
	m.Files = b.Files()
	raw, err := manifest.Encode(m)
	if err != nil {
		panic(err)
	}
	var out bytes.Buffer
	if err := b.Write(&out, raw, nil); err != nil { // nil: unsigned
		panic(err)
	}

	a, err := bundle.Read(&out, bundle.DefaultLimits())
	if err != nil {
		panic(err)
	}
	got, err := manifest.Decode(a.RawManifest)
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Order, len(bundle.CompareFiles(got, a)), a.RawSignature == nil)

	a.Files["r1/t1/stdout"] = []byte("Packages: +2\n")
	for _, f := range bundle.CompareFiles(got, a) {
		fmt.Println(f.Class, f.Path)
	}
	// Output:
	// [r1/t1/stdout] 0 true
	// changed r1/t1/stdout
}
