package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportExitCodes(t *testing.T) {
	dir := t.TempDir()
	tested := heldTarball(t, vecDir+"pass.dshaudit.tar.zst", dir)
	other := filepath.Join(dir, "other.tgz")
	os.WriteFile(other, []byte("another tarball"), 0o644)
	notReplay := filepath.Join(dir, "replay.json")
	os.WriteFile(notReplay, []byte(`{"media_type":"application/json"}`), 0o644)
	for _, c := range []struct {
		name string
		args []string
		code int
		out  string // stdout holds this
		file string // and this file was written
	}{
		{"verified", []string{"report", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "-o", filepath.Join(dir, "pass.html")}, 0, "verified, pass", "pass.html"},
		{"boot_failed", []string{"report", vecDir + "boot_failed.dshaudit.tar.zst", "--key", vecKey, "-o", filepath.Join(dir, "bf.html")}, 0, "verified, boot_failed", "bf.html"},
		{"tampered still written", []string{"report", vecDir + "edited_stdout.dshaudit.tar.zst", "--key", vecKey, "-o", filepath.Join(dir, "t.html")}, 1, "tampered, no verified verdict", "t.html"},
		{"to stdout", []string{"report", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey}, 0, "<!DOCTYPE html>", ""},
		{"claim backed", []string{"report", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--claim", "../../testdata/claims/backed-readme.md", "--package", "hello-dsh-plugin@1.0.0"}, 0, "<strong>claim backed</strong>", ""},
		{"claim contradicts", []string{"report", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--claim", "../../testdata/claims/wrong-date.md"}, 1, "<strong>claim contradicts bundle</strong>", ""},
		{"site", []string{"report", vecDir, "--key", vecKey, "-o", filepath.Join(dir, "site")}, 1, "not verified", "site/index.html"},
		{"artifact tested", []string{"report", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--artifact", tested, "-o", filepath.Join(dir, "a.html")}, 0, "verified, pass", "a.html"},
		{"artifact other", []string{"report", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--artifact", other, "-o", filepath.Join(dir, "o.html")}, 1, "", "o.html"},
		{"artifact with many", []string{"report", vecDir, "--key", vecKey, "-o", dir, "--artifact", tested}, 2, "", ""},
		{"no policy", []string{"report", vecDir + "pass.dshaudit.tar.zst"}, 2, "", ""},
		{"many without -o", []string{"report", vecDir, "--key", vecKey}, 2, "", ""},
		{"claim with many", []string{"report", vecDir, "--key", vecKey, "-o", dir, "--claim", "../../testdata/claims/backed-readme.md"}, 2, "", ""},
		{"not a replay", []string{"report", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--replay", notReplay}, 2, "", ""},
		{"missing file", []string{"report", "/nonexistent.dshaudit.tar.zst", "--key", vecKey}, 2, "", ""},
		{"zero context", []string{"report", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey, "--context", "0"}, 2, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%.2000s\nstderr:\n%s", code, c.code, out, errOut)
			}
			if !strings.Contains(out, c.out) {
				t.Errorf("stdout lacks %q:\n%.2000s", c.out, out)
			}
			if c.code == 2 && errOut == "" {
				t.Errorf("usage error without a message on stderr")
			}
			if c.file != "" {
				if _, err := os.Stat(filepath.Join(dir, c.file)); err != nil {
					t.Errorf("not written: %v", err)
				}
			}
		})
	}
	bundles, _ := filepath.Glob(vecDir + "*.dshaudit.tar.zst")
	pages, _ := filepath.Glob(filepath.Join(dir, "site", "*.html"))
	if len(pages) != len(bundles)+1 {
		t.Errorf("site has %d pages, want %d and an index", len(pages), len(bundles))
	}
}

// TestReportSiteDeterministic: the same directory gives the same files.
func TestReportSiteDeterministic(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	runCLI(t, "report", vecDir, "--key", vecKey, "-o", a)
	runCLI(t, "report", vecDir, "--key", vecKey, "-o", b)
	names, _ := filepath.Glob(filepath.Join(a, "*.html"))
	if len(names) == 0 {
		t.Fatal("nothing written")
	}
	for _, n := range names {
		x, _ := os.ReadFile(n)
		y, err := os.ReadFile(filepath.Join(b, filepath.Base(n)))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs", filepath.Base(n))
		}
	}
}

func TestPageName(t *testing.T) {
	used := map[string]bool{}
	for _, c := range []struct{ path, want string }{
		{"a/pass.dshaudit.tar.zst", "pass.html"},
		{"b/pass.dshaudit.tar.zst", "pass-2.html"},
		{"c/pass.dshaudit.tar.zst", "pass-3.html"},
		{"x.tar.zst", "x.tar.zst.html"},
	} {
		if got := pageName(c.path, used); got != c.want {
			t.Errorf("pageName(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}
