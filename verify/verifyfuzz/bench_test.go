package verifyfuzz

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/vectortest"
	"github.com/dshaudit/dshaudit/verify"
)

// BenchmarkVerifyDamaged is what one FuzzVerify execution costs apart
// from the fuzzing engine: verify.Verify over 2,000 test vectors each
// damaged by one to three byte flips, overwrites, insertions or
// deletions (a fixed seed, so every run verifies the same inputs). The
// engine adds its own pass over the coverage counters (DESIGN.md
// "Fuzzing").
func BenchmarkVerifyDamaged(b *testing.B) {
	vs, _ := vectortest.Index(b, vectorsDir)
	var seeds [][]byte
	for _, v := range vs {
		raw, err := os.ReadFile(filepath.Join(vectorsDir, v.File))
		if err != nil {
			b.Fatal(err)
		}
		seeds = append(seeds, raw)
	}
	r := rand.New(rand.NewSource(1))
	ins := make([][]byte, 2000)
	for i := range ins {
		s := bytes.Clone(seeds[r.Intn(len(seeds))])
		for range 1 + r.Intn(3) {
			p := r.Intn(len(s) - 8)
			switch r.Intn(4) {
			case 0:
				s[p] ^= 1 << r.Intn(8)
			case 1:
				s[p] = byte(r.Intn(256))
			case 2:
				s = append(s[:p], append([]byte{byte(r.Intn(256))}, s[p:]...)...)
			case 3:
				s = append(s[:p], s[p+1+r.Intn(8):]...)
			}
		}
		ins[i] = s
	}
	opts := verify.Options{Policy: statementOnly{}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// As in FuzzVerify: an error only for unreadable input, never
		// with a report.
		if rep, err := verify.Verify(context.Background(), "damaged", bytes.NewReader(ins[i%len(ins)]), opts); err != nil && (rep != nil || !errors.Is(err, verify.ErrUnreadable)) {
			b.Fatal(err)
		}
	}
}
