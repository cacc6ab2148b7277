package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/rules/jsyaml"
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

// BenchmarkPatchRowsKeys reads a patch whose root row of n keys is the
// target of later items: one item setting all n keys again ("one item"),
// and n items setting one key each ("n items"). Its ns/key stays flat
// from n=4096 to n=16384 where the keys are indexed (rowKeys); a search
// of the row's keys per key made it grow with n (DESIGN.md "Work an
// author can multiply").
func BenchmarkPatchRowsKeys(b *testing.B) {
	for _, shape := range []string{"one item", "n items"} {
		for _, n := range []int{4096, 16384} {
			var p strings.Builder
			p.WriteString("- insert:\n    - id: r\n      name: x\n")
			for i := range n {
				fmt.Fprintf(&p, "      k%d: 0\n", i)
			}
			if shape == "one item" {
				p.WriteString("- id: r\n")
				for i := range n {
					fmt.Fprintf(&p, "  k%d: 1\n", i)
				}
			} else {
				for i := range n {
					fmt.Fprintf(&p, "- {id: r, k%d: 1}\n", i)
				}
			}
			patch := []byte(p.String())
			b.Run(fmt.Sprintf("%s/n=%d", shape, n), func(b *testing.B) {
				for b.Loop() {
					rows, err := PatchRows(patch, Limits{MaxStaticInput: int64(len(patch))})
					if err != nil || len(rows) != 1 || len(rows[0].Keys) != n+2 {
						b.Fatalf("%d rows, %v", len(rows), err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
			})
		}
	}
}

// BenchmarkValueDiffKeys compares two equal mappings of n keys given in
// opposite orders (ValueDiff, T3's dump entry against its patch row). Its
// ns/key stays flat from n=4096 to n=16384 where one side's keys are
// indexed (keyIndex); a search of the other side's keys per key made it
// grow with n (DESIGN.md "Work an author can multiply").
func BenchmarkValueDiffKeys(b *testing.B) {
	for _, n := range []int{4096, 16384} {
		x := &jsyaml.Value{Kind: jsyaml.Map}
		y := &jsyaml.Value{Kind: jsyaml.Map}
		for i := range n {
			x.Keys = append(x.Keys, fmt.Sprintf("k%d", i))
			x.Vals = append(x.Vals, &jsyaml.Value{Kind: jsyaml.Number, Num: float64(i)})
			y.Keys = append(y.Keys, fmt.Sprintf("k%d", n-1-i))
			y.Vals = append(y.Vals, &jsyaml.Value{Kind: jsyaml.Number, Num: float64(n - 1 - i)})
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if d := ValueDiff(x, y); d != "" {
					b.Fatal(d)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
		})
	}
}
