package static

import (
	"strings"

	"github.com/dshaudit/dshaudit/internal/jsonwalk"
)

// installScriptFields are the package.json members that make installing
// a package run code of its own (pnpm runs the lifecycle scripts of a
// dependency, and node-gyp for one with a binding.gyp or gypfile), or
// install further packages, whose scripts run too: any of them can
// change the files the tarball put in node_modules.
var installScriptFields = [...]string{"dependencies", "optionalDependencies", "bundleDependencies", "bundledDependencies", "scripts", "gypfile"}

// lifecycleScripts are the scripts pnpm may run when it installs a
// package (prepare only for some sources; counted here always).
var lifecycleScripts = [...]string{"preinstall", "install", "postinstall", "prepare"}

// InstalledFloor is the least installed size (SPEC.md "5.3.3 Package
// size (recommended)": the apparent size of every regular file under the
// profile's node_modules, each inode once) that installing a package can
// leave, read from its tarball's regular files (sizes, by path) and
// from each package.json document that says what installing it does
// (the tarball's, and a registry's metadata). pnpm puts every regular
// file of the tarball into node_modules and links files of equal content
// to one stored file, so files of different sizes are different inodes:
// the sum of the distinct sizes is a floor. It holds only when nothing
// the install runs can remove those files: ok is false when a document
// declares dependencies, bundled dependencies, an install lifecycle
// script or gypfile, when the tarball has a binding.gyp at its root or a
// file under a node_modules directory, or when a document does not read
// as one JSON object whose members read one way.
func InstalledFloor(sizes map[string]int64, docs ...[]byte) (floor int64, ok bool) {
	for _, doc := range docs {
		if !runsNothing(doc) {
			return 0, false
		}
	}
	distinct := map[int64]bool{}
	for rel, n := range sizes {
		if rel == "binding.gyp" || rel == "node_modules" || strings.HasPrefix(rel, "node_modules/") || strings.Contains(rel, "/node_modules/") {
			return 0, false
		}
		if !distinct[n] {
			distinct[n] = true
			floor += n
		}
	}
	return floor, true
}

// runsNothing reports whether the package.json doc declares nothing that
// makes installing the package run code or install other packages
// (installScriptFields): an empty or null dependencies object, and a
// scripts object without a lifecycle script, are nothing.
func runsNothing(doc []byte) bool {
	if jsonwalk.BOM(doc) != nil {
		return false
	}
	v, rest, err := jsonwalk.First(doc)
	if err != nil || jsonwalk.Trailing(rest) || v[0] != '{' {
		return false
	}
	var vals [len(installScriptFields)][]byte
	var errs [len(installScriptFields)]error
	if jsonwalk.LastEach(v, installScriptFields[:], installScriptFields[:], vals[:], errs[:]) != nil {
		return false
	}
	for i, raw := range vals {
		switch {
		case errs[i] != nil:
			return false
		case raw == nil || string(raw) == "null":
		case installScriptFields[i] == "scripts" && raw[0] == '{':
			var svals [len(lifecycleScripts)][]byte
			var serrs [len(lifecycleScripts)]error
			if jsonwalk.LastEach(raw, lifecycleScripts[:], lifecycleScripts[:], svals[:], serrs[:]) != nil {
				return false
			}
			for j := range svals {
				if svals[j] != nil || serrs[j] != nil {
					return false
				}
			}
		case (installScriptFields[i] == "dependencies" || installScriptFields[i] == "optionalDependencies") && raw[0] == '{':
			empty := true
			if jsonwalk.Members(raw, func(_, _ []byte) bool { empty = false; return false }) != nil || !empty {
				return false
			}
		default:
			return false
		}
	}
	return true
}
