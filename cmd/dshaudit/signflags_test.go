package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/dshaudit/dshaudit/manifest"
)

// TestOldKeySpellings: the signing key's old name (--key on run, and on
// batch a --key without --signing-key or --keyless) and replay's old
// pair (--pub PUB --key KEY) still work, each with a warning on stderr;
// mixing old and new names is a usage error.
// Every case stops at a usage error found after the keys are read, so
// the message shows which flag each key was taken from.
func TestOldKeySpellings(t *testing.T) {
	key, pub := runTestKey(t)
	dir := t.TempDir()
	b := filepath.Join(dir, "b"+manifest.BundleSuffix)
	if err := os.WriteFile(b, []byte("not a bundle"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := filepath.Join(dir, "r"+manifest.BundleSuffix)
	const (
		runWarning     = "--key is deprecated for the signing key; use --signing-key"
		pubWarning     = "--pub is deprecated: use --key"
		oldPairWarning = "--pub PUB --key KEY is the old spelling"
	)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"run --key", []string{"run", "./x", "--image", fakePinned, "--key", key, "--out", "/nonexistent/dir/b.tar.zst"}, []string{runWarning, "not writable"}},
		{"run --key unreadable", []string{"run", "./x", "--image", fakePinned, "--key", "/nonexistent"}, []string{runWarning, "usage error: --key: "}},
		{"run --key and --signing-key", []string{"run", "./x", "--image", fakePinned, "--key", key, "--signing-key", key}, []string{"give --signing-key only"}},
		{"batch --key unreadable", []string{"batch", "x@1.0.0", "--image", batchImage, "--key", "/nonexistent", "--out", dir}, []string{runWarning, "usage error: --key: "}},
		{"replay --pub --key", []string{"replay", b, "--pub", pub, "--key", key, "--out", r}, []string{oldPairWarning, "original bundle unreadable"}},
		{"replay --pub --key, pub unreadable", []string{"replay", b, "--pub", key, "--key", key, "--out", r}, []string{oldPairWarning, "usage error: --pub: "}},
		{"replay --pub --signing-key", []string{"replay", b, "--pub", pub, "--signing-key", key, "--out", r}, []string{pubWarning, "original bundle unreadable"}},
		{"replay --pub --key --signing-key", []string{"replay", b, "--pub", pub, "--key", pub, "--signing-key", key}, []string{"--pub with --key is the old spelling"}},
	} {
		code, out, errs := runRunCLI(t, tc.args...)
		if code != ExitUsage || out != "" {
			t.Errorf("%s: exit %d, stdout %q; want exit %d and nothing on stdout", tc.name, code, out, ExitUsage)
		}
		for _, w := range tc.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: stderr %q does not say %q", tc.name, errs, w)
			}
		}
	}
	assertAbsent(t, r)
}

// TestTrustFlagsAreTheSame: verify, verify-summary, report, replay and
// batch take the same trust flags, with the same usage text; run, replay
// and batch the same --signing-key. The old names are hidden from --help.
func TestTrustFlagsAreTheSame(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	want := map[string]string{}
	trust := []string{"key", "trusted-root", "certificate-identity", "certificate-identity-regexp",
		"certificate-oidc-issuer", "certificate-oidc-issuer-regexp", "insecure-any-identity",
		"insecure-ignore-sct", "insecure-ignore-tlog"}
	for _, name := range []string{"verify", "verify-summary", "report", "replay", "batch"} {
		c := walk(root, []string{name})
		n := 0
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if slices.Contains(trust, f.Name) {
				n++
				if w, ok := want[f.Name]; ok && w != f.Usage {
					t.Errorf("%s --%s: %q, but %q elsewhere", name, f.Name, f.Usage, w)
				}
				want[f.Name] = f.Usage
			}
		})
		if n != len(trust) {
			t.Errorf("%s has %d of the %d trust flags", name, n, len(trust))
		}
	}
	for _, name := range []string{"run", "replay", "batch"} {
		c := walk(root, []string{name})
		if c.Flags().Lookup("signing-key") == nil {
			t.Errorf("%s has no --signing-key", name)
		}
		hidden := map[string]string{"run": "--key ", "replay": "--pub "}[name]
		if hidden != "" && strings.Contains(c.Flags().FlagUsages(), hidden) {
			t.Errorf("%s --help lists the deprecated %s", name, hidden)
		}
	}
}
