package pkgsource

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"github.com/dshaudit/dshaudit/vsa"
	"strings"
	"testing"
)

func TestVerifyIntegrity(t *testing.T) {
	b := []byte("tarball bytes")
	good := vsa.TarballOf(b).Integrity()
	s1 := sha1.Sum(b)
	shasum := hex.EncodeToString(s1[:])
	if err := VerifyIntegrity("t", b, good, shasum); err != nil {
		t.Fatalf("good: %v", err)
	}
	if err := VerifyIntegrity("t", b, "sha1-AAAA "+good+"?opt", ""); err != nil {
		t.Fatalf("SRI list with options: %v", err)
	}
	other := vsa.TarballOf([]byte("other")).Integrity()
	for name, c := range map[string]struct{ integrity, shasum, msg string }{
		"mismatch":   {other, "", "dist.integrity says"},
		"sha1 only":  {"sha1-" + strings.Repeat("A", 28), "", "no sha512"},
		"missing":    {"", shasum, "no sha512"},
		"garbled":    {"sha512-!!!", "", "not a sha512 digest"},
		"bad shasum": {good, strings.Repeat("0", 40), "dist.shasum says"},
	} {
		err := VerifyIntegrity("tarball of x", b, c.integrity, c.shasum)
		if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v; want ErrIntegrity mentioning %q", name, err, c.msg)
		}
	}
}
