package rules

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkFuzzFirstErrorBody is one FuzzFirstError execution without the
// fuzzing engine, over its seeds (the real stage outputs, cut to
// fuzzOutputLimit as the target cuts them).
func BenchmarkFuzzFirstErrorBody(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(evidenceDir, "*/t*.std*"))
	if len(files) == 0 {
		b.Fatal("no seed files")
	}
	var outs [][]byte
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		if len(raw) > fuzzOutputLimit {
			raw = raw[:fuzzOutputLimit]
		}
		outs = append(outs, raw)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		out := outs[n%len(outs)]
		n++
		_ = FirstError(out)
		_ = isFatalLine(string(out))
		_ = DeriveT4(Observation{Stage: T4, Stdout: out, Liveness: &Liveness{AliveAtEnd: true, AliveFor: 14 * time.Second}}, 0)
		_ = DeriveT2(helloSub, Observation{Stage: T2, Stdout: out})
		_ = DeriveT1(helloSub, Observation{Stage: T1, Stdout: out, ProfilePackageJSON: out})
	}
}
