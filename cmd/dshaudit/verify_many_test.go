package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/internal/termtext"
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
	return append(vecs, filepath.Join(t.TempDir(), "missing"+manifest.BundleSuffix)), verify.Options{Policy: attest.Policy{Key: key}}
}

// TestJSONManyIsWriteJSON: the verify-summary object written bundle by
// bundle is, byte for byte, what writeJSON gives for the whole object.
func TestJSONManyIsWriteJSON(t *testing.T) {
	paths, opts := manyVectors(t)
	for _, ps := range [][]string{paths, paths[:1], nil} {
		var got bytes.Buffer
		if _, err := writeMany(context.Background(), newJSONMany(&got), ps, opts, 2); err != nil {
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
	sum, err := writeMany(context.Background(), newTextMany(&b, termtext.Style{Width: 200}, paths), paths, opts, 2)
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
