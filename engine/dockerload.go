package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/dshaudit/dshaudit/internal/owner"
)

// loadDocker loads a verified OCI manifest into docker (DESIGN.md "Image
// digest check"). docker 20.10 cannot load an OCI archive, so the verified
// image is written as a docker-archive (go-containerregistry's tarball
// format: the config bytes unchanged, the layers as in the layout) and
// given to `docker load`. A loaded image has no repo digest in docker, so
// the check after loading is that docker's image ID is the config digest
// the verified manifest names: the config lists every layer's diffID, so
// the ID identifies the content the pinned manifest describes.
func (c *CLI) loadDocker(ctx context.Context, p PinnedRef, dir string, lm *localManifest, src Source) (Image, error) {
	want := Image{Ref: p.Original, Digest: p.Digest.String(), ID: lm.Config.Hex}
	if ei, err := c.inspectImage(ctx, lm.Config.String()); err == nil && ei.ID == lm.Config.Hex {
		return want, c.tag(ctx, want, p)
	}
	img, err := layout.Path(dir).Image(lm.Digest)
	if err != nil {
		return Image{}, fmt.Errorf("read OCI layout %q: %w", dir, err)
	}
	tagged := p.Tagged()
	if p.Tag == "" {
		tagged = p.Repository + ":sha256-" + p.Digest.Hex[:12]
	}
	tag, err := name.NewTag(tagged)
	if err != nil {
		return Image{}, fmt.Errorf("%w: docker tag %q: %v", ErrBadSpec, tagged, err)
	}
	tmp, err := owner.MkdirTemp("", TempPrefixDockerLoad)
	if err != nil {
		return Image{}, err
	}
	defer os.RemoveAll(tmp)
	archive := filepath.Join(tmp, "image.docker.tar")
	if err := tarball.WriteToFile(archive, tag, img); err != nil {
		return Image{}, fmt.Errorf("write docker archive: %w", err)
	}
	if _, err := c.output(ctx, "load", "--quiet", "--input", archive); err != nil {
		return Image{}, fmt.Errorf("%w: docker load of %v %q: %v", ErrEngine, src.Kind, src.Path, err)
	}
	ei, err := c.inspectImage(ctx, tag.String())
	if err != nil {
		return Image{}, err
	}
	if ei.ID != lm.Config.Hex {
		return Image{}, &DigestMismatchError{Ref: p.Original, Want: "image ID " + lm.Config.Hex + " (the config digest manifest " + p.Digest.String() + " names)", Got: ei.ID, Location: "docker after load"}
	}
	return want, nil
}
