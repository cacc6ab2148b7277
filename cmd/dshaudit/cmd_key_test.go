package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
)

func runKeyCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestKeyGenerate(t *testing.T) {
	for _, kt := range attest.KeyTypes {
		t.Run(string(kt), func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runKeyCLI(t, "key", "generate", "--out-dir", dir, "--name", "release", "--type", string(kt))
			if code != ExitOK {
				t.Fatalf("exit %d, stderr %s", code, errOut)
			}
			priv, pub := filepath.Join(dir, "release.key"), filepath.Join(dir, "release.pub")
			m := regexp.MustCompile(`(?m)^fingerprint: (sha256:[0-9a-f]{64})$`).FindStringSubmatch(out)
			if m == nil || !strings.Contains(out, "private key: "+priv+"\n") || !strings.Contains(out, "public key:  "+pub+"\n") ||
				!strings.Contains(out, "type:        "+string(kt)+"\n") {
				t.Fatalf("stdout:\n%s", out)
			}
			if !strings.Contains(errOut, "not encrypted") {
				t.Errorf("stderr lacks the unencrypted-key warning: %q", errOut)
			}
			for path, mode := range map[string]os.FileMode{priv: 0o600, pub: 0o644} {
				st, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if st.Mode().Perm() != mode {
					t.Errorf("%s: mode %v, want %v", path, st.Mode().Perm(), mode)
				}
			}
			k, err := attest.LoadPublicKey(pub)
			if err != nil {
				t.Fatal(err)
			}
			if k.Fingerprint() != m[1] || k.Type() != kt {
				t.Errorf("printed fingerprint %s, key file has %s (%s)", m[1], k.Fingerprint(), k.Type())
			}
			if _, err := attest.LoadSigner(priv); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestKeyGenerateDefaults(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, out, errOut := runKeyCLI(t, "key", "generate")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	k, err := attest.LoadPublicKey(filepath.Join(dir, "dshaudit.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if k.Type() != attest.Ed25519 || !strings.Contains(out, k.Fingerprint()) {
		t.Errorf("default key: type %s, stdout %s", k.Type(), out)
	}
}

func TestKeyGenerateRefusesOverwrite(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runKeyCLI(t, "key", "generate", "--out-dir", dir); code != ExitOK {
		t.Fatalf("first generate: exit %d: %s", code, errOut)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "dshaudit.key"))
	code, out, errOut := runKeyCLI(t, "key", "generate", "--out-dir", dir)
	if code != ExitUsage {
		t.Fatalf("second generate: exit %d, want %d", code, ExitUsage)
	}
	if out != "" || !strings.Contains(errOut, "already exists") || !strings.Contains(errOut, filepath.Join(dir, "dshaudit.key")) {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "dshaudit.key")); !bytes.Equal(before, after) {
		t.Error("private key was overwritten")
	}
	// Only the public key left over from elsewhere: still refused, and
	// no private key is created beside it.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "dshaudit.pub"), []byte("x"), 0o644)
	if code, _, _ := runKeyCLI(t, "key", "generate", "--out-dir", other); code != ExitUsage {
		t.Errorf("existing .pub: exit %d, want %d", code, ExitUsage)
	}
	if _, err := os.Stat(filepath.Join(other, "dshaudit.key")); err == nil {
		t.Error("a private key was written beside an existing public key")
	}
}

func TestKeyGenerateUsageErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for name, args := range map[string][]string{
		"bad type":        {"key", "generate", "--out-dir", dir, "--type", "rsa"},
		"bad name":        {"key", "generate", "--out-dir", dir, "--name", "../x"},
		"missing out-dir": {"key", "generate", "--out-dir", filepath.Join(dir, "nope")},
		"out-dir is file": {"key", "generate", "--out-dir", file},
		"extra arg":       {"key", "generate", "extra"},
		"no subcommand":   {"key"},
		"unknown flag":    {"key", "generate", "--force"},
	} {
		t.Run(name, func(t *testing.T) {
			if code, _, errOut := runKeyCLI(t, args...); code != ExitUsage {
				t.Errorf("exit %d, want %d (stderr %s)", code, ExitUsage, errOut)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("usage errors left %d files", len(entries)-1)
	}
}

func TestKeyGenerateHelp(t *testing.T) {
	code, out, _ := runKeyCLI(t, "key", "generate", "--help")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"Exit codes:", "Examples:", "dshaudit key generate --out-dir keys", "0600", "ed25519", "ecdsa-p256", "NOT encrypted"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}
