package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/dshaudit/dshaudit/internal/owner"
)

// EnsureImage makes the image whose manifest digest is the one pinned in
// ref present in the engine and returns it. DESIGN.md "Image digest check".
//
// "The image the engine will run has exactly that digest" means: the
// engine's image record lists the pinned manifest digest, and, whenever the
// manifest bytes passed through this package (OCI archive, OCI layout,
// registry), their sha256 was computed here, equals the pin, and the
// engine's image ID equals the config digest that manifest names.
func (c *CLI) EnsureImage(ctx context.Context, ref string, src Source) (Image, error) {
	p, err := ParsePinned(ref)
	if err != nil {
		return Image{}, err
	}
	switch src.Kind {
	case SourceStore:
		return c.checkStore(ctx, p, nil)
	case SourceRegistry:
		return c.pull(ctx, p, src)
	case SourceOCIArchive, SourceOCILayout:
		return c.load(ctx, p, src)
	}
	return Image{}, fmt.Errorf("%w: unknown image source %v", ErrBadSpec, src.Kind)
}

// engineImage is the part of `image inspect` this package reads.
type engineImage struct {
	ID          string   `json:"Id"`
	Digest      string   `json:"Digest"` // podman only
	RepoDigests []string `json:"RepoDigests"`
	RepoTags    []string `json:"RepoTags"`
}

func (c *CLI) inspectImage(ctx context.Context, lookup string) (*engineImage, error) {
	out, err := c.output(ctx, "image", "inspect", "--format", "json", lookup)
	if err != nil {
		s := stderrOf(err)
		if strings.Contains(s, "image not known") || strings.Contains(s, "No such image") {
			return nil, fmt.Errorf("%w: %s has no image %q", ErrImageNotFound, c.name, lookup)
		}
		return nil, fmt.Errorf("%w: inspect image %q: %v", ErrEngine, lookup, err)
	}
	var imgs []engineImage
	if err := json.Unmarshal(out, &imgs); err != nil || len(imgs) != 1 {
		return nil, fmt.Errorf("%w: inspect image %q: want one image record, got %q", ErrEngine, lookup, truncate(out, 200))
	}
	imgs[0].ID = strings.TrimPrefix(imgs[0].ID, "sha256:")
	return &imgs[0], nil
}

// digests returns every manifest digest the engine records for the image.
func (e *engineImage) digests() []string {
	var ds []string
	seen := map[string]bool{}
	add := func(d string) {
		if d != "" && !seen[d] {
			seen[d] = true
			ds = append(ds, d)
		}
	}
	add(e.Digest)
	for _, rd := range e.RepoDigests {
		if i := strings.LastIndex(rd, "@"); i >= 0 {
			add(rd[i+1:])
		}
	}
	return ds
}

// checkStore finds the image by digest in the engine's store and checks
// the engine's own record of its manifest digest, and, when config is
// given, that the image ID is that config digest.
func (c *CLI) checkStore(ctx context.Context, p PinnedRef, config *v1.Hash) (Image, error) {
	ei, err := c.inspectImage(ctx, p.ByDigest())
	if err != nil {
		return Image{}, err
	}
	ds := ei.digests()
	ok := false
	for _, d := range ds {
		ok = ok || d == p.Digest.String()
	}
	if !ok {
		return Image{}, &DigestMismatchError{Ref: p.Original, Want: p.Digest.String(), Got: strings.Join(ds, ", "), Location: c.name + " image " + ei.ID}
	}
	if config != nil && ei.ID != config.Hex {
		return Image{}, fmt.Errorf("%w: %s image %s for %q is not the config %s its manifest names", ErrDigestMismatch, c.name, ei.ID, p.Original, config)
	}
	return Image{Ref: p.Original, Digest: p.Digest.String(), ID: ei.ID}, nil
}

// pull fetches the manifest itself, verifies its digest, then has the
// engine pull by digest and checks the engine's record.
func (c *CLI) pull(ctx context.Context, p PinnedRef, src Source) (Image, error) {
	var opts []name.Option
	d, err := name.NewDigest(p.ByDigest())
	if err != nil {
		return Image{}, fmt.Errorf("parse image reference %q: %w", p.Original, err)
	}
	host := d.RegistryStr()
	if src.InsecureLoopback {
		if !isLoopback(host) {
			return Image{}, fmt.Errorf("registry %q: %w", host, ErrInsecureNotLoopback)
		}
		opts = append(opts, name.Insecure)
		if d, err = name.NewDigest(p.ByDigest(), opts...); err != nil {
			return Image{}, err
		}
	}
	// Present already with the same manifest: nothing to pull.
	if img, err := c.checkStore(ctx, p, nil); err == nil {
		return img, nil
	}
	desc, err := remote.Get(d, remote.WithContext(ctx))
	if err != nil {
		return Image{}, classifyRemote(p, host, err)
	}
	sum := sha256.Sum256(desc.Manifest)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != p.Digest.String() {
		return Image{}, &DigestMismatchError{Ref: p.Original, Want: p.Digest.String(), Got: got, Location: "registry " + host}
	}
	if !desc.MediaType.IsImage() {
		return Image{}, fmt.Errorf("%q: %s is a %q, not an image manifest: pin the platform image's manifest digest", p.Original, p.Digest, desc.MediaType)
	}
	m, err := v1.ParseManifest(bytes.NewReader(desc.Manifest))
	if err != nil {
		return Image{}, fmt.Errorf("%q: manifest: %w", p.Original, err)
	}
	args := []string{"pull", "--quiet"}
	if c.podman && src.InsecureLoopback {
		args = append(args, "--tls-verify=false")
	}
	if _, err := c.output(ctx, append(args, p.ByDigest())...); err != nil {
		if isUnreachable(stderrOf(err)) {
			return Image{}, fmt.Errorf("%w: %s pull %q: %v", ErrRegistryUnreachable, c.name, p.ByDigest(), err)
		}
		return Image{}, fmt.Errorf("%w: pull %q: %v", ErrEngine, p.ByDigest(), err)
	}
	return c.checkStore(ctx, p, &m.Config.Digest)
}

func classifyRemote(p PinnedRef, host string, err error) error {
	var te *transport.Error
	if errors.As(err, &te) {
		if te.StatusCode == http.StatusNotFound {
			return fmt.Errorf("%w: registry %q has no %q: %v", ErrImageNotFound, host, p.ByDigest(), err)
		}
		return fmt.Errorf("registry %q: fetch %q: %w", host, p.ByDigest(), err)
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || errors.As(err, &ne) || isUnreachable(err.Error()) {
		return fmt.Errorf("%w: %q: %v", ErrRegistryUnreachable, host, err)
	}
	if strings.Contains(err.Error(), "does not match requested digest") {
		return &DigestMismatchError{Ref: p.Original, Want: p.Digest.String(), Got: err.Error(), Location: "registry " + host}
	}
	return fmt.Errorf("registry %q: fetch %q: %w", host, p.ByDigest(), err)
}

func isUnreachable(msg string) bool {
	for _, s := range []string{"connection refused", "no such host", "i/o timeout", "network is unreachable", "connection reset", "dial tcp"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// isLoopback reports whether a registry host[:port] is a loopback address.
func isLoopback(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// load verifies an OCI archive or layout before the engine sees it, then
// loads exactly the verified manifest and checks the engine's record.
func (c *CLI) load(ctx context.Context, p PinnedRef, src Source) (Image, error) {
	if src.Path == "" {
		return Image{}, fmt.Errorf("%w: %v source without a path", ErrBadSpec, src.Kind)
	}
	dir := src.Path
	if src.Kind == SourceOCIArchive {
		tmp, err := owner.MkdirTemp("", TempPrefixOCI)
		if err != nil {
			return Image{}, err
		}
		defer os.RemoveAll(tmp)
		if err := extractArchive(src.Path, tmp); err != nil {
			return Image{}, err
		}
		dir = tmp
	}
	lm, err := findManifest(dir, p.Digest)
	if err != nil {
		var dm *DigestMismatchError
		if errors.As(err, &dm) {
			dm.Ref = p.Original
			dm.Location = fmt.Sprintf("%v %q", src.Kind, src.Path)
		}
		return Image{}, err
	}
	if !c.podman {
		return c.loadDocker(ctx, p, dir, lm, src)
	}
	if img, err := c.checkStore(ctx, p, &lm.Config); err == nil {
		return img, c.tag(ctx, img, p)
	}
	stage, err := owner.MkdirTemp("", TempPrefixStage)
	if err != nil {
		return Image{}, err
	}
	defer os.RemoveAll(stage)
	if err := stageLayout(dir, stage, lm.Desc); err != nil {
		return Image{}, fmt.Errorf("stage OCI layout: %w", err)
	}
	if _, err := c.output(ctx, "pull", "--quiet", "oci:"+stage); err != nil {
		return Image{}, fmt.Errorf("%w: load %v %q: %v", ErrEngine, src.Kind, src.Path, err)
	}
	img, err := c.checkStore(ctx, p, &lm.Config)
	if err != nil {
		return Image{}, err
	}
	// podman names an image pulled from oci:DIR after DIR; drop that name.
	if ei, err := c.inspectImage(ctx, img.ID); err == nil {
		for _, t := range ei.RepoTags {
			if strings.Contains(t, strings.TrimPrefix(stage, "/")) {
				_, _ = c.output(ctx, "untag", img.ID, t)
			}
		}
	}
	return img, c.tag(ctx, img, p)
}

// tag gives a loaded image the NAME:TAG of its reference, when the
// reference has a tag, so people can find it; lookups never use it.
func (c *CLI) tag(ctx context.Context, img Image, p PinnedRef) error {
	if p.Tag == "" {
		return nil
	}
	if _, err := c.output(ctx, "tag", img.ID, p.Tagged()); err != nil {
		return fmt.Errorf("%w: tag %s as %q: %v", ErrEngine, img.ID, p.Tagged(), err)
	}
	return nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
