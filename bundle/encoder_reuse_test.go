package bundle

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestEncoderReuseSameBytes: a pooled encoder, reset after writing other
// frames (larger, smaller, failed half-way), writes the same bytes as a
// new encoder, so reusing encoders cannot change a bundle (SPEC.md
// "Archive encoding": the bytes are a function of the contents).
func TestEncoderReuseSameBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sets := [][]entry{
		{{path: "a", data: []byte("one")}},
		{{path: "big", data: noise(rng, 3<<20)}, {path: "text", data: bytes.Repeat([]byte("line of text\n"), 20000)}},
		{},
		{{path: "b", data: bytes.Repeat([]byte{0}, 9<<20)}},
		{{path: "c", data: noise(rng, 1000)}, {path: "d", data: []byte("x")}},
	}
	fresh := func(es []entry) []byte {
		var size countingWriter
		if err := writeTar(&size, es); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		enc, err := newEncoder(nil)
		if err != nil {
			t.Fatal(err)
		}
		enc.ResetContentSize(&buf, int64(size))
		if err := writeTar(enc, es); err != nil {
			t.Fatal(err)
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	// Leave an encoder in the pool that failed half-way through a frame.
	if err := writeEntries(failingWriter{}, sets[1]); err == nil {
		t.Fatal("a write to a failing writer succeeded")
	}
	for round := range 3 {
		for i, es := range sets {
			var buf bytes.Buffer
			if err := writeEntries(&buf, es); err != nil {
				t.Fatal(err)
			}
			if want := fresh(es); !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("round %d, set %d: a reused encoder wrote %d bytes unlike a new one's %d", round, i, buf.Len(), len(want))
			}
		}
	}
}

func noise(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

type failingWriter struct{}

func (failingWriter) Write(p []byte) (int, error) { return 0, bytes.ErrTooLarge }
