package pkgsource

import (
	"fmt"

	"github.com/dshaudit/dshaudit/internal/pkgtar"
)

// ErrClaimAmbiguous: readers of the tarball would take different texts
// for its README, or its package.json reads differently (SPEC.md
// "Consumers", T1–T4).
var ErrClaimAmbiguous = pkgtar.ErrAmbiguous

// TarballClaim reads an npm package tarball given as a claim
// (`verify --claim`) as npm reads it (SPEC.md "Claims", "Consumers"
// T1–T4): the entries as ReadTarball reads them (the first path
// component stripped; a path given twice in any case, mixed first
// components, a backslash, data after the gzip member refused), the
// README at the package root, and the name and version of its
// package.json read as JSON.parse reads them (J1–J6). It refuses
// (ErrClaimAmbiguous) a tarball with several README files of different
// texts (npm takes the first Markdown one, code hosts README.md first,
// others README) and a package.json whose "readme" member, which npm
// publishes as the package page's README, differs from the file's
// text. name and version are "" when there is no package.json.
func TarballClaim(tgz []byte, maxFile int64) (readme []byte, readmePath, name, version string, err error) {
	idx, err := ReadTarball(tgz, Limits{MaxFileBytes: maxFile}, func(rel string) bool {
		_, isReadme := pkgtar.ReadmeRank(rel)
		return rel == "package.json" || isReadme
	})
	if err != nil {
		return nil, "", "", "", err
	}
	readmePath, err = pkgtar.ChooseReadme(idx)
	if err != nil {
		return nil, "", "", "", err
	}
	if readmePath == "" {
		return nil, "", "", "", fmt.Errorf("%w: no README at the package root", ErrBadTarball)
	}
	readme = idx.Read[readmePath]
	pj, ok := idx.Read["package.json"]
	if !ok {
		return readme, readmePath, "", "", nil
	}
	if err := checkJSON(pj); err != nil {
		return nil, "", "", "", fmt.Errorf("%w: package.json: %w", ErrClaimAmbiguous, err)
	}
	var nameV, versionV, readmeV any
	if err := fields(pj, map[string]any{"name": &nameV, "version": &versionV, "readme": &readmeV}); err != nil {
		return nil, "", "", "", fmt.Errorf("%w: package.json: %v", ErrBadMetadata, err)
	}
	if s, ok := readmeV.(string); ok && s != "" && s != string(readme) {
		return nil, "", "", "", fmt.Errorf("%w: package.json has a readme member, which npm publishes as the package's README, with another text than %s", ErrClaimAmbiguous, readmePath)
	}
	name, _ = nameV.(string)
	version, _ = versionV.(string)
	return readme, readmePath, name, version, nil
}
