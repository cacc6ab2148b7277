package image

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// smallImage assembles a four-layer image from synthetic trees, the way
// Build does, so output paths can be tested without a dsh install.
func smallImage(t *testing.T, dir string) *Result {
	t.Helper()
	in := Inputs{Builder: BuilderVersion, Registry: DefaultRegistry,
		Dsh:        Package{Package: DshPackage, Version: "0.0.0-test"},
		Resolution: Resolution{Mode: "time-based", Cutoff: time.Date(2026, 8, 24, 15, 49, 40, 0, time.UTC)}}
	var layers []LayerInfo
	for i, content := range []string{"rootfs", "runtime", "dsh"} {
		tr := NewTree()
		must(t, tr.AddFile("layer/"+content, 0o644, []byte(strings.Repeat(content, 100))))
		li, err := WriteLayerFile(tr, filepath.Join(dir, content+".tar.gz"))
		must(t, err)
		_ = i
		layers = append(layers, li)
	}
	ct, err := configTree(in)
	must(t, err)
	li, err := WriteLayerFile(ct, filepath.Join(dir, "config.tar.gz"))
	must(t, err)
	layers = append(layers, li)
	img, err := assemble(layers, in)
	must(t, err)
	r := &Result{Image: img, Inputs: in, Layers: layers}
	must(t, r.fill())
	return r
}

func TestAssembleAndArchiveAreDeterministic(t *testing.T) {
	a, b := smallImage(t, t.TempDir()), smallImage(t, t.TempDir())
	if a.Digest != b.Digest {
		t.Fatalf("same inputs, two digests: %s %s", a.Digest, b.Digest)
	}
	cf, err := a.Image.ConfigFile()
	must(t, err)
	if !cf.Created.Time.Equal(Epoch) || cf.Config.Labels["org.dshaudit.dsh.version"] != "0.0.0-test" ||
		cf.Config.WorkingDir != ImageDshHome || len(cf.History) != 4 || len(cf.RootFS.DiffIDs) != 4 {
		t.Fatalf("config: %+v", cf)
	}
	if !strings.Contains(strings.Join(cf.Config.Env, " "), "DSH_HOME="+ImageDshHome) {
		t.Fatalf("env: %v", cf.Config.Env)
	}
	m, err := a.Image.MediaType()
	must(t, err)
	if m != "application/vnd.oci.image.manifest.v1+json" {
		t.Fatalf("media type %s", m)
	}
	dir := t.TempDir()
	f1, f2 := filepath.Join(dir, "a.tar"), filepath.Join(dir, "b.tar")
	must(t, WriteArchive(f1, a.Image, "localhost/x:1"))
	time.Sleep(1100 * time.Millisecond) // file times differ between the two layouts
	must(t, WriteArchive(f2, b.Image, "localhost/x:1"))
	x, _ := os.ReadFile(f1)
	y, _ := os.ReadFile(f2)
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Fatalf("two archives of the same image differ (%d, %d bytes)", len(x), len(y))
	}
	// the layout round-trips to the same manifest digest
	lay := filepath.Join(dir, "layout")
	must(t, WriteLayout(lay, a.Image, "localhost/x:1"))
	idx, err := layout.ImageIndexFromPath(lay)
	must(t, err)
	im, err := idx.IndexManifest()
	must(t, err)
	if len(im.Manifests) != 1 || im.Manifests[0].Digest != a.Digest || im.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "localhost/x:1" {
		t.Fatalf("index: %+v", im)
	}
	if err := WriteLayout(lay, a.Image, ""); err == nil {
		t.Fatal("wrote into a non-empty layout directory")
	}
}

// Push to a real OCI registry on loopback and read it back by digest.
func TestPushToLoopbackRegistry(t *testing.T) {
	srv := httptest.NewServer(registry.New())
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	r := smallImage(t, t.TempDir())
	pushed, err := Push(context.Background(), host+"/dsh-sandbox:test", r.Image, true)
	must(t, err)
	if !strings.HasSuffix(pushed, "@"+r.Digest.String()) {
		t.Fatalf("pushed %q, want digest %s", pushed, r.Digest)
	}
	ref, err := name.NewDigest(host+"/dsh-sandbox@"+r.Digest.String(), name.Insecure)
	must(t, err)
	got, err := remote.Image(ref)
	must(t, err)
	d, err := got.Digest()
	must(t, err)
	if d != r.Digest {
		t.Fatalf("pulled %s, pushed %s", d, r.Digest)
	}
}
