package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// Options.DecodeAhead changes how a bundle is decoded, never the report:
// every test vector, each cut short at two lengths, with its content
// checksum changed and with a byte of its compressed content changed,
// verifies to the same report, byte for byte as JSON, both ways
// (bundle's TestReadOptionsAgree reads many more damaged frames).
func TestDecodeAheadSameReport(t *testing.T) {
	// Verify decodes ahead only with more than one CPU to run on.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	vs, pol := loadVectors(t)
	for _, v := range vs {
		raw, err := os.ReadFile(filepath.Join(vectorsDir, v.File))
		if err != nil {
			t.Fatal(err)
		}
		sum, mid := bytes.Clone(raw), bytes.Clone(raw)
		sum[len(sum)-1] ^= 0xff
		mid[len(mid)/2] ^= 0x5a
		for name, in := range map[string][]byte{"whole": raw, "half": raw[:len(raw)/2], "cut by 5": raw[:len(raw)-5], "checksum changed": sum, "content changed": mid} {
			var out [2][]byte
			for i, ahead := range []bool{false, true} {
				rep, err := Verify(context.Background(), v.File, bytes.NewReader(in), Options{Policy: pol, DecodeAhead: ahead, Now: fixedNow})
				if err != nil {
					out[i] = []byte("error: " + err.Error())
					continue
				}
				if out[i], err = json.Marshal(rep); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(out[0], out[1]) {
				t.Errorf("%s, %s: inline\n%s\nahead\n%s", v.File, name, out[0], out[1])
			}
		}
	}
}

// fixedNow is the verifier's clock of tests that compare two reports,
// which record it (Report.Now).
var fixedNow = time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
