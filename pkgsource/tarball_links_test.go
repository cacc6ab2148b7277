package pkgsource

import (
	"archive/tar"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/pkgtar"
)

func linkEntry(name string) entry { return entry{Name: name, Type: tar.TypeSymlink, Linkname: "/etc"} }

// An entry under a link, in any case, is refused, naming the link's
// directory as the entry spells it.
func TestEntryUnderLink(t *testing.T) {
	for _, tc := range []struct {
		entries []entry
		want    string // "" for no error
	}{
		{[]entry{linkEntry("package/Lib"), {Name: "package/lib/sub/x"}}, `lies under the link "lib"`},
		{[]entry{linkEntry("package/a/B"), {Name: "package/A/b/c"}}, `lies under the link "A/b"`},
		{[]entry{linkEntry("package/Ünï"), {Name: "package/üNÏ/x"}}, `lies under the link "üNÏ"`},
		{[]entry{linkEntry("package/a/b"), {Name: "package/a/x/b"}}, ""},
		{[]entry{linkEntry("package/a/b"), {Name: "package/a/bb/c"}}, ""},
		{[]entry{linkEntry("package/a/b"), {Name: "package/a/b"}}, "appears twice"},
	} {
		_, err := pkgtar.Read(buildTgz(t, tc.entries...), pkgtar.Limits{}, func(string) bool { return false })
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.entries[1].Name, err)
		case tc.want != "" && (err == nil || !errors.Is(err, pkgtar.ErrBadTarball) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.entries[1].Name, err, tc.want)
		}
	}
}

// The bytes allocated per directory of an entry's path stay flat from
// depth n to 4n while the tarball has a link: each directory was
// case-folded on its own (depth² bytes when the path has upper case to
// fold, depth² work in any case). A name 64,000 directories deep, a
// tarball of 327 bytes, took 8 s; a PAX name can be 1 MiB (issue 48).
func TestDeepEntryUnderLinksIsLinear(t *testing.T) {
	perDir := func(depth int) float64 {
		tgz := buildTgz(t, linkEntry("package/zz"), entry{Name: "package/" + strings.Repeat("A/", depth) + "x"})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := pkgtar.Read(tgz, pkgtar.Limits{}, func(string) bool { return false }); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / float64(depth)
	}
	a, b := perDir(2000), perDir(8000)
	t.Logf("depth 2000: %.0f bytes allocated per directory; 8000: %.0f", a, b)
	if b > 1.5*a {
		t.Errorf("%.0f bytes per directory at depth 8000, %.0f at 2000: each directory is looked up on its own", b, a)
	}
}
