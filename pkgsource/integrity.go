package pkgsource

import (
	"crypto/sha1"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/dshaudit/dshaudit/vsa"
)

// VerifyIntegrity checks tarball bytes against a registry's
// dist.integrity (an SRI list; at least one sha512 entry is required and
// one of them must match) and, when given, dist.shasum (hex sha1, checked
// too so a registry cannot pair a right sha512 with a wrong shasum).
// DESIGN.md "T0 inputs".
func VerifyIntegrity(what string, b []byte, integrity, shasum string) error {
	var want [][]byte
	for _, f := range strings.Fields(integrity) {
		alg, val, ok := strings.Cut(f, "-")
		if !ok || alg != "sha512" {
			continue
		}
		val, _, _ = strings.Cut(val, "?") // SRI options
		d, err := base64.StdEncoding.DecodeString(val)
		if err != nil || len(d) != sha512.Size {
			return fmt.Errorf("%w: %s: dist.integrity entry %q is not a sha512 digest", ErrIntegrity, what, f)
		}
		want = append(want, d)
	}
	if len(want) == 0 {
		return fmt.Errorf("%w: %s: dist.integrity %q has no sha512 entry; sha1-only packages are refused", ErrIntegrity, what, integrity)
	}
	got := sha512.Sum512(b)
	matched := false
	for _, w := range want {
		if subtle.ConstantTimeCompare(w, got[:]) == 1 {
			matched = true
		}
	}
	if !matched {
		return fmt.Errorf("%w: %s: sha512 is %s, dist.integrity says %q", ErrIntegrity, what, vsa.TarballOf(b).Integrity(), integrity)
	}
	if shasum != "" {
		s := sha1.Sum(b)
		if !strings.EqualFold(hex.EncodeToString(s[:]), shasum) {
			return fmt.Errorf("%w: %s: sha1 is %x, dist.shasum says %q", ErrIntegrity, what, s, shasum)
		}
	}
	return nil
}
