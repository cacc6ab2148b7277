package static

import (
	"fmt"
	"strconv"
	"strings"
)

// Permission names dshaudit knows. The standards define the red line in
// these terms (DSHIO/T 10 3.4, 5.5.3) but not where or how permissions are
// declared; dshaudit reads dsh.permissions, an array of these strings.
// SPEC.md "Permission declaration".
const (
	PermNetwork = "network"
	PermShell   = "shell"
	PermFSRead  = "fs-read"
	PermFSWrite = "fs-write"
)

// KnownPermissions is the vocabulary; other values draw a warning.
var KnownPermissions = []string{PermNetwork, PermShell, PermFSRead, PermFSWrite}

// permissionDecl is the permission declaration read from package.json.
type permissionDecl struct {
	declared bool     // dsh.permissions is present
	problem  string   // set when dsh.permissions is malformed
	perms    []string // canonical (trimmed, lower-case) values, deduplicated, in order
	warnings []string // unknown or non-canonically spelled values
}

// has reports whether the canonical permission p is declared.
func (d permissionDecl) has(p string) bool {
	for _, x := range d.perms {
		if x == p {
			return true
		}
	}
	return false
}

// redLine returns the partners of network that make the red-line
// combination (DSHIO/T 10 3.4), or nil.
func (d permissionDecl) redLine() []string {
	if !d.has(PermNetwork) {
		return nil
	}
	var partners []string
	for _, p := range []string{PermShell, PermFSWrite} {
		if d.has(p) {
			partners = append(partners, p)
		}
	}
	return partners
}

// describe renders the declaration for Observed and Material.
func (d permissionDecl) describe() string {
	switch {
	case d.problem != "":
		return "malformed permission declaration: " + d.problem
	case !d.declared:
		return "no permissions declared (dsh.permissions absent)"
	case len(d.perms) == 0:
		return "dsh.permissions = [] (none)"
	}
	return "dsh.permissions = [" + strings.Join(d.perms, ", ") + "]"
}

// maxPermissions bounds how many values are read.
const maxPermissions = 1000

// readPermissions reads dsh.permissions. Values are compared after
// trimming (JavaScript's trim, as a JavaScript consumer normalises) and
// lower-casing so that "Network" cannot hide the red line; such
// spellings draw a warning. A value that holds anything but printable
// ASCII after trimming (a Cyrillic е, full-width letters, a zero-width
// space) may be read by a consumer that folds confusables as a known
// permission and by another as an unknown one: the declaration is then
// malformed (SPEC.md "Consumers", D4).
func readPermissions(pkg map[string]any) permissionDecl {
	var d permissionDecl
	dsh, ok := pkg["dsh"].(map[string]any)
	if !ok {
		return d
	}
	v, ok := dsh["permissions"]
	if !ok {
		return d
	}
	d.declared = true
	arr, ok := v.([]any)
	if !ok {
		d.problem = fmt.Sprintf("dsh.permissions is %s, expected an array of strings", jsonKind(v))
		return d
	}
	if len(arr) > maxPermissions {
		d.problem = fmt.Sprintf("dsh.permissions has %d values, more than the %d dshaudit reads", len(arr), maxPermissions)
		return d
	}
	seen := map[string]bool{}
	var bad []string
	for i, x := range arr {
		s, ok := x.(string)
		if !ok {
			bad = append(bad, fmt.Sprintf("dsh.permissions[%d] is %s, expected a string", i, jsonKind(x)))
			continue
		}
		c := strings.ToLower(strings.TrimFunc(s, isJSSpace))
		if !printableASCII(c) {
			bad = append(bad, fmt.Sprintf("dsh.permissions[%d] %s is not plain ASCII: a consumer folding look-alike characters may read it as a permission, another as none", i, quote(s)))
			continue
		}
		if c != s {
			d.warnings = append(d.warnings, "dsh.permissions["+strconv.Itoa(i)+"] "+quote(s)+" is read as "+quote(c))
		}
		known := false
		for _, k := range KnownPermissions {
			known = known || c == k
		}
		if !known {
			d.warnings = append(d.warnings, "dsh.permissions["+strconv.Itoa(i)+"] "+quote(s)+" is not a permission dshaudit knows ("+strings.Join(KnownPermissions, ", ")+"); it is recorded but plays no part in the red line")
		}
		if !seen[c] {
			seen[c] = true
			d.perms = append(d.perms, c)
		}
	}
	if len(bad) > 0 {
		d.problem = joinBounded(bad)
	}
	return d
}

// printableASCII reports whether s holds only printable ASCII.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}
