package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"
)

// The prefixes of the temporary directories the runner makes in
// Runner.TempDir (owner.MkdirTemp names them; owner.SweepDirs takes them).
const (
	TempPrefixProfile = "dshaudit-profile-"
	TempPrefixPackage = "dshaudit-pkgs-"
)

// Profile paths relative to DSH_HOME (SANDBOX.md: the first dsh command
// creates profiles/web/{package.json,cordis.patch.yml,pnpm-workspace.yaml}).
const (
	profilePackageJSON = "profiles/web/package.json"
	profileNodeModules = "profiles/web/node_modules"
	// maxProfilePackageJSON bounds the package.json read after T1.
	maxProfilePackageJSON = 1 << 20
)

// readProfilePackageJSON reads the profile's package.json after T1 from
// the host directory mounted as DSH_HOME. The container may have written
// anything there, so it is read through an os.Root (no symlink or ".."
// leads outside dir) and bounded. A missing file gives an empty slice:
// the evidence then shows that nothing was written (DSHIO/T 20 6.4).
func readProfilePackageJSON(dir string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: open profile directory %q: %w", ErrEnvironment, dir, err)
	}
	defer root.Close()
	f, err := root.Open(profilePackageJSON)
	if errors.Is(err, fs.ErrNotExist) {
		return []byte{}, nil
	}
	if err != nil {
		// A symlink leading out of the profile, a directory, …: the
		// plugin's doing, recorded as "nothing readable was written".
		return []byte{}, nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return []byte{}, nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxProfilePackageJSON+1))
	if err != nil {
		return nil, fmt.Errorf("%w: read %s in %q: %w", ErrEnvironment, profilePackageJSON, dir, err)
	}
	if len(b) > maxProfilePackageJSON {
		return nil, fmt.Errorf("%w: %s in %q is larger than %d bytes", ErrEvidence, profilePackageJSON, dir, maxProfilePackageJSON)
	}
	return b, nil
}

// installedSize measures the installed node_modules size of the profile
// after T1, for DSHIO/T 10 5.3.3: the apparent size of every regular file
// under profiles/web/node_modules, each inode once (pnpm hard-links from
// its store), symlinks not followed (pnpm's top-level links point into
// node_modules/.pnpm, which is counted itself). In a clean profile whose
// only dependency is the plugin (DSHIO/T 21 5.1.7) that is the plugin and
// everything it pulled in. It returns -1 when there is no node_modules.
func installedSize(dir string) (int64, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return -1, fmt.Errorf("%w: open profile directory %q: %w", ErrEnvironment, dir, err)
	}
	defer root.Close()
	fsys := root.FS()
	if st, err := fs.Stat(fsys, profileNodeModules); err != nil || !st.IsDir() {
		return -1, nil
	}
	type inode struct{ dev, ino uint64 }
	seen := map[inode]bool{}
	var total int64
	err = fs.WalkDir(fsys, profileNodeModules, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("walk %s: %w", path.Clean(p), err)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("stat %s: %w", p, err)
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			k := inode{uint64(st.Dev), uint64(st.Ino)}
			if seen[k] {
				return nil
			}
			seen[k] = true
		}
		total += info.Size()
		return nil
	})
	if err != nil {
		return -1, fmt.Errorf("%w: measure installed size in %q: %w", ErrEnvironment, dir, err)
	}
	return total, nil
}
