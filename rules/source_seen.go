package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// StorePath is one path into pnpm's virtual store that a line shows: the
// package whose directory it is, the reference pnpm's directory name
// gives after the package's escaped name and "@", and the line.
type StorePath struct {
	Package, Ref, Line string
	// Root is the directory whose node_modules holds the store: the path
	// before "/node_modules/.pnpm/", without a "file://" scheme ("" when
	// the path has no directory before it).
	Root string
}

// StorePaths returns every virtual store path in a cleaned line whose
// directory name is the package's own escaped name (pnpm writes a scoped
// name "@scope+name"), in order. A directory name pnpm shortened with a
// hash, whose name part is not the package's, is not read.
func StorePaths(line string) []StorePath {
	var out []StorePath
	for _, ix := range storeDirAll.Re().FindAllStringSubmatchIndex(line, -1) {
		name, ref, pkg := line[ix[2]:ix[3]], line[ix[4]:ix[5]], line[ix[6]:ix[7]]
		if name != strings.ReplaceAll(pkg, "/", "+") {
			continue
		}
		out = append(out, StorePath{Package: pkg, Ref: ref, Line: line, Root: storeRoot(line[:ix[0]])})
	}
	return out
}

// storeRoot is the path that ends before, the text up to a store path:
// from the last white space, "(" or "'" on, without a "file://" scheme.
func storeRoot(before string) string {
	i := strings.LastIndexAny(before, " \t(\"'`")
	root := strings.TrimPrefix(before[i+1:], "file://")
	if !strings.HasPrefix(root, "/") {
		return ""
	}
	return root
}

// Install source kinds a store path shows.
const (
	SeenLocal    = "a local tarball or directory"
	SeenRegistry = "the registry"
)

// SourceSeen is the install source a store path's reference shows: a
// local one for pnpm's "file+…" (a file: dependency), the registry for a
// reference that starts with a version's digit, "" for any other (not
// read).
func SourceSeen(p StorePath) string {
	switch {
	case strings.HasPrefix(p.Ref, "file+"):
		return SeenLocal
	case p.Ref != "" && p.Ref[0] >= '0' && p.Ref[0] <= '9':
		return SeenRegistry
	}
	return ""
}

// InstallSourceAgrees holds a store path of the subject's package to the
// subject's source (registry, local-tarball or local-dir): it returns ""
// when the path shows the same kind of source or none, else a sentence
// naming both sides. SPEC.md "The run model".
func InstallSourceAgrees(source, pkg string, p StorePath) string {
	if p.Package != pkg {
		return ""
	}
	seen := SourceSeen(p)
	want := SeenRegistry
	if source == "local-tarball" || source == "local-dir" {
		want = SeenLocal
	}
	if seen == "" || seen == want {
		return ""
	}
	return fmt.Sprintf("subject.source is %q, but the output shows %s installed from %s (pnpm's store directory %q in %q)",
		source, pkg, seen, strings.ReplaceAll(pkg, "/", "+")+"@"+p.Ref, boundLine(p.Line))
}

// hashedRef: a store directory name pnpm shortened or case-folded with a
// hash (depPathToFilename: the name cut, "_" and 26 base32 characters).
var hashedRef = lazyregexp.New(`_[a-z2-7]{26}$`)

// InstalledObjectAgrees holds a store path of the subject's package,
// of the same kind of source as the subject's (InstallSourceAgrees says
// the rest), to the subject itself: a registry install's directory
// names the subject's version, and a local one's names subject.spec (a
// path) as pnpm writes a file: dependency, relative to dir, the profile
// directory that holds the lockfile ("file+..+..+..+pkgs+x.tgz" for
// /pkgs/x.tgz from /dsh-home/profiles/web), or, when dir is "", by the
// spec's file name. What follows a "_" (pnpm's peer suffix) is not read,
// nor a directory name pnpm shortened with a hash. It returns "" when
// the path agrees, else a sentence naming both sides. SPEC.md "The run
// model".
func InstalledObjectAgrees(source, pkg, version, spec, dir string, p StorePath) string {
	if p.Package != pkg || hashedRef.Re().MatchString(p.Ref) {
		return ""
	}
	local := source == "local-tarball" || source == "local-dir"
	dirName := strings.ReplaceAll(pkg, "/", "+") + "@" + p.Ref
	switch seen := SourceSeen(p); {
	case seen == SeenRegistry && !local:
		if v, _, _ := strings.Cut(p.Ref, "_"); v != version {
			return fmt.Sprintf("subject.version is %q, but the output shows %s %s installed (pnpm's store directory %q in %q)",
				version, pkg, v, dirName, boundLine(p.Line))
		}
	case seen == SeenLocal && local && strings.HasPrefix(spec, "/"):
		want := "+" + path.Base(spec)
		exact := false
		if dir != "" {
			if rel, ok := relPath(dir, spec); ok {
				want, exact = "file+"+strings.ReplaceAll(rel, "/", "+"), true
			}
		}
		ref := p.Ref
		if i := strings.Index(ref, want); !exact && i >= 0 {
			ref = ref[i:]
		}
		if ref != want && !strings.HasPrefix(ref, want+"_") {
			return fmt.Sprintf("subject.spec is %q, but the output shows %s installed from another file (pnpm's store directory %q in %q, where installing the spec gives %q)",
				spec, pkg, dirName, boundLine(p.Line), want)
		}
	}
	return ""
}

// relPath is target relative to base, both absolute and clean, as a
// path of "..", and names ("../../../pkgs/x.tgz").
func relPath(base, target string) (string, bool) {
	if !strings.HasPrefix(base, "/") || path.Clean(base) != base || path.Clean(target) != target {
		return "", false
	}
	b, t := strings.Split(base[1:], "/"), strings.Split(target[1:], "/")
	i := 0
	for i < len(b) && i < len(t)-1 && b[i] == t[i] {
		i++
	}
	parts := make([]string, 0, len(b)-i+len(t)-i)
	for range b[i:] {
		parts = append(parts, "..")
	}
	return strings.Join(append(parts, t[i:]...), "/"), true
}
