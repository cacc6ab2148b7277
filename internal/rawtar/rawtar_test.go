package rawtar

import (
	"archive/tar"
	"bytes"
	"io"
	"testing"
)

// archive/tar reads what Block and PAXHeader write: names, sizes, the
// PAX path over the ustar name, and the checksum.
func TestArchiveTarReadsBlocks(t *testing.T) {
	data := Pad([]byte("hello"))
	var ar []byte
	ar = append(ar, Header{Name: "b", Prefix: "a", Typeflag: '0', Size: 5}.Block()...)
	ar = append(ar, data...)
	ar = append(ar, PAXHeader([2]string{"path", "日本/語"})...)
	ar = append(ar, Header{Name: "x", Typeflag: '0', Size: 5}.Block()...)
	ar = append(ar, data...)
	ar = append(ar, make([]byte, 2*BlockSize)...)
	if len(ar)%BlockSize != 0 {
		t.Fatalf("archive of %d bytes is not whole blocks", len(ar))
	}
	tr := tar.NewReader(bytes.NewReader(ar))
	for _, want := range []string{"a/b", "日本/語"} {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		body, _ := io.ReadAll(tr)
		if h.Name != want || h.Size != 5 || h.Mode != 0o644 || string(body) != "hello" {
			t.Errorf("read %q size %d mode %o body %q, want %q, 5, 644, hello", h.Name, h.Size, h.Mode, body, want)
		}
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("after the entries: %v, want EOF", err)
	}
}

func TestPAXRecordLength(t *testing.T) {
	// A record's length counts its own digits: a body of 9 bytes makes
	// 10, which has two digits, so 11.
	for body, want := range map[string]string{"b": "6 a=b\n", "bcdef": "11 a=bcdef\n", "bcd": "8 a=bcd\n"} {
		if got := string(PAXRecords([2]string{"a", body})); got != want {
			t.Errorf("a=%s: got %q, want %q", body, got, want)
		}
	}
}
