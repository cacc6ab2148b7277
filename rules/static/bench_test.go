package static

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkCheck measures one T0 run on the real hello plugin.
func BenchmarkCheck(b *testing.B) {
	in := fixtureInput(b, filepath.Join(vectorsDir, "hello"), DefaultBaseline, nil)
	b.ReportAllocs()
	for b.Loop() {
		Check(in)
	}
}

// BenchmarkCheckLargePatch measures T0 on a patch near MaxPatchBytes
// (about 10,000 entries) with a README near MaxREADMEBytes: the bound on
// what hostile input can cost.
func BenchmarkCheckLargePatch(b *testing.B) {
	var p strings.Builder
	p.WriteString("- insert:\n")
	for i := 0; p.Len() < MaxPatchBytes-200; i++ {
		fmt.Fprintf(&p, "    - id: entry-%d\n      name: \"@scope/pkg-%d\"\n      disabled: false\n      config: {a: 1, b: [x, y]}\n", i, i)
	}
	readme := "## Permissions\n" + strings.Repeat("- Why network: a long line of explanation text here.\n", MaxREADMEBytes/60)
	in := Input{
		PackageJSON:   []byte(`{"main":"lib/index.js","files":["lib","cordis.patch.yml"],"engines":{"dsh":">=0.2.0-rc.2"},"dsh":{"bundle":{"patch":"./cordis.patch.yml"},"permissions":["network","shell"]}}`),
		Patch:         []byte(p.String()),
		README:        []byte(readme),
		InstalledSize: -1,
		EntrySchema:   []byte(`{"properties":{"id":{"type":"string"},"name":{"type":"string"},"disabled":{"type":"boolean"},"config":{"type":"object"}}}`),
	}
	b.SetBytes(int64(len(in.Patch) + len(in.README)))
	b.ReportAllocs()
	for b.Loop() {
		Check(in)
	}
}

// BenchmarkFuzzCheckBody runs FuzzCheck's body over its seed inputs, one
// seed per iteration: what one fuzzing execution costs, without the
// fuzzing engine (CONTRIBUTING.md "Fuzzing").
func BenchmarkFuzzCheckBody(b *testing.B) {
	seeds := checkSeeds(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		fuzzCheckOnce(b, seeds[i%len(seeds)])
		i++
	}
}

// BenchmarkFuzzFieldsBody runs FuzzFields' body over its seed inputs.
func BenchmarkFuzzFieldsBody(b *testing.B) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		fuzzFieldsOnce(b, fieldsSeeds[i%len(fieldsSeeds)])
		i++
	}
}

// BenchmarkFuzzRangesBody runs FuzzRanges' body over its seed inputs.
func BenchmarkFuzzRangesBody(b *testing.B) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		fuzzRangesOnce(b, rangesSeeds[i%len(rangesSeeds)])
		i++
	}
}
