package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormaliseDshTree(t *testing.T) {
	stage := t.TempDir()
	dir := filepath.Join(stage, "opt", "dsh")
	bin := filepath.Join(dir, "node_modules", ".bin")
	must(t, os.MkdirAll(bin, 0o755))
	shim := "#!/bin/sh\nexport NODE_PATH=\"" + dir + "/node_modules/.pnpm/node_modules\"\nexec node \"$basedir/../x/bin.js\" \"$@\"\n"
	must(t, os.WriteFile(filepath.Join(bin, "dsh"), []byte(shim), 0o755))
	modules := "layoutVersion: 5\nprunedAt: Sun, 29 Nov 2026 18:31:16 GMT\nstoreDir: /root/.cache/dshaudit/pnpm-store/v3\nvirtualStoreDir: .pnpm\n"
	must(t, os.WriteFile(filepath.Join(dir, "node_modules", ".modules.yaml"), []byte(modules), 0o644))
	must(t, os.Symlink(".pnpm/x/node_modules/x", filepath.Join(dir, "node_modules", "x")))

	must(t, normaliseDshTree(dir, stage))
	if err := checkNoHostPaths(dir, stage, "/root/.cache/dshaudit/pnpm-store"); err != nil {
		t.Fatalf("after normalisation: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(bin, "dsh"))
	if !strings.Contains(string(b), `NODE_PATH="/opt/dsh/node_modules/.pnpm/node_modules"`) {
		t.Errorf("shim not rewritten to /opt/dsh: %s", b)
	}
	fi, _ := os.Stat(filepath.Join(bin, "dsh"))
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("shim mode %v, want 0755 kept", fi.Mode())
	}
	m, _ := os.ReadFile(filepath.Join(dir, "node_modules", ".modules.yaml"))
	want := "layoutVersion: 5\nprunedAt: " + fixedPrunedAt + "\nstoreDir: " + fixedStoreDir + "\nvirtualStoreDir: .pnpm\n"
	if string(m) != want {
		t.Errorf(".modules.yaml:\n%s\nwant:\n%s", m, want)
	}
}

func TestHostPathLeakFails(t *testing.T) {
	stage := t.TempDir()
	dir := filepath.Join(stage, "opt", "dsh")
	must(t, os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "lib", "config.json"), []byte(`{"root":"`+stage+`/opt/dsh"}`), 0o644))
	must(t, os.Symlink(stage+"/elsewhere", filepath.Join(dir, "abs")))
	must(t, normaliseDshTree(dir, stage)) // only .bin and .modules.yaml are rewritten
	err := checkNoHostPaths(dir, stage)
	if !errors.Is(err, ErrHostPathLeak) {
		t.Fatalf("leak not detected: %v", err)
	}
	for _, f := range []string{"lib/config.json", "abs"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error does not name %s: %v", f, err)
		}
	}
}

func TestLockPackages(t *testing.T) {
	lock := []byte(`lockfileVersion: '9.0'
packages:
  '@deepseek-ai/dsh@0.1.0-rc.8':
    resolution: {integrity: sha512-abc}
  zod@4.4.3:
    resolution: {integrity: sha512-def}
`)
	pkgs, integ, err := lockPackages(lock, "0.1.0-rc.8")
	must(t, err)
	if integ != "sha512-abc" || len(pkgs) != 2 || pkgs[0].Name != "@deepseek-ai/dsh" || pkgs[1].Version != "4.4.3" {
		t.Fatalf("got %v %q", pkgs, integ)
	}
	if _, _, err := lockPackages(lock, "0.2.2-rc.1"); !errors.Is(err, ErrInstall) {
		t.Fatalf("missing dsh not an install error: %v", err)
	}
}

func TestExtractRefusesEscape(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	must(t, tw.WriteHeader(&tar.Header{Name: "package/../../evil", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg}))
	tw.Write([]byte("x"))
	tw.Close()
	zw.Close()
	f := filepath.Join(t.TempDir(), "p.tgz")
	must(t, os.WriteFile(f, b.Bytes(), 0o644))
	dest := filepath.Join(t.TempDir(), "out")
	err := extractNPMTarball(f, dest)
	if _, serr := os.Stat(filepath.Join(filepath.Dir(dest), "evil")); serr == nil {
		t.Fatal("entry escaped the destination")
	}
	// "package/../../evil" cleans to "evil", which has no top directory
	// to strip: it is dropped, nothing is written.
	if err != nil {
		t.Fatalf("extract: %v", err)
	}
	if ents, _ := os.ReadDir(dest); len(ents) != 0 {
		t.Fatalf("wrote %v", ents)
	}
}

func TestSRI(t *testing.T) {
	if _, err := sriHex("sha1-abc"); !errors.Is(err, ErrBadInput) {
		t.Errorf("sha1 accepted: %v", err)
	}
	h, err := sriHex("sha512-XOTgTOMhTYDGTyyBoJzEd5Oh7FkvpgRRN1PDzycxCJbYp13XGs18v58KHsfZNYg/1iCtMEUcjbi+N/23ZcUfkA==")
	must(t, err)
	if len(h) != 128 {
		t.Errorf("hex %q", h)
	}
}
