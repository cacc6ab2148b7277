package manifest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestEncodeManifestGolden(t *testing.T) {
	raw, err := manifest.Encode(sampleManifest(sampleFiles(t)))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "manifest.golden.json")
	if *update {
		if err := os.WriteFile(golden, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("golden file: %v (run with -update to create it)", err)
	}
	if !bytes.Equal(raw, want) {
		t.Errorf("canonical encoding changed; %s", manifest.FirstDifference(raw, want))
	}
}

func TestEncodeManifestForm(t *testing.T) {
	files := sampleFiles(t)
	m := sampleManifest(files)
	// Give Files out of order and leave some lists nil.
	m.Files[0], m.Files[len(m.Files)-1] = m.Files[len(m.Files)-1], m.Files[0]
	before := append([]manifest.File(nil), m.Files...)
	m.Deviations = nil
	m.Conditions.Fixed = nil
	raw, err := manifest.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Files, before) {
		t.Error("Encode reordered the caller's Files")
	}
	s := string(raw)
	for _, want := range []string{
		"{\n  \"media_type\": \"" + manifest.MediaType + "\",\n",
		`"fixed": [],`, `"deviations": [],`,
		`"value": "ci-1 <&>"`, // no HTML escaping
	} {
		if !strings.Contains(s, want) {
			t.Errorf("encoding lacks %q", want)
		}
	}
	if !strings.HasSuffix(s, "}\n") || strings.HasSuffix(s, "\n\n") {
		t.Error("encoding does not end with exactly one newline")
	}
	back, err := manifest.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(back.Files); i++ {
		if back.Files[i-1].Path >= back.Files[i].Path {
			t.Fatalf("files not sorted: %q before %q", back.Files[i-1].Path, back.Files[i].Path)
		}
	}
}

func TestManifestRoundTrip(t *testing.T) {
	m := sampleManifest(sampleFiles(t))
	raw, err := manifest.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := manifest.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if c := manifest.Canonical(m); !reflect.DeepEqual(&c, back) {
		t.Errorf("round trip changed the manifest:\n got %+v\nwant %+v", back, c)
	}
	again, err := manifest.Encode(back)
	if err != nil || !bytes.Equal(again, raw) {
		t.Errorf("re-encoding differs (err %v)", err)
	}
	// newManifest alone is a valid (empty) manifest.
	if _, err := manifest.Encode(newManifest()); err != nil {
		t.Errorf("empty manifest: %v", err)
	}
}

func TestEncodeManifestRefuses(t *testing.T) {
	if _, err := manifest.Encode(nil); !errors.Is(err, manifest.ErrInvalid) {
		t.Errorf("nil: %v", err)
	}
	m := sampleManifest(sampleFiles(t))
	m.MediaType = ""
	if _, err := manifest.Encode(m); !errors.Is(err, manifest.ErrMediaType) {
		t.Errorf("empty media type: %v", err)
	}
	m = sampleManifest(sampleFiles(t))
	m.SchemaVersion = 2
	if _, err := manifest.Encode(m); !errors.Is(err, manifest.ErrSchema) {
		t.Errorf("schema 2: %v", err)
	}
	m = sampleManifest(sampleFiles(t))
	m.Files = append(m.Files, m.Files[0])
	if _, err := manifest.Encode(m); !errors.Is(err, manifest.ErrDuplicate) {
		t.Errorf("duplicate file: %v", err)
	}
}

// edit decodes the canonical sample into a generic map, applies f, and
// re-encodes it canonically-looking (same indent), for crafting inputs.
func edit(t *testing.T, f func(map[string]any)) []byte {
	t.Helper()
	raw, err := manifest.Encode(sampleManifest(sampleFiles(t)))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	f(v)
	return stdIndented(t, v)
}

func TestDecodeManifestRefuses(t *testing.T) {
	good, err := manifest.Encode(sampleManifest(sampleFiles(t)))
	if err != nil {
		t.Fatal(err)
	}
	files := func(v map[string]any) []any { return v["files"].([]any) }
	cases := []struct {
		name string
		raw  []byte
		want error
	}{
		{"too large", append(bytes.Repeat([]byte(" "), manifest.MaxSize), good...), manifest.ErrTooLarge},
		{"not json", []byte("nope"), manifest.ErrInvalid},
		{"array", []byte("[]\n"), manifest.ErrInvalid},
		{"no media type", edit(t, func(v map[string]any) { delete(v, "media_type") }), manifest.ErrMediaType},
		{"other media type", edit(t, func(v map[string]any) { v["media_type"] = "application/json" }), manifest.ErrMediaType},
		{"no schema", edit(t, func(v map[string]any) { delete(v, "schema_version") }), manifest.ErrSchema},
		{"schema 2", edit(t, func(v map[string]any) { v["schema_version"] = 2 }), manifest.ErrSchema},
		{"schema string", edit(t, func(v map[string]any) { v["schema_version"] = "1" }), manifest.ErrSchema},
		{"unknown field", edit(t, func(v map[string]any) { v["extra"] = true }), manifest.ErrInvalid},
		{"unknown nested field", edit(t, func(v map[string]any) { v["tool"].(map[string]any)["x"] = 1 }), manifest.ErrInvalid},
		{"two values", append(append([]byte{}, good...), good...), manifest.ErrInvalid},
		{"trailing garbage", append(append([]byte{}, good...), 'x'), manifest.ErrInvalid},
		{"compact", compact(t, good), manifest.ErrNotCanonical},
		{"no trailing newline", good[:len(good)-1], manifest.ErrNotCanonical},
		{"crlf", bytes.ReplaceAll(good, []byte("\n"), []byte("\r\n")), manifest.ErrNotCanonical},
		{"html escaped", bytes.Replace(good, []byte("<&>"), []byte(`\u003c\u0026\u003e`), 1), manifest.ErrNotCanonical},
		{"key case", bytes.Replace(good, []byte(`"baseline"`), []byte(`"Baseline"`), 1), manifest.ErrNotCanonical},
		{"null list", edit(t, func(v map[string]any) { v["deviations"] = nil }), manifest.ErrNotCanonical},
		{"empty argv", bytes.Replace(good, []byte(`"status": "passed",`), []byte(`"status": "passed", "argv": [],`), 1), manifest.ErrNotCanonical},
		{"unsorted files", edit(t, func(v map[string]any) {
			f := files(v)
			f[0], f[1] = f[1], f[0]
		}), manifest.ErrInvalid},
		{"bad sha", edit(t, func(v map[string]any) { files(v)[0].(map[string]any)["sha256"] = strings.Repeat("A", 64) }), manifest.ErrInvalid},
		{"short sha", edit(t, func(v map[string]any) { files(v)[0].(map[string]any)["sha256"] = "abc" }), manifest.ErrInvalid},
		{"negative size", edit(t, func(v map[string]any) { files(v)[0].(map[string]any)["size"] = -1 }), manifest.ErrInvalid},
		{"escaping path", edit(t, func(v map[string]any) { files(v)[0].(map[string]any)["path"] = "../x" }), manifest.ErrPathEscape},
		{"absolute path", edit(t, func(v map[string]any) { files(v)[0].(map[string]any)["path"] = "/etc/passwd" }), manifest.ErrPathEscape},
		{"reserved path", edit(t, func(v map[string]any) { files(v)[0].(map[string]any)["path"] = manifest.Path }), manifest.ErrReservedPath},
		{"duplicate path", edit(t, func(v map[string]any) {
			files(v)[1].(map[string]any)["path"] = files(v)[0].(map[string]any)["path"]
		}), manifest.ErrDuplicate},
		{"static evidence unlisted", edit(t, func(v map[string]any) {
			v["static"].(map[string]any)["evidence"].(map[string]any)["patch"] = "static/nope.yaml"
		}), manifest.ErrInvalid},
		{"stage evidence unlisted", edit(t, func(v map[string]any) {
			st := v["repetitions"].([]any)[0].(map[string]any)["stages"].([]any)[3].(map[string]any)
			st["evidence"].(map[string]any)["stdout"] = "r1/t4/nope"
		}), manifest.ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := manifest.Decode(c.raw)
			if !errors.Is(err, c.want) {
				t.Fatalf("Decode = %v, want %v", err, c.want)
			}
			if manifest.DecodeCanonical(c.raw) != nil {
				t.Error("the fast path accepts what the strict decoder refuses")
			}
			if m != nil {
				t.Error("manifest returned with an error")
			}
			if strings.ContainsAny(err.Error()[:1], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				t.Errorf("error not lowercase: %v", err)
			}
		})
	}
}

// TestDecodeManifestRefusesNull checks that null in place of a list or
// map the encoding always writes is refused: [] and {} are the one byte
// form of "none" (SPEC.md "Canonical manifest encoding").
func TestDecodeManifestRefusesNull(t *testing.T) {
	empty, err := manifest.Encode(newManifest())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Decode(empty); err != nil {
		t.Fatalf("empty manifest: %v", err)
	}
	for _, c := range []struct{ from, to string }{
		{`"standards": []`, `"standards": null`},
		{`"fixed": []`, `"fixed": null`},
		{`"deviations": []`, `"deviations": null`},
		{`"timeouts_ms": {}`, `"timeouts_ms": null`},
		{`"clauses": []`, `"clauses": null`},
		{"\"environment\": {\n    \"evidence\": {}", "\"environment\": {\n    \"evidence\": null"},
		{`"repetitions": []`, `"repetitions": null`},
		{`"files": []`, `"files": null`},
	} {
		raw := bytes.Replace(empty, []byte(c.from), []byte(c.to), 1)
		if bytes.Equal(raw, empty) {
			t.Fatalf("%s not in the empty manifest:\n%s", c.from, empty)
		}
		if _, err := manifest.Decode(raw); !errors.Is(err, manifest.ErrNotCanonical) {
			t.Errorf("%s: Decode = %v, want %v", c.to, err, manifest.ErrNotCanonical)
		}
		if manifest.DecodeCanonical(raw) != nil {
			t.Errorf("%s: the fast path accepts it", c.to)
		}
	}
}

// TestDecodeManifestReportsAll checks that every structural problem is
// reported, not only the first.
func TestDecodeManifestReportsAll(t *testing.T) {
	raw := edit(t, func(v map[string]any) {
		f := v["files"].([]any)
		f[0].(map[string]any)["sha256"] = "x"
		f[1].(map[string]any)["size"] = -5
		v["static"].(map[string]any)["evidence"].(map[string]any)["readme"] = "nope"
	})
	_, err := manifest.Decode(raw)
	if !errors.Is(err, manifest.ErrInvalid) {
		t.Fatalf("got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"is not 64 lowercase hex digits", "negative size -5", `static.evidence["readme"] = "nope"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}

func compact(t *testing.T, raw []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDecodeCanonicalAgrees checks Decode's fast path against the
// strict decoder on manifests both accept: the same manifest, and the
// pooled re-encoding unaffected by what an earlier, larger or refused
// manifest left in the pool. FuzzDecodeManifest checks that they accept
// the same inputs.
func TestDecodeCanonicalAgrees(t *testing.T) {
	good, err := manifest.Encode(sampleManifest(sampleFiles(t)))
	if err != nil {
		t.Fatal(err)
	}
	empty, err := manifest.Encode(newManifest())
	if err != nil {
		t.Fatal(err)
	}
	for i, raw := range [][]byte{good, empty, compact(t, good), good, empty} {
		fast := manifest.DecodeCanonical(raw)
		strict, err := manifest.DecodeStrict(raw)
		if (fast != nil) != (err == nil) {
			t.Fatalf("input %d: fast path %v, strict decoder %v", i, fast != nil, err)
		}
		if fast != nil && !reflect.DeepEqual(fast, strict) {
			t.Errorf("input %d: the two paths decode different manifests", i)
		}
	}
}
