package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/image"
)

// imageVerifyOptions are the flags of `dshaudit image verify`.
type imageVerifyOptions struct {
	Ref          string
	OCIArchive   string
	OCILayout    string
	CacheDir     string
	Cached       bool
	DebianMirror string
	JSON         bool
}

func newImageVerifyCmd(s *streams) *cobra.Command {
	o := &imageVerifyOptions{}
	c := &cobra.Command{
		Use:   "verify NAME@sha256:DIGEST (--oci-archive FILE | --oci-layout DIR)",
		Short: "Rebuild a sandbox image from the inputs recorded in it and compare",
		Long: `verify reads /opt/dshaudit/inputs.json from the given image (the Debian
lock, Node, pnpm and dsh versions and integrities, the npm registry),
rebuilds the image from those inputs alone, and compares the rebuilt
manifest digest with the pinned one. On a mismatch it names each layer
whose content differs and lists the files that differ in it (path, type,
size, mode, owner, sha256), as rebuilder tools do.

The given image comes from an OCI archive or layout (what
` + "`dshaudit image build --oci-archive`" + ` publishes); its manifest must hash to the
pinned digest. By default every layer is rebuilt (downloads stay cached,
each checked by its digest); --cached reuses layers this machine's cache
already built from the same inputs. See DESIGN.md "Rebuild and compare".

Exit codes:
  0  the rebuild has the pinned digest
  1  the rebuild differs (layers and files listed)
  2  usage error, or the archive does not hold the pinned image
  3  could not rebuild: a locked .deb no longer served, registry or
     network down, mmdebstrap or pnpm failed, or the image records
     inputs this dshaudit cannot rebuild`,
		Example: `  # check a published image archive
  dshaudit image verify localhost/dsh-sandbox:0.1.0-rc.8@sha256:… --oci-archive dsh-sandbox.oci.tar

  # machine-readable, reusing layers already in the cache
  dshaudit image verify REF --oci-layout out/layout --cached --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Ref = args[0]
			return runImageVerify(cmd.Context(), o, s)
		},
	}
	f := c.Flags()
	f.StringVar(&o.OCIArchive, "oci-archive", "", "the image as an OCI archive (tar of a layout)")
	f.StringVar(&o.OCILayout, "oci-layout", "", "the image as an OCI layout directory")
	f.StringVar(&o.CacheDir, "cache-dir", image.DefaultCacheDir(), "cache for downloads (and layers with --cached)")
	f.BoolVar(&o.Cached, "cached", false, "reuse layers the cache already built from the same inputs instead of rebuilding them")
	f.StringVar(&o.DebianMirror, "debian-mirror", "", "download the locked .debs from this mirror (checked by sha256)")
	f.BoolVar(&o.JSON, "json", false, "print the result object ("+ImageVerifyMediaType+")")
	return c
}

// ImageVerifyMediaType identifies the --json object of `dshaudit image
// verify`.
const ImageVerifyMediaType = "application/vnd.dshaudit.image-verify-result.v1+json"

// imageVerifyResult is the --json output.
type imageVerifyResult struct {
	MediaType     string            `json:"media_type"`
	SchemaVersion int               `json:"schema_version"`
	Ref           string            `json:"ref"`
	Want          string            `json:"want"`
	Rebuilt       string            `json:"rebuilt,omitempty"`
	Same          bool              `json:"same"`
	Layers        []image.LayerDiff `json:"layers,omitempty"`
	Notes         []string          `json:"notes,omitempty"`
	Error         string            `json:"error,omitempty"`
}

func runImageVerify(ctx context.Context, o *imageVerifyOptions, s *streams) error {
	p, err := engine.ParsePinned(o.Ref)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	var src engine.Source
	switch {
	case o.OCIArchive != "" && o.OCILayout != "":
		return fmt.Errorf("%w: give one of --oci-archive and --oci-layout", ErrUsage)
	case o.OCIArchive != "":
		src = engine.FromOCIArchive(o.OCIArchive)
	case o.OCILayout != "":
		src = engine.FromOCILayout(o.OCILayout)
	default:
		return fmt.Errorf("%w: give the image with --oci-archive FILE or --oci-layout DIR", ErrUsage)
	}
	tmp, err := os.MkdirTemp("", "dshaudit-verify-")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCouldNotRun, err)
	}
	defer os.RemoveAll(tmp)
	given, err := engine.OpenOCI(src, p.Digest, tmp)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	res := imageVerifyResult{MediaType: ImageVerifyMediaType, SchemaVersion: 1, Ref: o.Ref, Want: p.Digest.String()}
	r, err := image.Verify(ctx, p.Digest, given, image.Options{CacheDir: o.CacheDir, NoCache: !o.Cached, Log: s.ErrOut, DebianMirror: o.DebianMirror})
	if r != nil {
		res.Rebuilt = r.Digest.String()
	}
	var de *image.ImageDiffError
	switch {
	case err == nil:
		res.Same = true
	case errors.As(err, &de):
		res.Layers, res.Notes = de.Layers, de.Notes
	case errors.Is(err, context.Canceled):
		return err
	default:
		res.Error = err.Error()
	}
	if o.JSON {
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		if e := enc.Encode(res); e != nil {
			return e
		}
	} else {
		printImageVerify(s, res)
	}
	switch {
	case res.Same:
		return nil
	case de != nil:
		return fmt.Errorf("%w: %s", ErrFindings, de.Error())
	default:
		return fmt.Errorf("%w: %w", ErrCouldNotRun, err)
	}
}

func printImageVerify(s *streams, r imageVerifyResult) {
	switch {
	case r.Same:
		fmt.Fprintf(s.Out, "SAME %s: the rebuild from the recorded inputs has the pinned digest\n", r.Want)
		return
	case r.Error != "":
		fmt.Fprintf(s.Out, "COULD-NOT-BUILD %s: %s\n", r.Want, r.Error)
		return
	}
	fmt.Fprintf(s.Out, "DIFFERENT %s: rebuilt %s\n", r.Want, r.Rebuilt)
	for _, n := range r.Notes {
		fmt.Fprintf(s.Out, "  %s\n", n)
	}
	for _, l := range r.Layers {
		fmt.Fprintf(s.Out, "  layer %d (%s): given %s, rebuilt %s\n", l.Index+1, l.History, l.GivenDiffID, l.RebuiltDiffID)
		for _, f := range l.Files {
			fmt.Fprintf(s.Out, "    %q\n      given:   %s\n      rebuilt: %s\n", f.Path, fileRecLine(f.Given), fileRecLine(f.Rebuilt))
		}
		if l.FilesTruncated {
			fmt.Fprintf(s.Out, "    … more files differ (first %d listed)\n", len(l.Files))
		}
	}
}

func fileRecLine(f *image.FileRec) string {
	if f == nil {
		return "absent"
	}
	s := fmt.Sprintf("%s size %d mode %s uid %d gid %d", f.Type, f.Size, f.Mode, f.UID, f.GID)
	if f.Link != "" {
		s += fmt.Sprintf(" -> %q", f.Link)
	}
	if f.SHA256 != "" {
		s += " sha256 " + f.SHA256
	}
	return s
}
