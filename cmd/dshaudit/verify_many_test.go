package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/internal/testutil/schematest"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/verify"
)

// manyVectors is every test vector bundle and a path that does not
// exist, with the vectors' policy.
func manyVectors(t *testing.T) ([]string, verify.Options) {
	t.Helper()
	vecs, err := filepath.Glob(vecDir + "*" + manifest.BundleSuffix)
	if err != nil || len(vecs) < 10 {
		t.Fatalf("test vectors: %v %v", vecs, err)
	}
	key, err := attest.LoadPublicKey(vecKey)
	if err != nil {
		t.Fatal(err)
	}
	return append(vecs, filepath.Join(t.TempDir(), "missing"+manifest.BundleSuffix)), verify.Options{Policy: attest.Policy{Key: key}, Now: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)}
}

// TestJSONManyIsWriteJSON: the verify-summary object written bundle by
// bundle is, byte for byte, what writeJSON gives for the whole object.
func TestJSONManyIsWriteJSON(t *testing.T) {
	paths, opts := manyVectors(t)
	for _, ps := range [][]string{paths, paths[:1], nil} {
		var got bytes.Buffer
		if _, err := writeMany(context.Background(), newJSONMany(&got), nil, ps, opts, 2); err != nil {
			t.Fatal(err)
		}
		items := verify.All(context.Background(), ps, opts, 1)
		var want bytes.Buffer
		if err := writeJSON(&want, struct {
			MediaType     string         `json:"media_type"`
			SchemaVersion int            `json:"schema_version"`
			Bundles       []verify.Item  `json:"bundles"`
			Summary       verify.Summary `json:"summary"`
		}{SummaryMediaType, 1, items, verify.Summarise(items)}); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d bundles: streamed\n%s\nwhole\n%s", len(ps), got.String(), want.String())
		}
	}
}

// TestTextManyRows: one aligned row per bundle in path order, every
// bundle value escaped, then the counts and the failures.
func TestTextManyRows(t *testing.T) {
	paths, opts := manyVectors(t)
	odd := filepath.Join(t.TempDir(), "x\x1b[2J"+manifest.BundleSuffix)
	paths = append(paths, odd)
	var b bytes.Buffer
	sum, err := writeMany(context.Background(), newTextMany(&b, termtext.Style{Width: 200}, paths), nil, paths, opts, 2)
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "\x1b") {
		t.Fatalf("an escape character reached the output:\n%s", out)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "STATUS") {
		t.Fatalf("no header: %q", lines[0])
	}
	col := strings.Index(lines[0], "BUNDLE")
	at := 1 // each bundle's row starts on a later line than the one before
	for _, p := range paths {
		want := termtext.Escape(p)
		for at < len(lines) && !(len(lines[at]) > col && strings.HasPrefix(lines[at][col:], want)) {
			at++
		}
		if at == len(lines) {
			t.Fatalf("no row names %q in the BUNDLE column, in path order:\n%s", want, out)
		}
		at++
	}
	if sum.Bundles != len(paths) || sum.Verified == 0 || len(sum.Failed) == 0 || sum.Verified+len(sum.Failed) != len(paths) {
		t.Fatalf("summary %+v", sum)
	}
	counts := fmt.Sprintf("\n\n%d bundles, %d verified\n", sum.Bundles, sum.Verified)
	if i := strings.Index(out, counts); i < 0 || strings.Count(out[:i], "\n") < at-1 || !strings.Contains(out[i:], "failed (") {
		t.Errorf("no counts after the rows:\n%s", out)
	}
}

// verify DIR never skips silently: a symbolic link and a named pipe under
// the directory are rows and failures of the summary, and the exit status
// is 1, in text and in JSON (which matches its schema). SPEC.md "Many bundles".
func TestVerifyDirReportsSkipped(t *testing.T) {
	dir := t.TempDir()
	pass, err := os.ReadFile(vecDir + "pass.dshaudit.tar.zst")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pass"+manifest.BundleSuffix), pass, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(vecDir + "boot_failed.dshaudit.tar.zst")
	if err := os.Symlink(abs, filepath.Join(dir, "linked"+manifest.BundleSuffix)); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "verify", dir, "--key", vecKey)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"skipped", "a symbolic link to", "not followed under a directory", "a named pipe, not a regular file", "3 bundles, 1 verified", "failed (2)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, js, _ := runCLI(t, "verify", dir, "--key", vecKey, "--json")
	if code != 1 || !strings.Contains(js, `"status": "skipped"`) {
		t.Errorf("--json: exit %d\n%s", code, js)
	}
	schematest.Validate(t, "verify-summary", []byte(js))
	// Only links and special files under the directory: still reported.
	only := t.TempDir()
	os.Symlink(abs, filepath.Join(only, "x"+manifest.BundleSuffix))
	if code, out, _ := runCLI(t, "verify", only, "--key", vecKey); code != 1 || !strings.Contains(out, "skipped") {
		t.Errorf("only a link: exit %d\n%s", code, out)
	}
}
