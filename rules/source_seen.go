package rules

import (
	"fmt"
	"strings"
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
