package pkgsource

import (
	"archive/tar"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestTarballClaim: the README and package of a claim tarball are those
// npm reads, and a tarball its consumers read differently is refused
// (SPEC.md "Consumers", T1–T4).
func TestTarballClaim(t *testing.T) {
	pj := `{"name":"hello-dsh-plugin","version":"1.0.0"}`
	readme, path, name, version, err := TarballClaim(buildTgz(t,
		entry{Name: "package/package.json", Body: pj}, entry{Name: "package/README.md", Body: "claim"}), 1<<20)
	if err != nil || string(readme) != "claim" || path != "README.md" || name != "hello-dsh-plugin" || version != "1.0.0" {
		t.Fatalf("plain tarball: %q %q %q %q %v", readme, path, name, version, err)
	}
	// The same text twice is read alike; a readme member equal to it too.
	if _, _, _, _, err := TarballClaim(buildTgz(t, entry{Name: "package/package.json", Body: `{"name":"a","version":"1.0.0","readme":"claim"}`},
		entry{Name: "package/README.md", Body: "claim"}, entry{Name: "package/README", Body: "claim"}), 1<<20); err != nil {
		t.Errorf("same README twice: %v", err)
	}
	for name, c := range map[string]struct {
		entries []entry
		want    error
	}{
		"two READMEs":            {[]entry{{Name: "package/README.md", Body: "a"}, {Name: "package/README", Body: "b"}}, ErrClaimAmbiguous},
		"readme member":          {[]entry{{Name: "package/package.json", Body: `{"name":"a","version":"1.0.0","readme":"other"}`}, {Name: "package/README.md", Body: "a"}}, ErrClaimAmbiguous},
		"package.json repeated":  {[]entry{{Name: "package/package.json", Body: `{"name":"a","name":"b","version":"1.0.0"}`}, {Name: "package/README.md", Body: "a"}}, ErrClaimAmbiguous},
		"case variants":          {[]entry{{Name: "package/README.md", Body: "a"}, {Name: "package/readme.md", Body: "b"}}, ErrBadTarball},
		"later entry overwrites": {[]entry{{Name: "package/README.md", Body: "a"}, {Name: "package//README.md", Body: "b"}}, ErrBadTarball},
		"two roots":              {[]entry{{Name: "package/README.md", Body: "a"}, {Name: "other/README.md", Body: "b"}}, ErrBadTarball},
		"dot root":               {[]entry{{Name: "./package/README.md", Body: "a"}}, ErrBadTarball}, // npm reads package/README.md: no README at the root
		"README a link":          {[]entry{{Name: "package/README.md", Type: tar.TypeSymlink, Linkname: "/etc/passwd"}}, ErrBadTarball},
		"through a link":         {[]entry{{Name: "package/docs", Type: tar.TypeSymlink, Linkname: "/tmp"}, {Name: "package/docs/README.md", Body: "a"}, {Name: "package/README.md", Body: "a"}}, ErrBadTarball},
		"backslash":              {[]entry{{Name: "package\\README.md", Body: "a"}, {Name: "package/README.md", Body: "a"}}, ErrBadTarball},
	} {
		if _, _, _, _, err := TarballClaim(buildTgz(t, c.entries...), 1<<20); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", name, err, c.want)
		}
	}
	// Bytes after the gzip member (a second member) are refused.
	tgz := buildTgz(t, entry{Name: "package/README.md", Body: "a"})
	if _, _, _, _, err := TarballClaim(append(tgz, tgz...), 1<<20); !errors.Is(err, ErrBadTarball) {
		t.Errorf("second gzip member: %v", err)
	}
	// One byte after the member is refused and named; none is read.
	if _, _, _, _, err := TarballClaim(append(slices.Clip(tgz), 0), 1<<20); !errors.Is(err, ErrBadTarball) || !strings.Contains(err.Error(), "1 bytes follow the gzip member") {
		t.Errorf("one trailing byte: %v", err)
	}
	if _, _, _, _, err := TarballClaim(tgz, 1<<20); err != nil {
		t.Errorf("one member: %v", err)
	}
}

// T0's README is not read when the tarball holds several of different
// texts (SPEC.md "Consumers", T4): the runner warns, and T0 registers
// no exception.
func TestFetchedReadmeAmbiguous(t *testing.T) {
	f := &Fetched{Tarball: buildTgz(t, entry{Name: "package/README.md", Body: "a"}, entry{Name: "package/README", Body: "b"})}
	if _, err := f.readTarball(Limits{}); err != nil {
		t.Fatal(err)
	}
	if f.README != nil || len(f.Warnings) == 0 {
		t.Errorf("README %q, warnings %q", f.README, f.Warnings)
	}
	f = &Fetched{Tarball: buildTgz(t, entry{Name: "package/README.md", Body: "a"}, entry{Name: "package/readme.txt", Body: "a"})}
	if _, err := f.readTarball(Limits{}); err != nil || string(f.README) != "a" || f.ReadmePath != "README.md" {
		t.Errorf("same text twice: %q %q %v", f.README, f.ReadmePath, err)
	}
}
