package verify

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkPrintedVersions searches a stream of n lines, each naming
// another pnpm version, for the versions printed (checkFingerprint). Its
// ns/version stays flat from n=2048 to n=8192 where the versions found
// are kept in a set; a search of the list found per version made it grow
// with n (DESIGN.md "Work an author can multiply").
func BenchmarkPrintedVersions(b *testing.B) {
	for _, n := range []int{2048, 8192} {
		var s strings.Builder
		for i := range n {
			fmt.Fprintf(&s, "Done in 1s using pnpm v9.%d.%d\n", i/100, i%100)
		}
		out := []byte(s.String())
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if got := printed(out, pnpmPrinted); len(got) != n {
					b.Fatalf("%d versions, want %d", len(got), n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/version")
		})
	}
}
