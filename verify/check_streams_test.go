package verify

import "testing"

func TestInterleaves(t *testing.T) {
	tests := []struct {
		name                   string
		merged, stdout, stderr string
		want                   bool
	}{
		{"stdout then stderr", "a\nb\nE\n", "a\nb\n", "E\n", true},
		{"lines interleaved", "a\nE\nb\nF\n", "a\nb\n", "E\nF\n", true},
		{"chunk cut inside a stdout line", "aa", "aa", "", true},
		{"stderr chunk inside a stdout line", "abE\ncd\n", "abcd\n", "E\n", true},
		{"same first byte in both streams", "x\nfar\nfoo\n", "x\nfoo\n", "far\n", true},
		{"empty", "", "", "", true},
		{"line dropped", "a\nE\n", "a\nb\n", "E\n", false},
		{"line added", "a\nb\nE\nX\n", "a\nb\n", "E\n", false},
		{"stdout reordered", "b\na\nE\n", "a\nb\n", "E\n", false},
		{"byte changed", "a\nE\nc\n", "a\nb\n", "E\n", false},
	}
	for _, tt := range tests {
		if _, got := Interleaves([]byte(tt.merged), []byte(tt.stdout), []byte(tt.stderr)); got != tt.want {
			t.Errorf("%s: Interleaves = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// BenchmarkInterleaves ties 8 MiB of alternating stdout and stderr lines.
func BenchmarkInterleaves(b *testing.B) {
	var out, errs, merged []byte
	for i := 0; len(merged) < 8<<20; i++ {
		o := []byte("stdout line with some text that is typical of pnpm output\n")
		e := []byte("(node:12) [DEP0169] DeprecationWarning: url.parse()\n")
		out, merged = append(out, o...), append(merged, o...)
		if i%3 == 0 {
			errs, merged = append(errs, e...), append(merged, e...)
		}
	}
	b.SetBytes(int64(len(merged)))
	for b.Loop() {
		if _, ok := Interleaves(merged, out, errs); !ok {
			b.Fatal("not an interleaving")
		}
	}
}
