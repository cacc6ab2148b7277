package image

// The image digest depends on the pinned inputs only: two builds, each in
// its own UTS and mount namespace (unshare -u -m) with its own hostname
// and its own /etc/resolv.conf bind-mounted over the host's, every layer
// rebuilt (mmdebstrap from the locked .debs, pnpm install), give one
// digest; and no layer of it holds a builder file or any trace of either
// builder (hostnames, nameservers, cache and scratch paths). Real parts:
// unshare, mmdebstrap, the Debian mirror, the npm registry.

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

const helperEnv = "DSHAUDIT_NAMESPACED_BUILD"

// namespacedBuild is what one helper process is told and reports.
type namespacedBuild struct {
	Hostname   string `json:"hostname"`
	Nameserver string `json:"nameserver"`
	CacheDir   string `json:"cacheDir"`
	Out        string `json:"out"`
	Digest     string `json:"digest,omitempty"`
	Layout     string `json:"layout,omitempty"`
	Error      string `json:"error,omitempty"`
	Seconds    float64
}

// TestNamespacedBuildHelper is not a test: run under unshare by
// TestBuildHostIndependent, it sets its hostname and resolv.conf, builds
// with every layer rebuilt, and writes the result to the file named in its
// request.
func TestNamespacedBuildHelper(t *testing.T) {
	raw := os.Getenv(helperEnv)
	if raw == "" {
		return // only meaningful as TestBuildHostIndependent's child
	}
	var req namespacedBuild
	if err := json.Unmarshal([]byte(raw), &req); err != nil {
		t.Fatal(err)
	}
	report := func(err error) {
		if err != nil {
			req.Error = err.Error()
		}
		b, _ := json.Marshal(req)
		if werr := os.WriteFile(req.Out, b, 0o644); werr != nil {
			t.Fatal(werr)
		}
	}
	if err := syscall.Sethostname([]byte(req.Hostname)); err != nil {
		report(err)
		return
	}
	// The namespace's own nameserver comes first; the host's follow, so
	// downloads still resolve. The fake ones are loopback addresses where
	// nothing listens: no query leaves the machine, and each is refused at
	// once.
	resolv := filepath.Join(t.TempDir(), "resolv.conf")
	host, _ := os.ReadFile("/etc/resolv.conf")
	if err := os.WriteFile(resolv, append([]byte("nameserver "+req.Nameserver+"\noptions timeout:1 attempts:1\n"), host...), 0o644); err != nil {
		report(err)
		return
	}
	if err := syscall.Mount(resolv, "/etc/resolv.conf", "", syscall.MS_BIND, ""); err != nil {
		report(err)
		return
	}
	start := time.Now()
	r, err := Build(context.Background(), Options{CacheDir: req.CacheDir, NoCache: true, Log: logWriter{t}})
	req.Seconds = time.Since(start).Seconds()
	if err == nil {
		req.Digest, req.Layout = r.Digest.String(), r.CacheLayout
	}
	report(err)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func runNamespaced(t *testing.T, req namespacedBuild) namespacedBuild {
	t.Helper()
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatal("unshare (util-linux) not found")
	}
	b, _ := json.Marshal(req)
	cmd := exec.Command(unshare, "-u", "-m", "--propagation", "private", "--", os.Args[0], "-test.run=^TestNamespacedBuildHelper$", "-test.v", "-test.timeout=30m")
	cmd.Env = append(os.Environ(), helperEnv+"="+string(b))
	out, err := cmd.CombinedOutput()
	got, rerr := os.ReadFile(req.Out)
	if rerr != nil {
		t.Fatalf("namespaced build under hostname %s wrote no result (%v): %v\n%s", req.Hostname, rerr, err, tail(string(out), 3000))
	}
	var res namespacedBuild
	if err := json.Unmarshal(got, &res); err != nil {
		t.Fatal(err)
	}
	if res.Error != "" {
		t.Fatalf("build under hostname %s: %s\n%s", req.Hostname, res.Error, tail(string(out), 3000))
	}
	t.Logf("hostname %s, nameserver %s: %s in %.0fs", req.Hostname, req.Nameserver, res.Digest, res.Seconds)
	return res
}

func TestBuildHostIndependent(t *testing.T) {
	e2etest.Require(t, "unshare", "mmdebstrap")
	cache := e2etest.CacheDir()
	dir := t.TempDir()
	a := runNamespaced(t, namespacedBuild{Hostname: "dshaudit-a-" + randomHex(4), Nameserver: "127.0.0.117", CacheDir: cache, Out: filepath.Join(dir, "a.json")})
	b := runNamespaced(t, namespacedBuild{Hostname: "dshaudit-b-" + randomHex(4), Nameserver: "127.0.0.142", CacheDir: cache, Out: filepath.Join(dir, "b.json")})
	if a.Digest != b.Digest {
		t.Errorf("two builders, two digests: %s (%s) and %s (%s)", a.Digest, a.Hostname, b.Digest, b.Hostname)
	}
	h, err := v1.NewHash(b.Digest)
	if err != nil {
		t.Fatal(err)
	}
	r, err := loadCachedImage(b.Layout)
	if err != nil || r.Digest != h {
		t.Fatalf("cached image of the second build: %v", err)
	}
	hostname, _ := os.Hostname()
	traces := []string{a.Hostname, b.Hostname, a.Nameserver, b.Nameserver, cache, "dshaudit-debian-repo-"}
	if len(hostname) >= 6 { // a short name ("vm") would match by chance
		traces = append(traces, hostname)
	}
	checkNoBuilderTraces(t, r.Image, traces)
	t.Logf("image size %.1f MiB compressed, %.1f MiB uncompressed; layers:", float64(r.Size)/(1<<20), float64(r.UncompressedSize)/(1<<20))
	for i, l := range r.Layers {
		t.Logf("  %-55s %s %7.1f MiB (%7.1f MiB uncompressed)", layerHistory[i], l.Digest.Hex[:12], float64(l.Size)/(1<<20), float64(l.UncompressedSize)/(1<<20))
	}

	// With the cache on, the same inputs give the same digest at once.
	t0 := time.Now()
	c, err := Build(context.Background(), Options{CacheDir: cache, Log: logWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Cached || c.Digest != h {
		t.Fatalf("cached build: cached=%v digest %s, want %s", c.Cached, c.Digest, h)
	}
	t.Logf("cached build %.1fs", time.Since(t0).Seconds())
}

// checkNoBuilderTraces lists every layer's files and fails on a builder
// file (resolv.conf, hostname, hosts, machine-id, apt lists and caches,
// logs) and on any file or link naming one of traces.
func checkNoBuilderTraces(t *testing.T, img v1.Image, traces []string) {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for i, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			files++
			p := strings.TrimSuffix(h.Name, "/")
			if builderFiles[p] {
				t.Errorf("layer %d holds builder file %s", i+1, p)
			}
			for _, d := range builderDirs {
				if strings.HasPrefix(p, d) {
					t.Errorf("layer %d holds %s (contents of %s depend on the builder or the day)", i+1, p, d)
				}
			}
			var data []byte
			if h.Typeflag == tar.TypeReg {
				if data, err = io.ReadAll(tr); err != nil {
					t.Fatal(err)
				}
			}
			for _, s := range traces {
				if s == "" {
					continue
				}
				rel := strings.TrimPrefix(s, "/") // layer paths have no leading slash
				if bytes.Contains(data, []byte(s)) || strings.Contains(h.Linkname, s) || strings.Contains(p, rel) {
					t.Errorf("layer %d file %s names the builder's %q", i+1, p, s)
				}
			}
		}
		rc.Close()
	}
	t.Logf("%d layers, %d entries: no builder file, none naming %q", len(layers), files, traces)
}
