package engine

import (
	"archive/tar"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dshaudit/dshaudit/internal/owner"
)

func TestParsePinned(t *testing.T) {
	hex := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		ref, repo, tag string
		err            error
	}{
		{"dsh-sandbox:5.0@sha256:" + hex, "dsh-sandbox", "5.0", nil},
		{"localhost:5000/a/b@sha256:" + hex, "localhost:5000/a/b", "", nil},
		{"127.0.0.1:5000/a/b:v1@sha256:" + hex, "127.0.0.1:5000/a/b", "v1", nil},
		{"dsh-sandbox:5.0", "", "", ErrNotPinned},
		{"dsh-sandbox@sha512:" + hex + hex, "", "", ErrNotPinned},
	} {
		p, err := ParsePinned(tc.ref)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%q: %v, want %v", tc.ref, err, tc.err)
			}
			continue
		}
		if err != nil || p.Repository != tc.repo || p.Tag != tc.tag || p.Digest.Hex != hex {
			t.Errorf("%q: %+v %v", tc.ref, p, err)
		}
		if p.ByDigest() != tc.repo+"@sha256:"+hex {
			t.Errorf("%q: ByDigest %q", tc.ref, p.ByDigest())
		}
	}
	if _, err := ParsePinned("x@sha256:abc"); err == nil {
		t.Error("short digest accepted")
	}
}

func TestCaptureMergedAndBounded(t *testing.T) {
	c, out, errs := newCapture(8)
	out.Write([]byte("o1"))
	errs.Write([]byte("e1"))
	out.Write([]byte("o2-long-chunk"))
	errs.Write([]byte("e2"))
	var r Result
	c.fill(&r, out, errs)
	if string(r.Stdout) != "o1o2-lon" || !r.StdoutTruncated {
		t.Errorf("stdout %q truncated %v", r.Stdout, r.StdoutTruncated)
	}
	if string(r.Stderr) != "e1e2" || r.StderrTruncated {
		t.Errorf("stderr %q truncated %v", r.Stderr, r.StderrTruncated)
	}
	if string(r.Merged) != "o1e1o2-lone2" {
		t.Errorf("merged %q", r.Merged)
	}
	// Concurrent writers never lose or split a chunk.
	c, out, errs = newCapture(1 << 20)
	var wg sync.WaitGroup
	for _, s := range []*stream{out, errs} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				s.Write([]byte("abcd"))
			}
		}()
	}
	wg.Wait()
	c.fill(&r, out, errs)
	if len(r.Merged) != 8000 || strings.Count(string(r.Merged), "abcd") != 2000 {
		t.Errorf("merged %d bytes, %d chunks", len(r.Merged), strings.Count(string(r.Merged), "abcd"))
	}
}

func TestRunArgs(t *testing.T) {
	c := &CLI{name: "podman", bin: "podman", pre: []string{"--runtime", "runc"}, podman: true}
	s := RunSpec{
		Image: "img", Argv: []string{"dsh", "--profile", "web"}, Network: NetworkNone,
		Env: map[string]string{"B": "2", "A": "1"}, CACert: "/etc/ssl/ca.crt",
		Mounts: []Mount{{Source: "/h", Target: "/dsh-home"}},
	}
	a := c.runArgs("dshaudit-x", "/tmp/p", s)
	j := strings.Join(a, " ")
	me, err := owner.Self()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// The owner label: a later sweep tells a killed run's container
		// from a live one's by it.
		"--runtime runc run --name dshaudit-x --pull=never --label dshaudit.owner=" + me.String() + " --network none",
		"--memory 768m --cpus 1 --pids-limit 256 --ulimit nofile=1024:1024 --ulimit nproc=1024:1024",
		"--http-proxy=false --unsetenv TERM",
		"--env A=1 --env B=2 --mount type=bind,source=/h,destination=/dsh-home",
		"--entrypoint dsh img --profile web",
	} {
		if !strings.Contains(j, want) {
			t.Errorf("args %q lack %q", j, want)
		}
	}
	if strings.Contains(j, "ca.crt") || strings.Contains(j, "NODE_EXTRA_CA_CERTS") {
		t.Errorf("CA bundle given with the network off: %q", j)
	}
	s.Network = NetworkOn
	j = strings.Join(c.runArgs("dshaudit-x", "", s), " ")
	if !strings.Contains(j, "--network host") || !strings.Contains(j, "--env NODE_EXTRA_CA_CERTS="+CACertPath) ||
		!strings.Contains(j, "source=/etc/ssl/ca.crt,destination="+CACertPath+",readonly=true") {
		t.Errorf("network on: %q", j)
	}
	if slices.Contains(a, "--env-host") {
		t.Error("--env-host")
	}
}

func TestIsLoopback(t *testing.T) {
	for h, want := range map[string]bool{
		"127.0.0.1:5000": true, "127.1.2.3": true, "localhost:80": true, "[::1]:5000": true,
		"10.0.0.1:5000": false, "registry.example": false, "localhost.example:5000": false,
	} {
		if isLoopback(h) != want {
			t.Errorf("isLoopback(%q) != %v", h, want)
		}
	}
}

func TestExtractArchiveRefusesEscapes(t *testing.T) {
	for _, hdr := range []tar.Header{
		{Name: "../evil", Typeflag: tar.TypeReg},
		{Name: "/abs", Typeflag: tar.TypeReg},
		{Name: "blobs/link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"},
	} {
		file := filepath.Join(t.TempDir(), "a.tar")
		f, err := os.Create(file)
		must(t, err)
		tw := tar.NewWriter(f)
		must(t, tw.WriteHeader(&hdr))
		must(t, tw.Close())
		must(t, f.Close())
		dst := t.TempDir()
		if err := extractArchive(file, dst); err == nil {
			t.Errorf("entry %q (%c) accepted", hdr.Name, hdr.Typeflag)
		}
	}
}

func TestTestImageIsDeterministic(t *testing.T) {
	a, b := buildTestImage(t, "same"), buildTestImage(t, "same")
	da, err := a.Digest()
	must(t, err)
	db, err := b.Digest()
	must(t, err)
	if da != db {
		t.Errorf("two builds differ: %s %s", da, db)
	}
}
