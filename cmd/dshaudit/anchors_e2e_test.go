package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"github.com/dshaudit/dshaudit/vsa"
)

// The anchors' tools, pinned (scripts/setup-thirdparty.sh builds cosign,
// scripts/setup-anchors.sh the other two).
const (
	cosignVersion       = "v3.1.3"
	slsaVerifierVersion = "v2.7.1"
	actionlintVersion   = "v1.7.12"
)

// anchorTool is the path of a pinned tool: $DSHAUDIT_<NAME>, else
// $CACHE/tools/NAME-VERSION/NAME. Missing is a failure, never a skip.
func anchorTool(t *testing.T, name, version string) string {
	t.Helper()
	e2etest.Require(t)
	env := "DSHAUDIT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	if p := os.Getenv(env); p != "" {
		return p
	}
	p := filepath.Join(e2etest.CacheDir(), "tools", name+"-"+version, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s %s is missing (scripts/setup-anchors.sh and scripts/setup-thirdparty.sh build the anchors' tools, or set %s): %v", name, version, env, err)
	}
	return p
}

// runTool runs an anchor's program offline, with no user state.
func runTool(t *testing.T, dir, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "TUF_ROOT="+filepath.Join(dir, "tuf"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func lastLineOf(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestSummaryAnchorsE2E: the summary of the pass vector's bundle passes
// cosign verify-blob-attestation (Sigstore bundle) and slsa-verifier
// verify-vsa (its bare DSSE envelope: slsa-verifier v2.7.1 reads no
// Sigstore bundle), for both key types; the summary of a tampered bundle
// says FAILED, which slsa-verifier refuses and cosign shows (it checks
// signature, type and subject, not the result).
func TestSummaryAnchorsE2E(t *testing.T) {
	cosign, slsaVerifier := anchorTool(t, "cosign", cosignVersion), anchorTool(t, "slsa-verifier", slsaVerifierVersion)
	for _, kt := range attest.KeyTypes {
		t.Run(string(kt), func(t *testing.T) {
			dir := t.TempDir()
			kf, err := attest.WriteKeyPair(dir, "registry", kt)
			if err != nil {
				t.Fatal(err)
			}
			pass, _ := filepath.Abs(vecDir + "pass.dshaudit.tar.zst")
			tampered, _ := filepath.Abs(vecDir + "edited_stdout.dshaudit.tar.zst")
			write := func(bundle, name string, want int) {
				t.Helper()
				code, _, stderr := runCLI(t, "verify", bundle, "--key", vecKey, "--summary", filepath.Join(dir, name+".json"),
					"--summary-dsse", filepath.Join(dir, name+".dsse.json"), "--summary-key", kf.PrivatePath)
				if code != want {
					t.Fatalf("verify %s: exit %d, want %d: %s", bundle, code, want, stderr)
				}
			}
			write(pass, "pass", 0)
			write(tampered, "failed", 1)

			runCosign := func(summary, typ, blob string) (string, error) {
				return runTool(t, dir, cosign, "verify-blob-attestation", "--bundle", summary, "--key", kf.PublicPath,
					"--type", typ, "--insecure-ignore-tlog=true", blob)
			}
			if out, err := runCosign("pass.json", vsa.PredicateType, pass); err != nil {
				t.Fatalf("cosign refused the pass summary: %v\n%s", err, out)
			} else {
				t.Logf("cosign, pass summary: %s", lastLineOf(out))
			}
			if out, err := runCosign("pass.json", "https://dshaudit.dev/evidence/v1", pass); err == nil {
				t.Fatalf("cosign accepted the summary as another predicate type:\n%s", out)
			}
			if out, err := runCosign("pass.json", vsa.PredicateType, tampered); err == nil {
				t.Fatalf("cosign accepted the summary for another artifact:\n%s", out)
			}
			// cosign checks signature, type and subject; the result is in
			// the signed predicate it verified.
			if out, err := runCosign("failed.json", vsa.PredicateType, tampered); err != nil {
				t.Fatalf("cosign refused the FAILED summary's signature: %v\n%s", err, out)
			}
			if p := summaryStatement(t, filepath.Join(dir, "failed.json")).Predicate; p.VerificationResult != vsa.Failed {
				t.Fatalf("tampered bundle's summary says %q", p.VerificationResult)
			}

			slsa := func(envelope, bundle string, levels ...string) (string, error) {
				args := []string{"verify-vsa", "--attestation-path", envelope, "--public-key-path", kf.PublicPath,
					"--subject-digest", "sha256:" + fileSHA256(t, bundle), "--verifier-id", vsa.DefaultVerifierID,
					"--resource-uri", "pkg:npm/hello-dsh-plugin@1.0.0"}
				for _, l := range levels {
					args = append(args, "--verified-level", l)
				}
				return runTool(t, dir, slsaVerifier, args...)
			}
			if out, err := slsa("pass.dsse.json", pass, vsa.DynamicLevel("pass"), vsa.StaticConforming); err != nil {
				t.Fatalf("slsa-verifier refused the pass summary: %v\n%s", err, out)
			} else {
				t.Logf("slsa-verifier, pass summary: %s", lastLineOf(out))
			}
			for name, c := range map[string]struct {
				envelope, bundle string
				levels           []string
			}{
				"FAILED summary":  {"failed.dsse.json", tampered, nil},
				"missing level":   {"pass.dsse.json", pass, []string{vsa.DynamicLevel("boot_failed")}},
				"other artifact":  {"pass.dsse.json", tampered, nil},
				"Sigstore bundle": {"pass.json", pass, nil},
			} {
				if out, err := slsa(c.envelope, c.bundle, c.levels...); err == nil {
					t.Errorf("slsa-verifier accepted: %s\n%s", name, out)
				} else {
					t.Logf("slsa-verifier, %s: %s", name, lastLineOf(out))
				}
			}
			if code, out, _ := runCLI(t, "verify-summary", filepath.Join(dir, "failed.json"), "--key", kf.PublicPath, "--artifact", tampered); code != 1 {
				t.Fatalf("verify-summary accepted the FAILED summary:\n%s", out)
			}
		})
	}
}

// checkSummaryAnchors writes the verification summary of a bundle that
// verifies with pub and checks that dshaudit verify-summary, cosign and
// slsa-verifier all accept it with the level DSHIO_DYNAMIC_PASS. The
// end-to-end tests call it on the bundles of their real runs of the pass
// fixture, so the anchors see a summary of real evidence (with the
// tarball subject) at no extra run.
func checkSummaryAnchors(t *testing.T, bundle, pub, purl string) {
	t.Helper()
	cosign, slsaVerifier := anchorTool(t, "cosign", cosignVersion), anchorTool(t, "slsa-verifier", slsaVerifierVersion)
	dir := t.TempDir()
	kf, err := attest.WriteKeyPair(dir, "registry", attest.Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	summary, envelope := filepath.Join(dir, "s.json"), filepath.Join(dir, "s.dsse.json")
	if code, _, stderr := runCLI(t, "verify", bundle, "--key", pub, "--summary", summary, "--summary-dsse", envelope, "--summary-key", kf.PrivatePath); code != 0 {
		t.Fatalf("verify --summary: exit %d: %s", code, stderr)
	}
	st := summaryStatement(t, summary)
	if st.Predicate.ResourceURI != purl || len(st.Subject) != 2 {
		t.Fatalf("summary of %s: resourceUri %q, %d subjects (want %q and the tarball and the bundle)", bundle, st.Predicate.ResourceURI, len(st.Subject), purl)
	}
	if code, out, _ := runCLI(t, "verify-summary", summary, "--key", kf.PublicPath, "--artifact", bundle, "--resource-uri", purl, "--level", vsa.DynamicLevel("pass")); code != 0 {
		t.Fatalf("verify-summary refused:\n%s", out)
	}
	if out, err := runTool(t, dir, cosign, "verify-blob-attestation", "--bundle", summary, "--key", kf.PublicPath,
		"--type", vsa.PredicateType, "--insecure-ignore-tlog=true", bundle); err != nil {
		t.Fatalf("cosign refused: %v\n%s", err, out)
	}
	if out, err := runTool(t, dir, slsaVerifier, "verify-vsa", "--attestation-path", envelope, "--public-key-path", kf.PublicPath,
		"--subject-digest", "sha256:"+fileSHA256(t, bundle), "--verifier-id", vsa.DefaultVerifierID,
		"--resource-uri", purl, "--verified-level", vsa.DynamicLevel("pass")); err != nil {
		t.Fatalf("slsa-verifier refused: %v\n%s", err, out)
	}
	t.Logf("summary of %s accepted by verify-summary, cosign and slsa-verifier", filepath.Base(bundle))

	// The package subject is the tarball the run tested, held in the
	// bundle (SPEC.md "The tested tarball"): the three accept it and
	// refuse another tarball of the same name and version.
	tested := heldTarball(t, bundle, dir)
	other := otherPayload(t, tested)
	if code, out, _ := runCLI(t, "verify", bundle, "--key", pub, "--artifact", tested); code != 0 {
		t.Fatalf("verify --artifact the tested tarball: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "verify", bundle, "--key", pub, "--artifact", other); code != 1 {
		t.Fatalf("verify --artifact another tarball: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		tgz    string
		accept bool
	}{{tested, true}, {other, false}} {
		code, out, _ := runCLI(t, "verify-summary", summary, "--key", kf.PublicPath, "--artifact", c.tgz, "--resource-uri", purl)
		if (code == 0) != c.accept {
			t.Errorf("verify-summary --artifact %s: exit %d, accept %v\n%s", c.tgz, code, c.accept, out)
		}
		cout, cerr := runTool(t, dir, cosign, "verify-blob-attestation", "--bundle", summary, "--key", kf.PublicPath,
			"--type", vsa.PredicateType, "--insecure-ignore-tlog=true", c.tgz)
		if (cerr == nil) != c.accept {
			t.Errorf("cosign verify-blob-attestation %s: %v, accept %v\n%s", c.tgz, cerr, c.accept, cout)
		}
		sout, serr := runTool(t, dir, slsaVerifier, "verify-vsa", "--attestation-path", envelope, "--public-key-path", kf.PublicPath,
			"--subject-digest", "sha256:"+fileSHA256(t, c.tgz), "--verifier-id", vsa.DefaultVerifierID,
			"--resource-uri", purl, "--verified-level", vsa.DynamicLevel("pass"))
		if (serr == nil) != c.accept {
			t.Errorf("slsa-verifier verify-vsa --subject-digest of %s: %v, accept %v\n%s", c.tgz, serr, c.accept, sout)
		}
	}
}

// otherPayload writes beside tgz another tarball of the same package:
// its entries and one more file, so the same name and version with a
// different payload.
func otherPayload(t *testing.T, tgz string) string {
	t.Helper()
	b, err := os.ReadFile(tgz)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(tw, tr); err != nil {
			t.Fatal(err)
		}
	}
	extra := []byte("export const payload = 'another';\n")
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "package/lib/other.js", Size: int64(len(extra)), Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
	tw.Write(extra)
	tw.Close()
	zw.Close()
	p := filepath.Join(t.TempDir(), filepath.Base(tgz))
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
