package image

import (
	"errors"
	"path/filepath"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

func twoLayerImage(t *testing.T, dir string, wrapper string) v1.Image {
	t.Helper()
	a := NewTree()
	if err := a.AddFile("etc/os-release", 0o644, []byte("ID=debian\n")); err != nil {
		t.Fatal(err)
	}
	b := NewTree()
	for _, err := range []error{
		b.AddFile("usr/local/bin/dsh", 0o755, []byte(wrapper)),
		b.AddFile("opt/dshaudit/inputs.json", 0o644, []byte(`{"builder":"x"}`)),
		b.AddSymlink("usr/local/bin/node", "/opt/node/bin/node"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	var ls []LayerInfo
	for i, tr := range []*Tree{a, b} {
		li, err := WriteLayerFile(tr, filepath.Join(dir, string(rune('a'+i))+".tar.gz"))
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, li)
	}
	img, err := assemble(ls, Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestCompareImagesNamesFile: one file changed in one layer is named,
// with both sides' size, mode and sha256, and no other layer is.
func TestCompareImagesNamesFile(t *testing.T) {
	given := twoLayerImage(t, t.TempDir(), dshWrapper)
	same := twoLayerImage(t, t.TempDir(), dshWrapper)
	if err := CompareImages(given, same); err != nil {
		t.Fatalf("same content: %v", err)
	}
	other := twoLayerImage(t, t.TempDir(), dshWrapper+"# changed\n")
	err := CompareImages(given, other)
	var de *ImageDiffError
	if !errors.As(err, &de) || !errors.Is(err, ErrImageDiffers) {
		t.Fatalf("want ImageDiffError, got %v", err)
	}
	if len(de.Layers) != 1 || de.Layers[0].Index != 1 {
		t.Fatalf("layers: %+v", de.Layers)
	}
	fs := de.Layers[0].Files
	if len(fs) != 1 || fs[0].Path != "usr/local/bin/dsh" || fs[0].Given == nil || fs[0].Rebuilt == nil {
		t.Fatalf("files: %+v", fs)
	}
	g, r := fs[0].Given, fs[0].Rebuilt
	if g.Size == r.Size || g.SHA256 == r.SHA256 || g.Mode != "0755" || g.Type != "file" {
		t.Fatalf("file records: %+v %+v", g, r)
	}
	t.Log(err)
}

// TestLayerCacheWriteOnly: --no-cache stores the layers it rebuilt but
// never reads one back; a later cached build finds them.
func TestLayerCacheWriteOnly(t *testing.T) {
	dir := t.TempDir()
	tr := NewTree()
	if err := tr.AddFile("a", 0o644, []byte("a")); err != nil {
		t.Fatal(err)
	}
	w := layerCache{dir: dir, writeOnly: true}
	li, err := w.put("k", t.TempDir(), tr, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := w.get("k", nil); ok {
		t.Fatal("a write-only cache returned a layer")
	}
	got, ok := layerCache{dir: dir}.get("k", nil)
	if !ok || got.Digest != li.Digest {
		t.Fatalf("cached layer %+v %v, want %s", got, ok, li.Digest)
	}
}
