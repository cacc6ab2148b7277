//go:build cosign

// Interoperability with cosign, the reference Sigstore client. Run with
//
//	COSIGN=/path/to/cosign go test -tags cosign -run Cosign ./attest/
//
// cosign is not packaged in Debian 12; build it with
// `go install github.com/sigstore/cosign/v3/cmd/cosign@v3.1.3`. Without
// COSIGN (or cosign on PATH) the test fails: it never skips.
package attest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/root"

	"github.com/dshaudit/dshaudit/attest"
)

func cosignBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("COSIGN"); p != "" {
		return p
	}
	p, err := exec.LookPath("cosign")
	if err != nil {
		t.Fatalf("cosign not found: set COSIGN or put cosign on PATH (%v)", err)
	}
	return p
}

func runCosign(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(cosignBinary(t), args...)
	cmd.Dir = dir
	// No network, no user state: everything cosign needs is on the command line.
	cmd.Env = append(os.Environ(), "HOME="+dir, "TUF_ROOT="+filepath.Join(dir, "tuf"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestCosignVerifiesKeySignedBundle(t *testing.T) {
	for _, kt := range attest.KeyTypes {
		t.Run(string(kt), func(t *testing.T) {
			dir := t.TempDir()
			kf, err := attest.WriteKeyPair(dir, "dshaudit", kt)
			if err != nil {
				t.Fatal(err)
			}
			s, err := attest.LoadSigner(kf.PrivatePath)
			if err != nil {
				t.Fatal(err)
			}
			sig := signManifest(t, s, testManifest)
			os.WriteFile(filepath.Join(dir, "manifest.json"), testManifest, 0o644)
			os.WriteFile(filepath.Join(dir, "signature.sigstore.json"), sig, 0o644)
			os.WriteFile(filepath.Join(dir, "edited.json"), edit(testManifest, 0), 0o644)

			args := []string{"verify-blob-attestation", "--bundle", "signature.sigstore.json",
				"--key", kf.PublicPath, "--type", attest.PredicateType,
				"--insecure-ignore-tlog=true"}
			out, err := runCosign(t, dir, append(args, "manifest.json")...)
			if err != nil {
				t.Fatalf("cosign rejected a dshaudit signature: %v\n%s", err, out)
			}
			t.Logf("cosign: %s", strings.TrimSpace(out))
			if out, err := runCosign(t, dir, append(args, "edited.json")...); err == nil {
				t.Fatalf("cosign accepted an edited manifest:\n%s", out)
			} else {
				t.Logf("edited manifest: cosign says %s", lastLine(out))
			}
			otherType := append([]string(nil), args...)
			otherType[6] = "https://example.com/other/v1"
			if out, err := runCosign(t, dir, append(otherType, "manifest.json")...); err == nil {
				t.Fatalf("cosign accepted another predicate type:\n%s", out)
			} else {
				t.Logf("other --type: cosign says %s", lastLine(out))
			}
			other, err := attest.WriteKeyPair(dir, "other", kt)
			if err != nil {
				t.Fatal(err)
			}
			wrong := append([]string(nil), args...)
			wrong[4] = other.PublicPath
			if out, err := runCosign(t, dir, append(wrong, "manifest.json")...); err == nil {
				t.Fatalf("cosign accepted the wrong key:\n%s", out)
			} else {
				t.Logf("wrong key: cosign says %s", lastLine(out))
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestCosignVerifiesKeylessBundle checks the virtual Sigstore bundle and
// the trusted_root.json the keyless tests use are real formats: cosign
// accepts them with the same identity policy.
func TestCosignVerifiesKeylessBundle(t *testing.T) {
	dir := t.TempDir()
	vs := newVirtualSigstore(t)
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, vs.FulcioCertificateAuthorities(),
		rawLogIDs(t, vs.CTLogs()), vs.TimestampingAuthorities(), rawLogIDs(t, vs.RekorLogs()))
	if err != nil {
		t.Fatal(err)
	}
	js, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "trusted_root.json"), js, 0o644)
	os.WriteFile(filepath.Join(dir, "manifest.json"), testManifest, 0o644)
	os.WriteFile(filepath.Join(dir, "keyless.json"), keylessBundle(t, vs, testIdentity, testIssuer, testManifest), 0o644)
	args := []string{"verify-blob-attestation", "--bundle", "keyless.json", "--trusted-root", "trusted_root.json",
		"--certificate-identity", testIdentity, "--certificate-oidc-issuer", testIssuer,
		"--insecure-ignore-sct", "--type", attest.PredicateType, "manifest.json"}
	out, err := runCosign(t, dir, args...)
	if err != nil {
		t.Fatalf("cosign rejected the keyless bundle: %v\n%s", err, out)
	}
	t.Logf("cosign: %s", lastLine(out))
	args[6] = "mallory@example.com"
	if out, err := runCosign(t, dir, args...); err == nil {
		t.Fatalf("cosign accepted another identity:\n%s", out)
	} else {
		t.Logf("other identity: cosign says %s", lastLine(out))
	}
}
