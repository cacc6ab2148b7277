package pkgsource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/dshaudit/dshaudit/internal/hosttool"
	"github.com/dshaudit/dshaudit/internal/pkgtar"
	"github.com/dshaudit/dshaudit/rules/static"
	"github.com/dshaudit/dshaudit/vsa"
	"net/http"
	"os"
	"time"
)

// Condition is a variable condition of a T0 run: a fact about where and
// how the inputs were obtained that can differ between runs or places
// and so must be reported beside the result.
type Condition struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Fetched is the T0 input set for one exact package version.
type Fetched struct {
	Spec   Spec       `json:"spec"`
	Source SourceKind `json:"source"`
	// Name and Version identify the exact object under test (DSHIO/T 10
	// 7.2).
	Name    string `json:"name"`
	Version string `json:"version"`
	// Registry is the registry base URL (registry sources only).
	Registry string `json:"registry,omitempty"`
	// TarballURL is where the tarball was downloaded from.
	TarballURL string `json:"tarball_url,omitempty"`
	// MetadataJSON is the metadata evidence: for a registry source the
	// registry's own bytes of versions[Version], never re-encoded; for a
	// local source the package.json inside the tarball.
	MetadataJSON []byte `json:"-"`
	// Tarball is the package tarball, verified against the registry's
	// integrity for registry sources.
	Tarball []byte `json:"-"`
	// Integrity is the tarball's sha512 SRI; TarballSHA256 its hex sha256.
	Integrity     string `json:"integrity"`
	TarballSHA256 string `json:"tarball_sha256"`
	// PatchDeclared is dsh.bundle.patch as written; PatchPath the
	// package-relative path it normalises to ("" when absent or unsafe).
	PatchDeclared string `json:"patch_declared,omitempty"`
	PatchPath     string `json:"patch_path,omitempty"`
	// Patch is the patch file; nil when it could not be had, then
	// PatchFetchError says why. Non-nil and empty means an empty file.
	Patch           []byte `json:"-"`
	PatchFetchError string `json:"patch_fetch_error,omitempty"`
	// PatchSource is the CDN URL the patch came from, or "tarball".
	PatchSource string `json:"patch_source,omitempty"`
	// CDNAttempts records every CDN asked, in template order.
	CDNAttempts []CDNAttempt `json:"cdn_attempts,omitempty"`
	// README is the package README (nil when absent) and ReadmePath its
	// package-relative name.
	README     []byte `json:"-"`
	ReadmePath string `json:"readme_path,omitempty"`
	// Conditions are the variable conditions of this fetch.
	Conditions []Condition `json:"conditions"`
	// Warnings are discrepancies worth a human's attention that do not
	// stop T0 (e.g. the tarball's package.json differs from the
	// registry's metadata, a CDN's copy differs from the tarball's).
	Warnings []string `json:"warnings,omitempty"`
}

// Options configure Fetch. The zero value fetches from npm's configured
// registry with the default CDNs and limits.
type Options struct {
	// Registry overrides npm's configured registry.
	Registry string
	// NPMConfig, when set, is used instead of asking npm (tests, or a
	// caller that already read it).
	NPMConfig *NPMConfig
	// HTTPClient, when set, replaces the client built from NPMConfig.
	HTTPClient *http.Client
	// CDNTemplates are tried for the patch file; nil means
	// DefaultCDNTemplates, an empty non-nil slice means no CDN.
	CDNTemplates []string
	// CDNTimeout bounds each CDN request (default 5 s).
	CDNTimeout time.Duration
	// Timeout bounds each registry request, body included (default 60 s).
	Timeout time.Duration
	Limits  Limits
	// NPM is the npm executable (default "npm" on PATH), used to read
	// npm's configuration and to pack local directories.
	NPM string
}

// Default timeouts.
const (
	DefaultCDNTimeout      = 5 * time.Second
	DefaultRegistryTimeout = 60 * time.Second
)

func (o Options) withDefaults() Options {
	if o.CDNTemplates == nil {
		o.CDNTemplates = DefaultCDNTemplates
	}
	if o.CDNTimeout <= 0 {
		o.CDNTimeout = DefaultCDNTimeout
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultRegistryTimeout
	}
	o.Limits = o.Limits.withDefaults()
	return o
}

// Fetch obtains the T0 inputs for spec (DSHIO/T 20 5.3): the metadata of
// exactly one version, its verified tarball, the patch file and the
// README. Any failure that leaves the metadata unobtainable wraps
// ErrUnresolvable (T 20 5.5 "unresolvable") beside its specific cause.
// DESIGN.md "T0 inputs".
func Fetch(ctx context.Context, spec Spec, opts Options) (*Fetched, error) {
	opts = opts.withDefaults()
	for _, t := range opts.CDNTemplates {
		if err := ValidateCDNTemplate(t); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidSpec, err)
		}
	}
	switch spec.Source {
	case SourceRegistry:
		return fetchRegistry(ctx, spec, opts)
	case SourceGitHub:
		return nil, fmt.Errorf("%w: %w: %q: GitHub is not reachable from this machine; clone the repository and pass its directory (./dir) or a packed tarball", ErrUnresolvable, ErrNotFetchable, spec.String())
	case SourceLocalTarball:
		tgz, err := readLocalTarball(spec.Path, opts.Limits)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnresolvable, err)
		}
		return fetchLocal(spec, tgz, opts, Condition{Name: "local_source", Value: "tarball " + spec.Path})
	case SourceLocalDir:
		tgz, npmVersion, err := PackDir(ctx, opts.NPM, spec.Path, opts.Limits)
		if errors.Is(err, hosttool.ErrMissing) {
			return nil, err // the environment's failure, not T0's
		} else if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnresolvable, err)
		}
		return fetchLocal(spec, tgz, opts, Condition{Name: "local_source", Value: fmt.Sprintf("directory %s packed with npm pack --ignore-scripts (npm %s)", spec.Path, npmVersion)})
	default:
		return nil, fmt.Errorf("%w: unknown source %q", ErrInvalidSpec, spec.Source)
	}
}

func fetchRegistry(ctx context.Context, spec Spec, opts Options) (*Fetched, error) {
	unresolvable := func(err error) (*Fetched, error) {
		return nil, fmt.Errorf("%w: %w", ErrUnresolvable, err)
	}
	cfg, err := npmConfigFor(ctx, opts)
	if err != nil {
		return unresolvable(err)
	}
	client := opts.HTTPClient
	if client == nil {
		if client, err = NewHTTPClient(cfg); err != nil {
			return unresolvable(err)
		}
	}
	reg := &Registry{Base: cfg.Registry, Client: client, Timeout: opts.Timeout, Limits: opts.Limits}
	f := &Fetched{Spec: spec, Source: SourceRegistry, Name: spec.Name, Registry: reg.Base}
	f.cond("registry", fmt.Sprintf("%s (from %s)", reg.Base, cfg.RegistryFrom))

	pk, err := reg.Packument(ctx, spec.Name)
	if err != nil {
		return unresolvable(err)
	}
	res, err := ResolveVersion(spec.Name, spec.SelectorKind, spec.Selector, pk.DistTags, pk.VersionList())
	if err != nil {
		return unresolvable(err)
	}
	f.Version = res.Version
	f.cond("version_resolution", res.How)
	raw := pk.Versions[res.Version]
	meta, err := ParseVersionMeta(raw, spec.Name, res.Version)
	if err != nil {
		return unresolvable(err)
	}
	f.MetadataJSON = bytes.Clone(raw)
	f.cond("metadata_source", "registry version object versions["+res.Version+"], raw bytes")

	// From here the metadata is had: failures are no longer
	// "unresolvable", they stop the fetch as environment or integrity
	// failures.
	tu, rewritten, err := reg.TarballURL(meta.Dist.Tarball)
	if err != nil {
		return nil, err
	}
	if rewritten {
		f.cond("tarball_url", fmt.Sprintf("%s (dist.tarball %s rewritten to the configured registry, as npm's replace-registry-host=npmjs does)", tu, meta.Dist.Tarball))
	}
	f.TarballURL = tu
	tgz, err := reg.Tarball(ctx, tu)
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("tarball of %q@%q", spec.Name, res.Version)
	if err := VerifyIntegrity(what, tgz, meta.Dist.Integrity, meta.Dist.Shasum); err != nil {
		return nil, err
	}
	f.setTarball(tgz)

	f.declarePatch()
	if f.PatchPath != "" && len(opts.CDNTemplates) > 0 {
		f.CDNAttempts = FetchFromCDNs(ctx, client, opts.CDNTemplates, f.Name, f.Version, f.PatchPath, opts.CDNTimeout, opts.Limits.MaxFileBytes)
	}
	idx, err := f.readTarball(opts.Limits)
	if err != nil {
		return nil, err
	}
	f.checkManifest(idx)
	f.choosePatch(idx, false)
	return f, nil
}

func npmConfigFor(ctx context.Context, opts Options) (NPMConfig, error) {
	var cfg NPMConfig
	if opts.NPMConfig != nil {
		cfg = *opts.NPMConfig
	} else {
		c, err := ReadNPMConfig(ctx, opts.NPM)
		if err != nil {
			if opts.Registry == "" {
				return NPMConfig{}, fmt.Errorf("%w: cannot determine the registry: %w", ErrRegistryUnreachable, err)
			}
			// --registry given: npm's cafile is unknown, the
			// environment's CA still counts.
			c = NPMConfig{ExtraCAFile: os.Getenv("NODE_EXTRA_CA_CERTS")}
		}
		cfg = c
	}
	if opts.Registry != "" {
		cfg.Registry, cfg.RegistryFrom = opts.Registry, "--registry"
	}
	if cfg.Registry == "" {
		cfg.Registry, cfg.RegistryFrom = DefaultRegistry, "npm default"
	}
	reg, err := normalizeRegistry(cfg.Registry)
	if err != nil {
		return NPMConfig{}, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	cfg.Registry = reg
	return cfg, nil
}

// fetchLocal builds the inputs from a local tarball: the metadata is the
// tarball's package.json and the patch comes from the tarball, since an
// unpublished package is on no CDN.
func fetchLocal(spec Spec, tgz []byte, opts Options, source Condition) (*Fetched, error) {
	f := &Fetched{Spec: spec, Source: spec.Source}
	f.Conditions = append(f.Conditions, source)
	f.setTarball(tgz)
	first, err := ReadTarball(tgz, opts.Limits, func(rel string) bool { return rel == "package.json" })
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnresolvable, err)
	}
	pj, ok := first.Read["package.json"]
	if !ok {
		return nil, fmt.Errorf("%w: %w: %s has no package/package.json", ErrUnresolvable, ErrBadTarball, spec.Path)
	}
	name, version, err := nameVersion(pj, spec.Path)
	if err != nil {
		return nil, err
	}
	f.Name, f.Version = name, version
	f.MetadataJSON = pj
	f.cond("metadata_source", "package.json inside the tarball (local source; a registry adds fields to its version object)")
	f.declarePatch()
	idx, err := f.readTarball(opts.Limits)
	if err != nil {
		return nil, err
	}
	f.choosePatch(idx, true)
	return f, nil
}

func (f *Fetched) cond(name, value string) {
	f.Conditions = append(f.Conditions, Condition{Name: name, Value: value})
}

func (f *Fetched) warn(format string, a ...any) {
	f.Warnings = append(f.Warnings, fmt.Sprintf(format, a...))
}

func (f *Fetched) setTarball(tgz []byte) {
	f.Tarball = tgz
	digests := vsa.TarballOf(tgz) // as verify derives them from the held tarball
	f.Integrity = digests.Integrity()
	f.TarballSHA256 = digests.SHA256()
}

// declarePatch reads and normalises dsh.bundle.patch from the metadata.
func (f *Fetched) declarePatch() {
	decl, ok, why := DeclaredPatch(f.MetadataJSON)
	if !ok {
		f.PatchFetchError = why
		return
	}
	f.PatchDeclared = decl
	p, err := static.CleanPatchPath(decl)
	if err != nil {
		f.PatchFetchError = fmt.Errorf("%w: dsh.bundle.patch: %w", ErrBadPatchPath, err).Error()
		return
	}
	f.PatchPath = p
}

// readTarball reads package.json, the README candidates and the patch.
func (f *Fetched) readTarball(lim Limits) (*pkgtar.Index, error) {
	idx, err := ReadTarball(f.Tarball, lim, func(rel string) bool {
		_, readme := pkgtar.ReadmeRank(rel)
		return rel == "package.json" || readme || (f.PatchPath != "" && rel == f.PatchPath)
	})
	if err != nil {
		return nil, fmt.Errorf("tarball of %q@%q: %w", f.Name, f.Version, err)
	}
	rm, err := pkgtar.ChooseReadme(idx)
	switch {
	case err != nil:
		// T0 reads no README, so registers no exception (SPEC.md
		// "Consumers", T4): which text a reader sees is not known.
		f.warn("the README is not read: %v", err)
	case rm != "":
		f.README, f.ReadmePath = idx.Read[rm], rm
	}
	return idx, nil
}

// checkManifest compares the registry's metadata with the tarball's own
// package.json ("manifest confusion": npm installs what the tarball says
// for some fields and what the registry says for others).
func (f *Fetched) checkManifest(idx *pkgtar.Index) {
	pj, ok := idx.Read["package.json"]
	if !ok {
		f.warn("the tarball has no package/package.json")
		return
	}
	var tb, rg struct{ Name, Version any }
	if err := checkJSON(pj); err != nil {
		f.warn("the tarball's package.json cannot be read as npm reads it: %v", err)
		return
	}
	if fields(pj, map[string]any{"name": &tb.Name, "version": &tb.Version}) != nil {
		f.warn("the tarball's package.json is not a JSON object")
		return
	}
	if checkJSON(f.MetadataJSON) == nil {
		_ = fields(f.MetadataJSON, map[string]any{"name": &rg.Name, "version": &rg.Version})
	}
	if fmt.Sprint(tb.Name) != fmt.Sprint(rg.Name) || fmt.Sprint(tb.Version) != fmt.Sprint(rg.Version) {
		f.warn("the tarball's package.json names %q@%q, the registry's metadata %q@%q", fmt.Sprint(tb.Name), fmt.Sprint(tb.Version), fmt.Sprint(rg.Name), fmt.Sprint(rg.Version))
	}
	tp, tok, _ := DeclaredPatch(pj)
	rp, rok, _ := DeclaredPatch(f.MetadataJSON)
	if tp != rp || tok != rok {
		f.warn("dsh.bundle.patch differs: the registry's metadata says %q, the tarball's package.json %q; T0 follows the registry (DSHIO/T 20 5.3)", rp, tp)
	}
}

// choosePatch takes the first CDN copy in template order; when no CDN
// gave one it takes the tarball's copy and records that as the variable
// condition patch_source.
func (f *Fetched) choosePatch(idx *pkgtar.Index, local bool) {
	if f.PatchPath == "" {
		return
	}
	inTar, tarOK := idx.Read[f.PatchPath]
	isLink := contains(idx.Links, f.PatchPath)
	for _, a := range f.CDNAttempts {
		if a.Outcome != "ok" && a.Outcome != "empty" {
			continue
		}
		f.Patch, f.PatchSource = a.Body, a.URL
		switch {
		case !tarOK:
			f.warn("%s serves %q, but the verified tarball has no such file", a.URL, f.PatchPath)
		case !bytes.Equal(inTar, a.Body):
			f.warn("%s serves a %q that differs from the verified tarball's copy", a.URL, f.PatchPath)
		}
		return
	}
	var why string
	answered := false
	for _, a := range f.CDNAttempts {
		answered = answered || a.Answered()
	}
	switch {
	case local:
		why = "local source: not published, so on no CDN"
	case len(f.CDNAttempts) == 0:
		why = "no CDN configured"
	case answered:
		why = "no CDN served the file: " + summarizeAttempts(f.CDNAttempts)
	default:
		why = "no CDN reachable: " + summarizeAttempts(f.CDNAttempts)
	}
	switch {
	case tarOK:
		f.Patch, f.PatchSource = inTar, "tarball"
		f.cond("patch_source", "tarball ("+why+")")
		if answered && !local {
			f.warn("a CDN answered without %q but the verified tarball has it (CDN lag?): %s", f.PatchPath, summarizeAttempts(f.CDNAttempts))
		}
	case isLink:
		f.PatchFetchError = fmt.Sprintf("patch file %q is a link in the tarball, not a file; %s", f.PatchPath, why)
	default:
		f.PatchFetchError = fmt.Sprintf("patch file %q is not in the published package; %s", f.PatchPath, why)
	}
}
