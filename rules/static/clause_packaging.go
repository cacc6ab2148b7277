package static

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// normFilesPath strips a leading "./" (repeatedly) and trailing "/" from a
// files item or a package path, as clause 5.3.1 compares them.
func normFilesPath(p string) string {
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return strings.TrimRight(p, "/")
}

// filesItem is one item of files as npm-packlist reads it (SPEC.md
// "Consumers", D5): one leading "./" or "/" is the package root; an
// item ending in "/" names a directory only, never a file of that name.
type filesItem struct {
	path    string // normalised as normFilesPath does once
	dirOnly bool
}

// readFilesItem reads a files item (without its "!").
func readFilesItem(s string) filesItem {
	if strings.HasPrefix(s, "./") {
		s = s[2:]
	} else if strings.HasPrefix(s, "/") {
		s = s[1:]
	}
	return filesItem{path: strings.TrimRight(s, "/"), dirOnly: strings.HasSuffix(s, "/")}
}

// includes reports whether npm-packlist includes the file p through the
// item: covers, and for a directory-only item, through a parent
// directory of p. A path npm-packlist keeps "./" or "//" in matches
// nothing.
func (it filesItem) includes(p string) bool {
	if strings.HasPrefix(it.path, "./") || strings.Contains(it.path, "/./") || strings.Contains(it.path, "//") {
		return false
	}
	if it.dirOnly {
		d := path.Dir(p)
		return d != "." && covers(it.path, d)
	}
	return covers(it.path, p)
}

// excludes reports whether npm-packlist may leave the file p out
// through the negated item (without its "!"): where includes would
// include it, or, for a pattern without a slash, which gitignore
// matches against every path component at any depth, where it matches
// one of p's components (TestFilesAsNPMPacklist found it).
func (it filesItem) excludes(p string) bool {
	if it.includes(p) {
		return true
	}
	if strings.Contains(it.path, "/") || it.path == "" {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if ok, err := path.Match(it.path, seg); err == nil && ok || seg == it.path {
			return true
		}
	}
	return false
}

// covers reports whether a files item includes the file at p (both
// normalised): equal, a directory prefix of p, a path.Match glob matching p
// or one of its parent directories, or a "**" pattern whose part before
// "**" is a prefix of p.
func covers(item, p string) bool {
	if item == "" || p == "" {
		return false
	}
	if item == p || strings.HasPrefix(p, item+"/") {
		return true
	}
	if i := strings.Index(item, "**"); i >= 0 {
		prefix, rest := item[:i], strings.TrimPrefix(item[i+2:], "/")
		if !strings.HasPrefix(p, prefix) {
			return false
		}
		if rest == "" {
			return true
		}
		segs := strings.Split(strings.TrimPrefix(p, prefix), "/")
		for j := range segs {
			if ok, err := path.Match(rest, strings.Join(segs[j:], "/")); err == nil && ok {
				return true
			}
		}
		return false
	}
	if strings.ContainsAny(item, "*?[") {
		// Without a class or an escape, item's slashes are literal and
		// "*" and "?" match no slash, so only the parent with as many
		// slashes as item can match; the others are not tried.
		slashes := -1
		if !strings.ContainsAny(item, "[\\") {
			slashes = strings.Count(item, "/")
		}
		for q := p; q != "." && q != "/" && q != ""; q = path.Dir(q) {
			if slashes >= 0 && strings.Count(q, "/") != slashes {
				continue
			}
			if ok, err := path.Match(item, q); err == nil && ok {
				return true
			}
		}
	}
	return false
}

// dirProbe is the file under a directory by which 5.3.1 asks whether
// the directory is published: a file no item naming single files of a
// plugin names, so only an item publishing the whole directory (the
// directory, a parent, "dir/**", a glob matching it) covers it.
// SPEC.md "5.3.1 files array completeness".
const dirProbe = "dshaudit-probe/probe"

// readFilesArray splits files' string items into included and negated
// items (without the "!"), as npm-packlist reads them (D5).
func readFilesArray(files []string) (items, negated []filesItem) {
	for _, str := range files {
		if strings.HasPrefix(str, "!") {
			negated = append(negated, readFilesItem(str[1:]))
			continue
		}
		items = append(items, readFilesItem(str))
	}
	return items, negated
}

// published reports whether 5.3.1 reads the file p as published: an
// item includes it and no negated item may exclude it (D5: which of the
// two wins depends on the order and on files T0 does not see, so a
// negation that may exclude p counts).
func published(p string, items, negated []filesItem) bool {
	return kept(p, items, negated, filesItem.includes)
}

// dirPublished reports whether 5.3.1 reads the whole directory d (not
// the package root) as published: an item publishes its probe file as
// publishesDir says, and no negated item may exclude it.
func dirPublished(d string, items, negated []filesItem) bool {
	return kept(d+"/"+dirProbe, items, negated, filesItem.publishesDir)
}

// kept reports whether some item takes p by take and no negated item
// may exclude it.
func kept(p string, items, negated []filesItem, take func(filesItem, string) bool) bool {
	if !slices.ContainsFunc(items, func(it filesItem) bool { return take(it, p) }) {
		return false
	}
	return !slices.ContainsFunc(negated, func(n filesItem) bool { return n.excludes(p) })
}

// publishesDir reports whether the item publishes the file p, a file
// under a directory no item names by its file name, as npm-packlist 10
// does: an item naming a directory publishes everything under it (npm
// adds "dir/**"); "x/*" is read as "x/**"; any other glob publishes only
// the paths it matches itself, never the contents of a directory it
// matches ("lib*" and "li?" publish no file of lib: TestFilesAsNPMPacklist
// found it).
func (it filesItem) publishesDir(p string) bool {
	item := it.path
	if item == "" || strings.HasPrefix(item, "./") || strings.Contains(item, "/./") || strings.Contains(item, "//") {
		return false
	}
	if strings.HasSuffix(item, "/*") {
		item += "*"
	}
	if !strings.ContainsAny(item, "*?[\\") {
		return strings.HasPrefix(p, item+"/")
	}
	if strings.Contains(item, "**") {
		return covers(item, p)
	}
	ok, err := path.Match(item, p)
	return err == nil && ok
}

// entryFile is the entry file as clause 5.2.3 declares it, normalised as
// a files item is: main when it is a non-empty string, else exports' root
// target (exports a string, or exports["."] a string, or the "default",
// "require" or "import" condition of either, first found). "" when none
// is declared in a form read here.
func entryFile(pkg map[string]any) (file string, isMain bool) {
	if m, ok := pkg["main"].(string); ok && readFilesItem(m).path != "" {
		return readFilesItem(m).path, true
	}
	var target func(v any, depth int) string
	target = func(v any, depth int) string {
		switch t := v.(type) {
		case string:
			return readFilesItem(t).path
		case map[string]any:
			if depth > 2 {
				return ""
			}
			if r, ok := t["."]; ok && depth == 0 {
				return target(r, depth+1)
			}
			for _, k := range []string{"default", "require", "import"} {
				if r, ok := t[k]; ok {
					if f := target(r, depth+1); f != "" {
						return f
					}
				}
			}
		}
		return ""
	}
	return target(pkg["exports"], 0), false
}

// check531: a declared files array publishes lib (or the directory
// containing the entry file) and the entry file, and covers the patch
// path, each read by what npm-packlist publishes. DSHIO/T 10 5.3.1,
// T 20 5.4. SPEC.md "5.3.1 files array completeness".
func check531(s *state) ClauseResult {
	fv, ok := s.pkg["files"]
	if !ok {
		return ClauseResult{Status: Conforming, Observed: "files not declared",
			Message: "without a files array every file is published"}
	}
	arr, ok := fv.([]any)
	if !ok {
		return ClauseResult{Status: NonConforming, Observed: "files is " + jsonKind(fv),
			Message: "files shall be an array of path strings"}
	}
	var strs []string
	var probs []string
	for i, x := range arr {
		str, ok := x.(string)
		if !ok {
			probs = append(probs, fmt.Sprintf("files[%d] is %s, expected a string", i, jsonKind(x)))
			continue
		}
		strs = append(strs, str)
	}
	items, negated := readFilesArray(strs)
	obs := "files has " + plural(len(arr), "item")

	// Part 1: lib, or the directory containing the entry file, and the
	// entry file itself. npm always publishes main (a strict rule of
	// npm-packlist); an exports target only through files.
	entry, isMain := entryFile(s.pkg)
	libOK := dirPublished("lib", items, negated)
	if !libOK && entry != "" {
		if d := path.Dir(entry); d == "." {
			libOK = published(entry, items, negated)
		} else {
			libOK = dirPublished(d, items, negated)
		}
	}
	if !libOK {
		want := "files does not publish lib"
		if entry != "" && path.Dir(entry) != "." && path.Dir(entry) != "lib" {
			want += " or " + path.Dir(entry) + ", the directory containing the entry file " + quote(entry)
		} else if entry != "" && path.Dir(entry) == "." {
			want += " or the entry file " + quote(entry)
		}
		want += " (an item naming one file of it, or merely starting with lib, does not publish the directory; a negated item that may exclude it counts)"
		probs = append(probs, want)
	}
	if entry != "" && !isMain && !published(entry, items, negated) {
		probs = append(probs, "files does not publish the entry file "+quote(entry)+" (exports' target, which npm publishes only through files)")
	}

	// Part 2: the patch file, which needs clause 5.1.1's path.
	var warns []string
	if s.patchPath == "" {
		if len(probs) > 0 {
			return ClauseResult{Status: NonConforming, Observed: obs,
				Message: joinBounded(probs) + " (the patch coverage was not evaluated: clause 5.1.1 is non-conforming)"}
		}
		return notEvaluated("files includes lib, but the patch coverage needs the patch path: clause 5.1.1 is non-conforming")
	}
	patchOK := false
	for _, it := range items {
		if it.includes(s.patchPath) {
			patchOK = true
			break
		}
	}
	if !patchOK {
		probs = append(probs, "no item covers the patch file "+quote(s.patchPath))
	}
	for _, n := range negated {
		if n.excludes(s.patchPath) {
			// npm-packlist keeps a file named exactly as a strict
			// requirement, whatever follows, and applies the other items
			// in order: which wins depends on files T0 does not see.
			probs = append(probs, fmt.Sprintf("the negated item %s may exclude the patch file %s: whether npm publishes it depends on the order of the items and on whether it exists as a file, which the metadata does not show", quote("!"+n.path), quote(s.patchPath)))
		}
	}
	if len(probs) > 0 {
		return ClauseResult{Status: NonConforming, Observed: obs, Message: joinBounded(probs), Warnings: warns}
	}
	return ClauseResult{Status: Conforming, Observed: obs + "; includes lib and the patch file", Warnings: warns}
}

// maxDepth bounds how deep the walk under dsh descends.
const maxDepth = 64

// depFields are the fields clause 5.3.2 reads; devDependencies is excluded.
var depFields = []string{"dependencies", "optionalDependencies", "peerDependencies"}

// localSpec reports whether a dependency value is a local path under the
// clause's criterion (starts with file: or /, after leading whitespace;
// file: compared case-insensitively).
func localSpec(v string) bool {
	t := strings.TrimLeft(v, " \t\r\n")
	return strings.HasPrefix(lowerPrefix(t, 5), "file:") || strings.HasPrefix(t, "/")
}

// lowerPrefix is the first n bytes (or fewer) of strings.ToLower(t),
// lowering only the start of t: strings.ToLower maps rune by rune, each
// to at least one byte (an invalid byte to U+FFFD), so the first n runes
// of t give the first n bytes.
func lowerPrefix(t string, n int) string {
	j := 0
	for k := 0; k < n && j < len(t); k++ {
		if t[j] < utf8.RuneSelf {
			j++
		} else {
			_, w := utf8.DecodeRuneInString(t[j:])
			j += w
		}
	}
	head := strings.ToLower(t[:j])
	if len(head) > n {
		head = head[:n]
	}
	return head
}

// check532: no local-path values in dependencies, optionalDependencies,
// peerDependencies (every form a consumer installs from the local file
// system, localDependency), or anywhere under dsh (the clause's two
// prefixes, file: and /: dsh's own values, such as the patch path, are
// package paths, not specifiers). DSHIO/T 10 5.3.2, T 20 5.4.
// SPEC.md "5.3.2 No local-path dependencies".
func check532(s *state) ClauseResult {
	var probs, warns []string
	count := 0
	for _, f := range depFields {
		v, ok := s.pkg[f]
		if !ok {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			probs = append(probs, fmt.Sprintf("%s is %s, expected an object of name → version", f, jsonKind(v)))
			continue
		}
		for _, k := range sortedKeys(m) {
			count++
			where := func() string { return f + "[" + quote(k) + "]" } // only for a finding
			str, ok := m[k].(string)
			if !ok {
				probs = append(probs, fmt.Sprintf("%s is %s, expected a version string", where(), jsonKind(m[k])))
				continue
			}
			if local, form := localDependency(str); local {
				probs = append(probs, fmt.Sprintf("%s = %s is a local path (%s)", where(), quote(str), form))
			}
		}
	}
	if d, ok := s.pkg["dsh"]; ok {
		n, deep := 0, false
		// path holds the steps to the value being walked; the where of a
		// finding ("dsh.key[i]") is built from it only for a finding.
		var path []walkStep
		var walk func(v any, depth int)
		walk = func(v any, depth int) {
			if n++; n > maxWalk {
				return
			}
			if depth > maxDepth {
				deep = true
				return
			}
			switch t := v.(type) {
			case string:
				count++
				if localSpec(t) {
					probs = append(probs, fmt.Sprintf("%s = %s is a local path", walkWhere("dsh", path), quote(t)))
				}
			case []any:
				for i, x := range t {
					path = append(path, walkStep{index: i})
					walk(x, depth+1)
					path = path[:len(path)-1]
				}
			case map[string]any:
				for _, k := range sortedKeys(t) {
					path = append(path, walkStep{key: k, index: -1})
					walk(t[k], depth+1)
					path = path[:len(path)-1]
				}
			}
		}
		walk(d, 0)
		if n > maxWalk {
			warns = append(warns, fmt.Sprintf("only the first %d values under dsh were checked", maxWalk))
		}
		if deep {
			warns = append(warns, fmt.Sprintf("values nested deeper than %d levels under dsh were not checked", maxDepth))
		}
	}
	obs := plural(count, "value") + " checked"
	if len(probs) > 0 {
		return ClauseResult{Status: NonConforming, Observed: obs,
			Message: joinBounded(probs) + "; local-path values make installation fail for consumers", Warnings: warns}
	}
	return ClauseResult{Status: Conforming, Observed: obs, Warnings: warns}
}

// walkStep is one step of a walk through JSON values: an object key, or
// (index >= 0) an array index.
type walkStep struct {
	key   string
	index int
}

// walkWhere renders a walk's path from root: root.key[i].
func walkWhere(root string, path []walkStep) string {
	var b strings.Builder
	b.WriteString(root)
	for _, st := range path {
		if st.index >= 0 {
			b.WriteString("[" + strconv.Itoa(st.index) + "]")
		} else {
			b.WriteString("." + st.key)
		}
	}
	return b.String()
}

// SizeLimitBytes is clause 5.3.3's 50 MB, in SI megabytes as npm reports
// sizes. SPEC.md "5.3.3 Package size".
const SizeLimitBytes = 50 * 1000 * 1000

// sizeObserved renders an installed size: "N bytes (M.m MB)".
func sizeObserved(n int64) string {
	return strconv.FormatInt(n, 10) + " bytes (" + strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB)"
}

// check533 (recommended): installed size below 50 MB. Known only after T1.
// DSHIO/T 10 5.3.3. SPEC.md "5.3.3 Package size".
func check533(s *state) ClauseResult {
	n := s.in.InstalledSize
	switch {
	case n < 0:
		return notEvaluated("the installed size is known only after T1")
	case n == 0:
		return notEvaluated("no installed size was recorded (0 bytes is not a plausible installed size)")
	case n < SizeLimitBytes:
		return ClauseResult{Status: Conforming, Observed: sizeObserved(n)}
	}
	return ClauseResult{Status: NonConforming, Observed: sizeObserved(n),
		Message: "the installed size is not below 50 MB (50,000,000 bytes); excessive size slows installation markedly (official plugins are typically 1–20 MB)"}
}
