package rules

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func BenchmarkDeriveT3RealDump(b *testing.B) {
	dump := mustReadB(b, filepath.Join(evidenceDir, "hello", "t3.stdout"))
	o := Observation{Stage: T3, Stdout: dump}
	b.SetBytes(int64(len(dump)))
	for b.Loop() {
		if r := DeriveT3(helloEntries, o, Limits{}); r.Status != StagePassed {
			b.Fatal(r.Reasons)
		}
	}
}

func BenchmarkFirstErrorRealStderr(b *testing.B) {
	out := mustReadB(b, filepath.Join(evidenceDir, "throws", "t4.stderr"))
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		if FirstError(out) == "" {
			b.Fatal("empty")
		}
	}
}

func BenchmarkDeriveT4RealLog(b *testing.B) {
	out := mustReadB(b, filepath.Join(evidenceDir, "throws", "t4.stderr"))
	o := Observation{Stage: T4, ExitCode: 1, Stderr: out, Liveness: &Liveness{}}
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		_ = DeriveT4(o, 12*time.Second)
	}
}

func mustReadB(b *testing.B, p string) []byte {
	b.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	return data
}
