package engine

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The test image: one layer holding /bin/busybox (from the Debian package
// busybox-static), its applet symlinks, the files under
// testdata/engine/rootfs and /marker. Built deterministically.

const busyboxPath = "/bin/busybox"

var applets = []string{"sh", "cat", "echo", "env", "false", "head", "id", "kill",
	"ls", "nc", "printf", "seq", "sleep", "test", "touch", "true", "wc", "wget", "yes"}

var epoch = time.Unix(0, 0).UTC()

// buildTestImage returns the busybox test image whose /marker holds marker.
func buildTestImage(t testing.TB, marker string) v1.Image {
	t.Helper()
	bb, err := os.ReadFile(busyboxPath)
	switch {
	case err != nil && e2etest.Enabled():
		t.Fatalf("the engine tests need %s: apt-get install -y busybox-static: %v", busyboxPath, err)
	case err != nil:
		// Unit tests of the image's bytes only (never run): any content
		// will do on a machine without busybox-static.
		bb = []byte("busybox-static is not installed; this image is never run\n")
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64) {
		must(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, ModTime: epoch}))
	}
	file := func(name string, mode int64, b []byte) {
		must(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(b)), ModTime: epoch}))
		_, err := tw.Write(b)
		must(t, err)
	}
	dir("bin/", 0o755)
	file("bin/busybox", 0o755, bb)
	for _, a := range applets {
		must(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox", Mode: 0o777, ModTime: epoch}))
	}
	for _, d := range []string{"dev/", "etc/", "proc/", "sys/", "usr/", "usr/local/", "usr/local/bin/"} {
		dir(d, 0o755)
	}
	dir("tmp/", 0o1777)
	root := filepath.Join("..", "testdata", "engine", "rootfs")
	var paths []string
	must(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return err
	}))
	sort.Strings(paths)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		must(t, err)
		rel, _ := filepath.Rel(root, p)
		file(filepath.ToSlash(rel), 0o755, b)
	}
	file("marker", 0o644, []byte(marker+"\n"))
	must(t, tw.Close())
	layerBytes := buf.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerBytes)), nil
	}, tarball.WithMediaType(types.OCILayer))
	must(t, err)
	img, err := mutate.AppendLayers(empty.Image, layer)
	must(t, err)
	cf, err := img.ConfigFile()
	must(t, err)
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = "amd64", "linux"
	cf.Config.Cmd = []string{"/bin/sh"}
	cf.Config.Env = []string{"PATH=/usr/local/bin:/bin"}
	img, err = mutate.ConfigFile(img, cf)
	must(t, err)
	img = mutate.MediaType(img, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	return img
}

// writeLayout writes img as an OCI layout in dir.
func writeLayout(t testing.TB, dir string, img v1.Image) {
	t.Helper()
	lp, err := layout.Write(dir, empty.Index)
	must(t, err)
	must(t, lp.AppendImage(img))
}

// writeArchive tars the layout at dir deterministically into file.
func writeArchive(t testing.TB, dir, file string) {
	t.Helper()
	var names []string
	must(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != dir {
			names = append(names, p)
		}
		return err
	}))
	sort.Strings(names)
	f, err := os.Create(file)
	must(t, err)
	tw := tar.NewWriter(f)
	for _, p := range names {
		rel, _ := filepath.Rel(dir, p)
		st, err := os.Stat(p)
		must(t, err)
		if st.IsDir() {
			must(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: filepath.ToSlash(rel) + "/", Mode: 0o755, ModTime: epoch}))
			continue
		}
		b, err := os.ReadFile(p)
		must(t, err)
		must(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(b)), ModTime: epoch}))
		_, err = tw.Write(b)
		must(t, err)
	}
	must(t, tw.Close())
	must(t, f.Close())
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// fixture is the shared base test image, built and loaded once.
type fixture struct {
	eng     *CLI
	img     v1.Image
	digest  v1.Hash
	config  v1.Hash
	layout  string
	archive string
	ref     string
	image   Image
}

var (
	fixOnce sync.Once
	fix     *fixture
	fixErr  string
	tmpRoot string
	// loadedIDs are images the tests put into the engine, removed at exit.
	loadedMu  sync.Mutex
	loadedIDs = map[string]bool{}
)

const testRepo = "localhost/dshaudit-enginetest/busybox"

func TestMain(m *testing.M) {
	var err error
	tmpRoot, err = os.MkdirTemp("", "dshaudit-enginetest-")
	if err != nil {
		panic(err)
	}
	code := m.Run()
	loadedMu.Lock()
	for id := range loadedIDs {
		_ = exec.Command(testEngineName(), "rmi", "--force", id).Run()
	}
	loadedMu.Unlock()
	os.RemoveAll(tmpRoot)
	os.Exit(code)
}

func noteLoaded(id string) {
	loadedMu.Lock()
	loadedIDs[id] = true
	loadedMu.Unlock()
}

// testEngineName is the engine under test: $DSHAUDIT_TEST_ENGINE
// (podman or docker), podman by default. scripts/test.sh runs the engine
// tests once per engine.
func testEngineName() string {
	if e := os.Getenv("DSHAUDIT_TEST_ENGINE"); e != "" {
		return e
	}
	return "podman"
}

// testEngine returns the real engine under test or fails the test loudly.
func testEngine(t testing.TB) *CLI {
	t.Helper()
	e2etest.Require(t, "podman")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := Detect(ctx, testEngineName())
	if err != nil {
		t.Fatalf("the engine tests need real %s (podman: apt-get install -y podman runc; docker: scripts/setup-docker.sh start): %v", testEngineName(), err)
	}
	return e
}

// base returns the shared, loaded base image.
func base(t testing.TB) *fixture {
	t.Helper()
	e2etest.Require(t, "podman")
	fixOnce.Do(func() {
		f := &fixture{eng: testEngine(t)}
		f.img = buildTestImage(t, "base")
		var err error
		if f.digest, err = f.img.Digest(); err != nil {
			fixErr = err.Error()
			return
		}
		if f.config, err = f.img.ConfigName(); err != nil {
			fixErr = err.Error()
			return
		}
		f.layout = filepath.Join(tmpRoot, "base-layout")
		writeLayout(t, f.layout, f.img)
		f.archive = filepath.Join(tmpRoot, "base.oci.tar")
		writeArchive(t, f.layout, f.archive)
		f.ref = testRepo + ":base@" + f.digest.String()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		f.image, err = f.eng.EnsureImage(ctx, f.ref, FromOCILayout(f.layout))
		if err != nil {
			fixErr = "load base test image: " + err.Error()
			return
		}
		noteLoaded(f.image.ID)
		fix = f
	})
	if fix == nil {
		t.Fatalf("base test image unavailable: %s", fixErr)
	}
	return fix
}

// containersNamed lists containers (any state) with exactly this name.
func containersNamed(t testing.TB, name string) string {
	t.Helper()
	out, err := exec.Command(testEngineName(), "ps", "--all", "--filter", "name=^"+name+"$", "--format", "{{.Names}}").CombinedOutput()
	if err != nil {
		t.Fatalf("%s ps: %v: %s", testEngineName(), err, out)
	}
	return strings.TrimSpace(string(out))
}

func assertGone(t testing.TB, name string) {
	t.Helper()
	if name == "" || !strings.HasPrefix(name, ContainerPrefix) {
		t.Fatalf("result has no container name (%q)", name)
	}
	if left := containersNamed(t, name); left != "" {
		t.Errorf("container %s still exists after the run: %q", name, left)
	}
}
