package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	vecDir = "../../testdata/vectors/"
	vecKey = vecDir + "keys/signer.pub"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := execute(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestVerifyExitCodes(t *testing.T) {
	notBundle := filepath.Join(t.TempDir(), "x.tar.zst")
	os.WriteFile(notBundle, []byte("hello"), 0o644)
	for _, c := range []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"verified", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey}, 0, "RESULT: verified"},
		{"tampered", []string{"verify", vecDir + "edited_stdout.dshaudit.tar.zst", "--key", vecKey}, 1, "RESULT: tampered"},
		{"other key", []string{"verify", vecDir + "other_key.dshaudit.tar.zst", "--key", vecKey}, 1, "RESULT: signature invalid"},
		{"no policy", []string{"verify", vecDir + "pass.dshaudit.tar.zst"}, 2, ""},
		{"two policies", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--trusted-root", vecKey}, 2, ""},
		{"not a bundle", []string{"verify", notBundle, "--key", vecKey}, 2, ""},
		{"missing file", []string{"verify", "/nonexistent.tar.zst", "--key", vecKey}, 2, ""},
		{"claim backed", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--claim", "../../testdata/claims/backed-readme.md", "--package", "hello-dsh-plugin@1.0.0"}, 0, "CLAIM: claim backed"},
		// The README follows DSHIO/T 10 8.1 and names no package: a bundle
		// backs one package version's claim, so it is not backed unnamed.
		{"claim names no package", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--claim", "../../testdata/claims/backed-readme.md"}, 1, "CLAIM: claim not backed"},
		{"claim contradicts", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--claim", "../../testdata/claims/wrong-date.md"}, 1, "CLAIM: claim contradicts bundle"},
		{"many with failures", []string{"verify", vecDir, "--key", vecKey}, 1, "verified"},
		{"unknown flag", []string{"verify", "--bogus"}, 2, ""},
		{"zero limit", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--max-entries", "0"}, 2, ""},
		{"small limit", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--max-entry-size", "100"}, 1, "RESULT: tampered"},
		// The pass vector's dumps are about 16 KB: under a 1000-byte limit
		// T3 re-derives config_failed, against the claimed pass.
		{"small dump limit", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--max-dump-size", "1000"}, 1, "RESULT: verdict mismatch"},
		{"zero dump limit", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--max-dump-size", "0"}, 2, ""},
		// Its package.json is 233 bytes: under a 100-byte limit T0
		// re-derives unresolvable, against the claimed conforming T0.
		{"small static input limit", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--max-static-input", "100"}, 1, "RESULT: verdict mismatch"},
		{"static input limit at the real files", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--max-static-input", "4096"}, 0, "RESULT: verified"},
		{"zero static input limit", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--max-static-input", "0"}, 2, ""},
		// The pass vector finished on 2026-11-20: a clock of 2026-11-19
		// has it finish in the future, one of 2026-11-21 does not.
		{"clock before the run", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--now", "2026-11-19T00:00:00Z"}, 1, "finished_at: 2026-11-20"},
		{"clock after the run", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--now", "2026-11-21T00:00:00Z"}, 0, "RESULT: verified"},
		{"clock not RFC 3339", []string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--now", "yesterday"}, 2, ""},
		{"report clock not RFC 3339", []string{"report", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--now", "2026-13-01"}, 2, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errOut)
			}
			if !strings.Contains(out, c.out) {
				t.Errorf("stdout lacks %q:\n%s", c.out, out)
			}
			if c.code == 2 && errOut == "" {
				t.Errorf("usage error without a message on stderr")
			}
		})
	}
}

// The result records the clock the dates were checked against.
func TestVerifyRecordsNow(t *testing.T) {
	code, out, _ := runCLI(t, "verify", vecDir+"pass.dshaudit.tar.zst", "--key", vecKey, "--json", "--now", "2026-12-01T08:00:00+01:00")
	var r struct {
		Now string `json:"now"`
	}
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil || r.Now != "2026-12-01T07:00:00Z" {
		t.Fatalf("exit %d, %v, now %q, want 2026-12-01T07:00:00Z", code, err, r.Now)
	}
}

// bundle_sha256 is the digest of the whole file, hashed while it was read.
func TestVerifyBundleDigest(t *testing.T) {
	path := vecDir + "pass.dshaudit.tar.zst"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "verify", path, "--key", vecKey, "--json")
	var r struct {
		BundleSHA256 string `json:"bundle_sha256"`
	}
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	if want := fmt.Sprintf("sha256:%x", sha256.Sum256(raw)); r.BundleSHA256 != want {
		t.Errorf("bundle_sha256 %s, want %s", r.BundleSHA256, want)
	}
}

func TestVerifyJSON(t *testing.T) {
	code, out, _ := runCLI(t, "verify", vecDir+"swapped_verdict.dshaudit.tar.zst", "--key", vecKey, "--json")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var r struct {
		MediaType     string `json:"media_type"`
		SchemaVersion int    `json:"schema_version"`
		Status        string
		Findings      []struct{ Class, Field string }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if r.MediaType != "application/vnd.dshaudit.verify-result.v1+json" || r.SchemaVersion != 1 || r.Status != "verdict-mismatch" || len(r.Findings) == 0 {
		t.Errorf("unexpected result: %+v", r)
	}
}

func TestVerifyClaimFromTarball(t *testing.T) {
	// An npm-style tarball whose README is the backed claim, but whose
	// package.json names another version: not backed (DSHIO/T 10 7.2).
	dir := t.TempDir()
	readme, _ := os.ReadFile("../../testdata/claims/backed-readme.md")
	tgz := filepath.Join(dir, "hello-dsh-plugin-1.0.1.tgz")
	writeTgz(t, tgz, map[string][]byte{
		"package/package.json": []byte(`{"name":"hello-dsh-plugin","version":"1.0.1"}`),
		"package/README.md":    readme,
	})
	code, out, _ := runCLI(t, "verify", vecDir+"pass.dshaudit.tar.zst", "--key", vecKey, "--claim", tgz)
	if code != 1 || !strings.Contains(out, "hello-dsh-plugin@1.0.1") || !strings.Contains(out, "CLAIM: claim contradicts bundle") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func TestHelpHasExamples(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if c.Example == "" && !c.HasSubCommands() {
			t.Errorf("%s: --help has no examples", c.Name())
		}
		if !strings.Contains(c.Long, "Exit codes") && !c.HasSubCommands() {
			t.Errorf("%s: --help does not document exit codes", c.Name())
		}
	}
}
