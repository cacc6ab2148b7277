package manifest

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func FuzzDecodeManifest(f *testing.F) {
	good, err := Encode(sampleManifest(sampleFiles(f)))
	if err != nil {
		f.Fatal(err)
	}
	empty, _ := Encode(newManifest())
	f.Add(good)
	f.Add(empty)
	f.Add(compactBytes(good))
	f.Add([]byte(`{"media_type":"` + MediaType + `","schema_version":1}`))
	f.Add([]byte("null"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > MaxSize {
			if _, err := Decode(raw); !errors.Is(err, ErrTooLarge) {
				t.Fatalf("%d bytes: %v", len(raw), err)
			}
			return
		}
		// Decode is its fast path, or else its strict decoder;
		// the two accept exactly the same inputs. Each runs once here.
		fast := decodeCanonical(raw)
		m, err := decodeStrict(raw)
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
			for _, s := range []error{ErrTooLarge, ErrMediaType, ErrSchema, ErrInvalid, ErrNotCanonical} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error of no class: %v", err)
		}
		again, err := Encode(m)
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
