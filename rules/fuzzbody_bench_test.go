package rules

import "testing"

// BenchmarkFuzzFirstErrorBody runs FuzzFirstError's body over its seed
// inputs (the real stage outputs), one seed per iteration: what one
// fuzzing execution costs, without the fuzzing engine (README
// "Benchmarks").
func BenchmarkFuzzFirstErrorBody(b *testing.B) {
	seeds := evidenceSeeds(b, "*/t*.std*")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		fuzzFirstErrorOnce(b, seeds[i%len(seeds)])
		i++
	}
}
