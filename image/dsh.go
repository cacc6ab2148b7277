package image

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// DESIGN.md "Sandbox image", dsh install and its normalisations.

// DshPackage is the npm package of dsh.
const DshPackage = "@deepseek-ai/dsh"

// NPMRC is the .npmrc the dsh install uses and the image records at
// /opt/dsh/.npmrc. A plain install of an old dsh release resolves today's
// Cordis and fails to boot; pnpm's time-based resolution resolves the
// dependencies as of the release (SANDBOX.md; design note, "installing an
// old release").
const NPMRC = "resolution-mode=time-based\n"

// pnpmCutoffSlack is what pnpm 9 adds to the newest direct dependency's
// publish time to get the time-based cutoff ("publishedBy").
const pnpmCutoffSlack = time.Hour

// fixedStoreDir replaces the host path of pnpm's store that pnpm writes
// into node_modules/.modules.yaml; nothing in the image reads it.
const fixedStoreDir = "/var/cache/pnpm-store/v3"

// fixedPrunedAt replaces the wall-clock time pnpm writes into
// node_modules/.modules.yaml.
const fixedPrunedAt = "Thu, 01 Jan 1970 00:00:00 GMT"

var (
	prunedAtRE = lazyregexp.New(`(?m)^prunedAt: .*$`)
	storeDirRE = lazyregexp.New(`(?m)^storeDir: .*$`)
)

// DshInstallRequest is one dsh install into a staging root.
type DshInstallRequest struct {
	Version   string
	Registry  string
	NodeBin   string // host path of the image's node binary
	PNPMCjs   string // host path of the image's pnpm.cjs
	StageRoot string // host directory standing for the image root; the install goes to StageRoot/opt/dsh
	WorkDir   string // scratch for pnpm's state and home
	// StoreDir and CacheDir hold pnpm's content store and registry
	// document cache; shared between builds when set (default: in WorkDir).
	StoreDir string
	CacheDir string
	// DshPublished is the registry's publish time of the dsh version.
	DshPublished time.Time
	// WantCutoff, when non-zero, must equal the cutoff pnpm derives, or the
	// build stops: the registry's publish time drifted (DSHIO/T 21 9).
	WantCutoff time.Time
	Log        io.Writer
}

// Resolution records how the dsh dependency tree was resolved.
type Resolution struct {
	Mode string `json:"mode"` // "time-based"
	// Cutoff is pnpm's publishedBy: the dsh release's publish time + 1 h.
	Cutoff         time.Time `json:"cutoff"`
	DshPublished   time.Time `json:"dshPublished"`
	Packages       int       `json:"packages"`
	LockfileSHA256 string    `json:"lockfileSha256"`
	NPMRCSHA256    string    `json:"npmrcSha256"`
	DshIntegrity   string    `json:"dshIntegrity"`
	// AfterCutoff lists resolved name@version published after the cutoff:
	// exact pins (platform binaries, mostly optional and skipped) that
	// pnpm cannot move. Recorded, not hidden.
	AfterCutoff []string `json:"afterCutoff"`
}

// InstallDsh installs dsh into req.StageRoot/opt/dsh with the image's node
// and pnpm, then normalises what pnpm writes that depends on the host or
// the clock, and fails if the staging path is still named anywhere.
func InstallDsh(ctx context.Context, req DshInstallRequest) (Resolution, error) {
	res := Resolution{Mode: "time-based", DshPublished: req.DshPublished}
	if !req.DshPublished.IsZero() {
		res.Cutoff = req.DshPublished.Add(pnpmCutoffSlack)
	}
	if !req.WantCutoff.IsZero() && !req.WantCutoff.Equal(res.Cutoff) {
		return res, fmt.Errorf("%w: --resolution-cutoff %s, but pnpm 9 derives %s from %s@%s's publish time %s (the registry's publish time changed, or the cutoff belongs to another release)",
			ErrResolution, req.WantCutoff.Format(time.RFC3339Nano), res.Cutoff.Format(time.RFC3339Nano), DshPackage, req.Version, req.DshPublished.Format(time.RFC3339Nano))
	}
	dir := filepath.Join(req.StageRoot, "opt", "dsh")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	if err := os.WriteFile(filepath.Join(dir, ".npmrc"), []byte(NPMRC), 0o644); err != nil {
		return res, err
	}
	home := filepath.Join(req.WorkDir, "home")
	cache := req.CacheDir
	if cache == "" {
		cache = filepath.Join(req.WorkDir, "pnpm-cache")
	}
	store := req.StoreDir
	if store == "" {
		store = filepath.Join(req.WorkDir, "pnpm-store")
	}
	for _, d := range []string{home, cache, store} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return res, err
		}
	}
	args := []string{req.PNPMCjs, "add", DshPackage + "@" + req.Version,
		"--registry=" + req.Registry,
		"--store-dir=" + store,
		"--cache-dir=" + cache,
		"--config.state-dir=" + filepath.Join(req.WorkDir, "pnpm-state"),
		"--config.package-import-method=copy",
		"--reporter=append-only",
	}
	cmd := exec.CommandContext(ctx, req.NodeBin, args...)
	cmd.Dir = dir
	cmd.Env = installEnv(home, filepath.Dir(req.NodeBin))
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(req.Log, &out)
	cmd.Stderr = io.MultiWriter(req.Log, &out)
	fmt.Fprintf(req.Log, "image: pnpm add %s@%s (resolution-mode=time-based) in staging /opt/dsh\n", DshPackage, req.Version)
	if err := cmd.Run(); err != nil {
		return res, fmt.Errorf("%w: pnpm add %s@%s: %v; last output: %s (check the version is published and installs: see SANDBOX.md's table of dsh versions)",
			ErrInstall, DshPackage, req.Version, err, tail(out.String(), 600))
	}
	if err := normaliseDshTree(dir, req.StageRoot); err != nil {
		return res, err
	}
	if err := checkNoHostPaths(dir, req.StageRoot, req.WorkDir, store, cache); err != nil {
		return res, err
	}
	lock, err := os.ReadFile(filepath.Join(dir, "pnpm-lock.yaml"))
	if err != nil {
		return res, fmt.Errorf("%w: no pnpm-lock.yaml after install: %v", ErrInstall, err)
	}
	res.LockfileSHA256 = sha256Hex(lock)
	res.NPMRCSHA256 = sha256Hex([]byte(NPMRC))
	pkgs, dshIntegrity, err := lockPackages(lock, req.Version)
	if err != nil {
		return res, err
	}
	res.Packages = len(pkgs)
	res.DshIntegrity = dshIntegrity
	if !res.Cutoff.IsZero() {
		after, err := afterCutoff(pkgs, cache, req.Registry, res.Cutoff)
		if err != nil {
			return res, err
		}
		res.AfterCutoff = after
	}
	return res, nil
}

// installEnv is the host environment minus what would make the install
// depend on the build user: HOME points into the work dir (no ~/.npmrc,
// no shared pnpm cache), npm_config_* variables are dropped, PATH starts
// with the image's node.
func installEnv(home, nodeBinDir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "npm_config_") || strings.HasPrefix(lk, "pnpm_") || k == "HOME" || k == "PATH" || strings.HasPrefix(k, "XDG_") || k == "NODE_OPTIONS" || k == "NODE_PATH" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "PATH="+nodeBinDir+":/usr/local/bin:/usr/bin:/bin", "CI=true")
}

// normaliseDshTree rewrites what pnpm wrote that names the host or the
// clock: the staging root in .bin shims becomes "" (so their NODE_PATH
// reads /opt/dsh/…), and in node_modules/.modules.yaml prunedAt becomes the
// Unix epoch and storeDir a fixed path.
func normaliseDshTree(dir, stageRoot string) error {
	needle := []byte(stageRoot)
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		isBin := filepath.Base(filepath.Dir(p)) == ".bin"
		isModules := d.Name() == ".modules.yaml"
		if !isBin && !isModules {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		nb := bytes.ReplaceAll(b, needle, nil)
		if isModules {
			nb = prunedAtRE.ReplaceAll(nb, []byte("prunedAt: "+fixedPrunedAt))
			nb = storeDirRE.ReplaceAll(nb, []byte("storeDir: "+fixedStoreDir))
		}
		if bytes.Equal(b, nb) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(p, nb, fi.Mode().Perm())
	})
}

// checkNoHostPaths fails with ErrHostPathLeak naming every file or link
// under dir that still mentions one of the host paths.
func checkNoHostPaths(dir string, hostPaths ...string) error {
	var leaks []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var b []byte
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			b = []byte(l)
		case d.Type().IsRegular():
			b, err = os.ReadFile(p)
			if err != nil {
				return err
			}
		default:
			return nil
		}
		for _, h := range hostPaths {
			if h != "" && bytes.Contains(b, []byte(h)) {
				rel, _ := filepath.Rel(dir, p)
				leaks = append(leaks, rel)
				break
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(leaks) > 0 {
		sort.Strings(leaks)
		more := ""
		if len(leaks) > 10 {
			more = fmt.Sprintf(" and %d more", len(leaks)-10)
			leaks = leaks[:10]
		}
		return fmt.Errorf("%w: /opt/dsh files naming the host staging path: %s%s", ErrHostPathLeak, strings.Join(leaks, ", "), more)
	}
	return nil
}

type lockedPkg struct{ Name, Version string }

// lockPackages lists the packages of a pnpm v9 lockfile and returns dsh's
// own integrity string.
func lockPackages(lock []byte, dshVersion string) ([]lockedPkg, string, error) {
	var lf struct {
		LockfileVersion string `yaml:"lockfileVersion"`
		Packages        map[string]struct {
			Resolution struct {
				Integrity string `yaml:"integrity"`
			} `yaml:"resolution"`
		} `yaml:"packages"`
	}
	if err := yaml.Unmarshal(lock, &lf); err != nil {
		return nil, "", fmt.Errorf("%w: pnpm-lock.yaml: %v", ErrInstall, err)
	}
	var pkgs []lockedPkg
	var dshIntegrity string
	for k, v := range lf.Packages {
		i := strings.LastIndex(k, "@")
		if i <= 0 {
			return nil, "", fmt.Errorf("%w: pnpm-lock.yaml: package key %q has no version", ErrInstall, k)
		}
		p := lockedPkg{Name: k[:i], Version: k[i+1:]}
		pkgs = append(pkgs, p)
		if p.Name == DshPackage && p.Version == dshVersion {
			dshIntegrity = v.Resolution.Integrity
		}
	}
	sort.Slice(pkgs, func(a, b int) bool {
		if pkgs[a].Name != pkgs[b].Name {
			return pkgs[a].Name < pkgs[b].Name
		}
		return pkgs[a].Version < pkgs[b].Version
	})
	if dshIntegrity == "" {
		return nil, "", fmt.Errorf("%w: pnpm-lock.yaml has no %s@%s", ErrInstall, DshPackage, dshVersion)
	}
	return pkgs, dshIntegrity, nil
}

// afterCutoff reads the registry documents pnpm cached during the install
// (time-based resolution fetches full documents, with publish times) and
// lists the resolved packages published after the cutoff.
func afterCutoff(pkgs []lockedPkg, cacheDir, registry string, cutoff time.Time) ([]string, error) {
	u, err := url.Parse(registry)
	if err != nil {
		return nil, fmt.Errorf("registry %q: %w", registry, ErrBadInput)
	}
	metaDirs, _ := filepath.Glob(filepath.Join(cacheDir, "metadata*", u.Host))
	if len(metaDirs) == 0 {
		return nil, fmt.Errorf("%w: pnpm cached no registry documents under %q", ErrResolution, cacheDir)
	}
	after := []string{}
	var missing []string
	for _, p := range pkgs {
		var doc struct {
			Time map[string]string `json:"time"`
		}
		found := false
		for _, md := range metaDirs {
			b, err := os.ReadFile(filepath.Join(md, filepath.FromSlash(p.Name)+".json"))
			if err != nil {
				continue
			}
			if json.Unmarshal(b, &doc) == nil && doc.Time[p.Version] != "" {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, p.Name+"@"+p.Version)
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, doc.Time[p.Version])
		if err != nil {
			missing = append(missing, p.Name+"@"+p.Version)
			continue
		}
		if t.After(cutoff) {
			after = append(after, p.Name+"@"+p.Version)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: no publish time for %d resolved packages, e.g. %s", ErrResolution, len(missing), missing[0])
	}
	return after, nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
