package pkgsource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/internal/hosttool"

	"github.com/dshaudit/dshaudit/internal/owner"
	"github.com/dshaudit/dshaudit/vsa"
)

// TempPrefix starts the name of the temporary directory a local
// directory is packed in (owner.MkdirTemp names it; owner.SweepDirs takes
// the prefix).
const TempPrefix = "dshaudit-pack-"

// readLocalTarball reads a local package tarball with the tarball limit.
func readLocalTarball(p string, lim Limits) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLocalSource, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %q is not a regular file", ErrLocalSource, p)
	}
	b, err := readBoundedFile(p, lim.MaxTarballBytes)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrLocalSource, err)
	}
	return b, nil
}

// packResult is npm pack --json's record of one packed package.
type packResult struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Filename  string `json:"filename"`
	Integrity string `json:"integrity"`
}

// PackDir packs a local package directory exactly as npm would publish
// it: `npm pack --json --ignore-scripts --pack-destination TMP DIR`, so
// files, .npmignore and npm's always-included files count as they do on
// publish, and no author script runs. npm pack writes fixed mtimes and
// modes, so the tarball is deterministic for one npm version; that
// version is returned so it can be recorded. The directory is only read.
func PackDir(ctx context.Context, npm, dir string, lim Limits) (tgz []byte, npmVersion string, err error) {
	if npm == "" {
		npm = "npm"
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %q: %w", ErrLocalSource, dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrLocalSource, err)
	}
	if !st.IsDir() {
		return nil, "", fmt.Errorf("%w: %q is not a directory (a tarball must end .tgz, .tar.gz or .tar)", ErrLocalSource, dir)
	}
	if _, err := os.Stat(filepath.Join(abs, "package.json")); err != nil {
		return nil, "", fmt.Errorf("%w: %w: %q has no package.json", ErrUnresolvable, ErrLocalSource, dir)
	}
	// A missing npm is the environment's failure, not the directory's
	// (which is checked first): hosttool.ErrMissing, naming npm (exit 3).
	npm, err = hosttool.Look(npm, "apt-get install -y npm, or run scripts/setup.sh")
	if err != nil {
		return nil, "", err
	}
	tmp, err := owner.MkdirTemp("", TempPrefix)
	if err != nil {
		return nil, "", fmt.Errorf("%w: temp dir: %w", ErrLocalSource, err)
	}
	defer os.RemoveAll(tmp)

	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	env := append(os.Environ(), "npm_config_update_notifier=false", "npm_config_fund=false",
		"npm_config_audit=false", "npm_config_loglevel=error")
	run := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, npm, args...)
		cmd.Env, cmd.Dir = env, tmp
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%w: npm %s: %w: %s", ErrLocalSource, strings.Join(args, " "), err, firstLine(stderr.String()))
		}
		return out, nil
	}
	vout, err := run("--version")
	if err != nil {
		return nil, "", err
	}
	npmVersion = strings.TrimSpace(string(vout))
	out, err := run("pack", "--json", "--ignore-scripts", "--pack-destination", tmp, abs)
	if err != nil {
		return nil, "", err
	}
	var packed []packResult
	if err := json.Unmarshal(out, &packed); err != nil || len(packed) != 1 {
		return nil, "", fmt.Errorf("%w: npm pack --json of %q: expected one package record, got %q", ErrLocalSource, dir, firstLine(string(out)))
	}
	name := filepath.Base(packed[0].Filename)
	if name != packed[0].Filename || name == "." || name == ".." {
		return nil, "", fmt.Errorf("%w: npm pack named its tarball %q", ErrLocalSource, packed[0].Filename)
	}
	tgz, err = readLocalTarball(filepath.Join(tmp, name), lim)
	if err != nil {
		return nil, "", err
	}
	if got := vsa.TarballOf(tgz).Integrity(); packed[0].Integrity != "" && got != packed[0].Integrity {
		return nil, "", fmt.Errorf("%w: npm pack reported %q, the file it wrote is %q", ErrIntegrity, packed[0].Integrity, got)
	}
	return tgz, npmVersion, nil
}
