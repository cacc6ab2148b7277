// Package e2etest owns what the end-to-end tests share: the switch that
// turns them on (Require), finding the real sandbox image that
// scripts/setup.sh built, the counter fixture, and an exact one-byte edit
// of a bundle's evidence. Its subpackage sandbox sets up the real podman
// engine and a signing key. It is imported by tests only.
//
// End-to-end tests run only when DSHAUDIT_E2E is set (scripts/test.sh and
// .ci/run set it), so `go test ./...` passes on a machine without podman.
// Under DSHAUDIT_E2E a missing real part is a test failure, never a skip.
package e2etest

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/klauspost/compress/zstd"

	"github.com/dshaudit/dshaudit/bundle"
)

// EnvVar turns the end-to-end tests on when set to anything but "" or "0".
const EnvVar = "DSHAUDIT_E2E"

// Enabled reports whether EnvVar turns the end-to-end tests on.
func Enabled() bool {
	v := strings.TrimSpace(os.Getenv(EnvVar))
	return v != "" && v != "0"
}

// Require marks t as an end-to-end test. Without DSHAUDIT_E2E it skips t,
// saying how to run it; with DSHAUDIT_E2E every tool named that is not on
// PATH fails t, naming it. It is the only place an end-to-end test may
// skip: every later check for a real part (podman, the sandbox image, the
// registry) fails loudly.
func Require(t testing.TB, tools ...string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("end-to-end test: set %s=1 to run it with the real parts (scripts/test.sh does; scripts/setup.sh installs them)", EnvVar)
		return
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s=1 and this end-to-end test needs %s, which is not on PATH (scripts/setup.sh installs it): %v", EnvVar, tool, err)
		}
	}
}

// SandboxImage is the sandbox image reference: $DSHAUDIT_E2E_IMAGE, else
// the file scripts/setup.sh writes ($DSHAUDIT_CACHE, $XDG_CACHE_HOME/dshaudit
// or ~/.cache/dshaudit, then sandbox-image.ref). Missing is a failure.
func SandboxImage(t testing.TB) string {
	t.Helper()
	Require(t)
	if ref := strings.TrimSpace(os.Getenv("DSHAUDIT_E2E_IMAGE")); ref != "" {
		return ref
	}
	p := filepath.Join(CacheDir(), "sandbox-image.ref")
	b, err := os.ReadFile(p)
	if err != nil || strings.TrimSpace(string(b)) == "" {
		t.Fatalf("end-to-end tests need the sandbox image: run scripts/setup.sh (it writes %s) or set DSHAUDIT_E2E_IMAGE=NAME@sha256:…: %v", p, err)
	}
	return strings.TrimSpace(string(b))
}

// CacheDir is scripts/setup.sh's cache directory.
func CacheDir() string {
	if c := os.Getenv("DSHAUDIT_CACHE"); c != "" {
		return c
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "dshaudit")
}

// EditEvidenceByte returns the bundle raw with one byte of the evidence
// file at path changed and nothing else: the tar stream inside is the
// original's with that one byte flipped (the entry's header, and so its
// recorded size, unchanged), compressed again with the bundle's own zstd
// settings. It fails the test when recompressing the unedited tar does
// not give back the same bytes, since the edit would then not be the only
// change.
func EditEvidenceByte(t testing.TB, raw []byte, path string) []byte {
	t.Helper()
	dec, err := zstd.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	tarBytes, err := io.ReadAll(dec)
	dec.Close()
	if err != nil {
		t.Fatal(err)
	}
	compress := func(b []byte) []byte {
		var buf bytes.Buffer
		enc, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(bundle.EncoderLevel), zstd.WithWindowSize(bundle.EncoderWindow),
			zstd.WithEncoderConcurrency(1), zstd.WithConcurrentBlocks(false), zstd.WithEncoderCRC(true),
			zstd.WithZeroFrames(true), zstd.WithLowerEncoderMem(false))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := enc.Write(b); err != nil {
			t.Fatal(err)
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	if !bytes.Equal(compress(tarBytes), raw) {
		t.Fatal("recompressing the unedited bundle does not give the same bytes: the edit would not be the only change")
	}
	br := bytes.NewReader(tarBytes)
	tr := tar.NewReader(br)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("no entry %q with content in the bundle: %v", path, err)
		}
		if h.Name != path || h.Size == 0 {
			continue
		}
		// archive/tar reads headers exactly; the content starts here.
		at := len(tarBytes) - br.Len() + int(h.Size)/2
		edited := bytes.Clone(tarBytes)
		edited[at] ^= 0x20
		return compress(edited)
	}
}

var counterField = regexp.MustCompile(`"dshauditFixtureCounter": "[^"]*"`)

// CounterFixture copies the unstable fixture plugin from dir into a
// temporary directory with its dshauditFixtureCounter set to
// http://addr/, the counter server whose answers the fixture's
// postinstall obeys (testdata/plugins/README.md), and returns the copy.
func CounterFixture(t testing.TB, dir, addr string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "unstable")
	if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	pj := filepath.Join(dst, "package.json")
	b, err := os.ReadFile(pj)
	if err != nil {
		t.Fatal(err)
	}
	if !counterField.Match(b) {
		t.Fatal("unstable/package.json has no dshauditFixtureCounter")
	}
	b = counterField.ReplaceAll(b, []byte(fmt.Sprintf(`"dshauditFixtureCounter": "http://%s/"`, addr)))
	if err := os.WriteFile(pj, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// EngineName is the engine the end-to-end tests run on:
// $DSHAUDIT_E2E_ENGINE (podman or docker), podman by default.
// scripts/test.sh runs the engine, runner and replay tests on both.
func EngineName() string {
	if e := os.Getenv("DSHAUDIT_E2E_ENGINE"); e != "" {
		return e
	}
	return "podman"
}

// CachedLayout returns the OCI layout in the image cache (images/<key>/,
// written by dshaudit image build) that holds the manifest digest d.
func CachedLayout(d v1.Hash) (string, error) {
	dirs, _ := filepath.Glob(filepath.Join(CacheDir(), "images", "*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "index.json"))
		if err == nil && bytes.Contains(b, []byte(d.String())) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no OCI layout of %s under %s (run scripts/setup.sh)", d, filepath.Join(CacheDir(), "images"))
}

// AssertNoContainers fails the test when the engine under test
// (EngineName) still has a container of one of the names.
func AssertNoContainers(t testing.TB, names []string) {
	t.Helper()
	out, err := exec.Command(EngineName(), "ps", "-a", "--format", "{{.Names}}").Output()
	if err != nil {
		t.Fatalf("%s ps -a: %v", EngineName(), err)
	}
	live := map[string]bool{}
	for _, n := range strings.Fields(string(out)) {
		live[n] = true
	}
	for _, n := range names {
		if live[n] {
			t.Errorf("container %s was left behind", n)
		}
	}
}
