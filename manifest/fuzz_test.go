package manifest_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
)

func FuzzDecodeManifest(f *testing.F) {
	good, err := manifest.Encode(sampleManifest(sampleFiles(f)))
	if err != nil {
		f.Fatal(err)
	}
	empty, _ := manifest.Encode(newManifest())
	f.Add(good)
	f.Add(empty)
	f.Add(compactBytes(good))
	f.Add([]byte(`{"media_type":"` + manifest.MediaType + `","schema_version":1}`))
	f.Add([]byte("null"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > manifest.MaxSize {
			if _, err := manifest.Decode(raw); !errors.Is(err, manifest.ErrTooLarge) {
				t.Fatalf("%d bytes: %v", len(raw), err)
			}
			return
		}
		// Decode is its fast path, or else its strict decoder;
		// the two accept exactly the same inputs. Each runs once here.
		fast := manifest.DecodeCanonical(raw)
		m, err := manifest.DecodeStrict(raw)
		if (fast != nil) != (err == nil) {
			t.Fatalf("fast path accepts: %v; strict decoder: %v", fast != nil, err)
		}
		if fast != nil && !reflect.DeepEqual(fast, m) {
			t.Fatal("the fast path and the strict decoder decode different manifests")
		}
		if err != nil {
			if m != nil {
				t.Fatal("manifest with error")
			}
			for _, s := range []error{manifest.ErrTooLarge, manifest.ErrMediaType, manifest.ErrSchema, manifest.ErrInvalid, manifest.ErrNotCanonical} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error of no class: %v", err)
		}
		again, err := manifest.Encode(m)
		if err != nil {
			t.Fatalf("decoded manifest does not encode: %v", err)
		}
		if !bytes.Equal(again, raw) {
			t.Fatal("decoded manifest re-encodes differently")
		}
	})
}

func compactBytes(b []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.Split(b, []byte("\n")) {
		out.Write(bytes.TrimSpace(line))
	}
	return out.Bytes()
}
