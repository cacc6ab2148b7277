package attest_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

// The recipes of SPEC.md "Third-party verification", run as written
// against a test vector with the programs scripts/setup-thirdparty.sh
// installs (pinned: cosign v3.1.3 from the Go module proxy, sigstore-js
// from npm by testdata/thirdparty/sigstore-js/package-lock.json). Each
// must verify the vector and refuse it tampered.

const cosignVersion = "v3.1.3"

// thirdPartyTools returns the cosign binary and the sigstore-js
// node_modules directory; a missing one fails the test.
func thirdPartyTools(t *testing.T) (cosign, nodeModules string) {
	t.Helper()
	e2etest.Require(t, "tar", "zstd", "node")
	cosign = os.Getenv("DSHAUDIT_COSIGN")
	if cosign == "" {
		cosign = filepath.Join(e2etest.CacheDir(), "tools", "cosign-"+cosignVersion, "cosign")
	}
	lock, err := os.ReadFile("../testdata/thirdparty/sigstore-js/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lock)
	nodeModules = filepath.Join(e2etest.CacheDir(), "tools", "sigstore-js-"+hex.EncodeToString(sum[:])[:12], "node_modules")
	for _, p := range []string{cosign, filepath.Join(nodeModules, "@sigstore", "verify")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s is missing: run scripts/setup-thirdparty.sh (%v)", p, err)
		}
	}
	if out, err := exec.Command(cosign, "version").CombinedOutput(); err != nil || !strings.Contains(string(out), strings.TrimPrefix(cosignVersion, "v")) {
		t.Fatalf("%s is not cosign %s: %v\n%s", cosign, cosignVersion, err, out)
	}
	return cosign, nodeModules
}

// extract runs the recipe's first step: tar --zstd -xf BUNDLE manifest.json
// signature.sigstore.json, into a fresh directory.
func extract(t *testing.T, bundle string) string {
	t.Helper()
	dir := t.TempDir()
	abs, err := filepath.Abs(bundle)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("tar", "--zstd", "-xf", abs, "manifest.json", "signature.sigstore.json")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	return dir
}

// recipes runs each recipe in dir (manifest.json and
// signature.sigstore.json) with the key pub; nil error means verified.
func recipes(t *testing.T, cosign, nodeModules, dir, pub string) map[string]error {
	t.Helper()
	script, err := filepath.Abs("../testdata/thirdparty/sigstore-js/verify-bundle.js")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]error{}
	for name, cmd := range map[string]*exec.Cmd{
		"cosign": exec.Command(cosign, "verify-blob-attestation", "--bundle", "signature.sigstore.json",
			"--key", pub, "--type", "https://dshaudit.dev/evidence/v1", "--insecure-ignore-tlog=true", "manifest.json"),
		"sigstore-js": exec.Command("node", script, "manifest.json", "signature.sigstore.json", pub),
	} {
		cmd.Dir = dir
		// Offline, no user state: everything is on the command line.
		cmd.Env = append(os.Environ(), "HOME="+dir, "TUF_ROOT="+filepath.Join(dir, "tuf"), "NODE_PATH="+nodeModules)
		b, err := cmd.CombinedOutput()
		if err != nil {
			err = &recipeError{err, string(b)}
		}
		out[name] = err
	}
	return out
}

type recipeError struct {
	err error
	out string
}

func (e *recipeError) Error() string { return e.err.Error() + ": " + strings.TrimSpace(e.out) }

func TestThirdPartyRecipes(t *testing.T) {
	cosign, nm := thirdPartyTools(t)
	pub, err := filepath.Abs("../testdata/vectors/keys/signer.pub")
	if err != nil {
		t.Fatal(err)
	}
	const vector = "../testdata/vectors/pass.dshaudit.tar.zst"
	for name, err := range recipes(t, cosign, nm, extract(t, vector), pub) {
		if err != nil {
			t.Errorf("%s does not verify the pass vector: %v", name, err)
		}
	}

	tampered := map[string]func(t *testing.T, dir string){
		"manifest byte": func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "manifest.json"), func(b []byte) []byte {
				return []byte(strings.Replace(string(b), `"baseline"`, `"baselinX"`, 1))
			})
		},
		"signature byte": func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "signature.sigstore.json"), func(b []byte) []byte {
				var sb map[string]any
				if err := json.Unmarshal(b, &sb); err != nil {
					t.Fatal(err)
				}
				sig := sb["dsseEnvelope"].(map[string]any)["signatures"].([]any)[0].(map[string]any)
				raw, err := base64.StdEncoding.DecodeString(sig["sig"].(string))
				if err != nil {
					t.Fatal(err)
				}
				raw[len(raw)/2] ^= 1
				sig["sig"] = base64.StdEncoding.EncodeToString(raw)
				out, _ := json.Marshal(sb)
				return out
			})
		},
		"payload byte": func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "signature.sigstore.json"), func(b []byte) []byte {
				var sb map[string]any
				if err := json.Unmarshal(b, &sb); err != nil {
					t.Fatal(err)
				}
				env := sb["dsseEnvelope"].(map[string]any)
				raw, err := base64.StdEncoding.DecodeString(env["payload"].(string))
				if err != nil {
					t.Fatal(err)
				}
				env["payload"] = base64.StdEncoding.EncodeToString([]byte(strings.Replace(string(raw), "dshaudit", "dshaudiT", 1)))
				out, _ := json.Marshal(sb)
				return out
			})
		},
	}
	for what, mutate := range tampered {
		t.Run(what, func(t *testing.T) {
			dir := extract(t, vector)
			mutate(t, dir)
			for name, err := range recipes(t, cosign, nm, dir, pub) {
				if err == nil {
					t.Errorf("%s verifies the pass vector with a changed %s", name, what)
				} else if re := err.(*recipeError); name == "sigstore-js" && !strings.HasPrefix(re.out, "refused: ") || strings.Contains(re.out, "Cannot find module") {
					t.Errorf("%s did not refuse, it failed: %v", name, err)
				}
			}
		})
	}
	t.Run("other key", func(t *testing.T) {
		for name, err := range recipes(t, cosign, nm, extract(t, "../testdata/vectors/other_key.dshaudit.tar.zst"), pub) {
			if err == nil {
				t.Errorf("%s verifies a bundle signed by another key", name)
			}
		}
	})
}

func editFile(t *testing.T, path string, f func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	nb := f(b)
	if string(nb) == string(b) {
		t.Fatalf("%s: the edit changed nothing", path)
	}
	if err := os.WriteFile(path, nb, 0o644); err != nil {
		t.Fatal(err)
	}
}
