package image

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/dshaudit/dshaudit/internal/hosttool"
)

// DESIGN.md "Sandbox image", outputs.

// WriteLayout writes img as a fresh OCI image layout at dir (which must not
// exist or be empty), its index entry annotated with name as
// org.opencontainers.image.ref.name.
func WriteLayout(dir string, img v1.Image, refName string) error {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return fmt.Errorf("oci layout %q exists and is not empty: %w", dir, ErrBadInput)
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	var opts []layout.Option
	if refName != "" {
		opts = append(opts, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": refName}))
	}
	if err := p.AppendImage(img, opts...); err != nil {
		return err
	}
	return shareTree(dir)
}

// shareTree makes everything under dir readable by every user: files
// 0644, directories 0755. go-containerregistry writes each blob through
// a temporary file (0600) and renames it, so a layout it wrote could be
// read by its writer only, and `skopeo copy oci:…` as another user
// failed; an image layout is data to be published (DESIGN.md "Sandbox
// image", outputs).
func shareTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Chmod(p, 0o755)
		case d.Type().IsRegular():
			return os.Chmod(p, 0o644)
		}
		return nil
	})
}

// WriteArchive writes img as an OCI archive (a tar of an OCI layout, by the
// same deterministic rules as the layers) to file, atomically.
func WriteArchive(file string, img v1.Image, refName string) error {
	tmp, err := os.MkdirTemp(filepath.Dir(file), ".oci-archive-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	lay := filepath.Join(tmp, "layout")
	if err := WriteLayout(lay, img, refName); err != nil {
		return err
	}
	t := NewTree()
	if err := t.AddDir(lay, "", DirOptions{}); err != nil {
		return err
	}
	for _, p := range t.Paths() { // layout files are data, not programs
		e := t.entries[p]
		if e.hdr.Typeflag == '0' {
			e.hdr.Mode = 0o644
		} else {
			e.hdr.Mode = 0o755
		}
	}
	f, err := os.CreateTemp(filepath.Dir(file), ".oci-archive-*.tar")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := t.WriteTar(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), file)
}

// Push writes img to ref (a tag or repository) in a registry and returns
// REPOSITORY:TAG@sha256:… as pushed. insecure allows plain HTTP, for a
// registry on loopback.
func Push(ctx context.Context, ref string, img v1.Image, insecure bool) (string, error) {
	var opts []name.Option
	if insecure {
		opts = append(opts, name.Insecure)
	}
	r, err := name.ParseReference(ref, opts...)
	if err != nil {
		return "", fmt.Errorf("push reference %q: %w: %v", ref, ErrBadInput, err)
	}
	if err := remote.Write(r, img, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return "", fmt.Errorf("push %q: %w: %v", ref, ErrRegistry, err)
	}
	d, err := img.Digest()
	if err != nil {
		return "", err
	}
	return r.Name() + "@" + d.String(), nil
}

// Podman runs podman with the runc runtime (crun fails on these hosts;
// SANDBOX.md).
func Podman(ctx context.Context, args ...string) (string, error) {
	full := append([]string{"--runtime", "runc"}, args...)
	cmd := exec.CommandContext(ctx, "podman", full...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%w: podman %s: %v: %s", ErrEngine, strings.Join(args, " "), err, tail(errb.String(), 500))
	}
	return out.String(), nil
}

// LoadPodman loads an OCI archive (whose index names the image refName)
// into podman's local storage and checks that podman holds refName with
// exactly the manifest digest want. It does nothing when podman already
// does.
func LoadPodman(ctx context.Context, archive, refName string, want v1.Hash) error {
	if _, err := hosttool.Look("podman", "apt-get install -y podman runc, or run scripts/setup.sh"); err != nil {
		return fmt.Errorf("%w: %w", ErrEngine, err)
	}
	if PodmanHas(ctx, refName, want) {
		return nil
	}
	if _, err := Podman(ctx, "pull", "-q", "oci-archive:"+archive); err != nil {
		return err
	}
	if !PodmanHas(ctx, refName, want) {
		out, _ := Podman(ctx, "image", "inspect", "--format", "{{.ID}} {{.Digest}}", refName)
		return fmt.Errorf("%w: podman holds %q for %s, want manifest digest %s", ErrEngine, strings.TrimSpace(out), refName, want)
	}
	return nil
}

// PodmanHas reports whether podman's local storage holds refName with
// manifest digest want.
func PodmanHas(ctx context.Context, refName string, want v1.Hash) bool {
	out, err := Podman(ctx, "image", "inspect", "--format", "{{.Digest}}", refName)
	return err == nil && strings.TrimSpace(out) == want.String()
}
