package static

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dshaudit/dshaudit/internal/jsonwalk"
)

// Size bounds for hostile input. SPEC.md "T0 static check", "Input bounds".
const (
	// MaxPackageJSONBytes bounds the package.json T0 parses; larger
	// metadata is unresolvable. Decoded into Go values, JSON costs up to
	// about 60 times its text (a list of one-digit numbers), so 16 MiB,
	// the bound before version 1.6 of the specification, let one
	// bundle take about 1 GiB (SPEC-CHANGELOG.md, 1.6).
	MaxPackageJSONBytes = 256 << 10
	// MaxPatchBytes bounds the patch file T0 parses (clause 5.1.3); it is
	// rules.MaxPatchSize, which InsertEntries applies
	// (TestPatchBoundsAgree).
	MaxPatchBytes = 256 << 10
	// MaxEntrySchemaBytes bounds the entry JSON Schema clause 5.1.6
	// parses; a larger one is not parsed.
	MaxEntrySchemaBytes = 256 << 10
	// MaxEntryDeclarationBytes bounds the EntryOptions declaration
	// clause 5.1.6 reads when there is no schema (the real one is about
	// 2 KiB); a larger one is not parsed. Its line-by-line reading costs
	// up to about 45 times the text (16 MiB of one-character members
	// allocated 752 MiB before version 1.7 of the specification).
	MaxEntryDeclarationBytes = 256 << 10
	// MaxREADMEBytes bounds the part of the README scanned for a registered
	// red-line exception (clause 5.5.3); the rest is ignored.
	MaxREADMEBytes = 1 << 20
)

// Sentinel errors of PatchPath and of package.json parsing.
var (
	// ErrUnresolvable wraps every reason the metadata cannot be judged.
	ErrUnresolvable = errors.New("package metadata unresolvable")
	// ErrNoPatchDeclared: dsh.bundle.patch is absent or not a non-empty string.
	ErrNoPatchDeclared = errors.New("package.json declares no dsh.bundle.patch")
	// ErrPatchPathInvalid: dsh.bundle.patch is not a relative path inside
	// the package.
	ErrPatchPathInvalid = errors.New("dsh.bundle.patch is not a relative path inside the package")
)

// parsePackageJSON decodes package.json, of at most max bytes, into a
// JSON object, keeping numbers as json.Number, as JSON.parse (npm's,
// pnpm's and dsh's reader) reads it: of a member repeated, the last
// counts (a decoded map keeps the last). A document that another
// plausible reader reads otherwise (jsonwalk.BOM, jsonwalk.CheckTree: a
// byte order mark, a member repeated with other values, a lone surrogate
// or bytes that are not UTF-8, a number beyond float64's range, a
// __proto__ member) is refused. SPEC.md "Consumers". Any error wraps
// ErrUnresolvable.
func parsePackageJSON(b []byte, max int) (map[string]any, error) {
	if b == nil {
		return nil, fmt.Errorf("%w: package.json could not be fetched", ErrUnresolvable)
	}
	if len(b) > max {
		return nil, fmt.Errorf("%w: package.json is %d bytes, more than the %d-byte limit", ErrUnresolvable, len(b), max)
	}
	if err := jsonwalk.BOM(b); err != nil {
		return nil, fmt.Errorf("%w: package.json is read otherwise by JSON.parse than by another reader: %w", ErrUnresolvable, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: package.json is not valid JSON: %w", ErrUnresolvable, err)
	}
	// Any byte after the value counts, "}" and "]" too, which
	// json.Decoder.More does not count as more data and JSON.parse (npm's
	// reader) refuses. SPEC.md "Verdict and report (DSHIO/T 20 5.5)".
	if jsonwalk.Trailing(b[dec.InputOffset():]) {
		return nil, fmt.Errorf("%w: package.json has data after the top-level value", ErrUnresolvable)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: package.json top level is %s, expected an object", ErrUnresolvable, jsonKind(v))
	}
	if err := jsonwalk.CheckTree(bytes.TrimLeft(b[:dec.InputOffset()], " \t\r\n")); err != nil {
		return nil, fmt.Errorf("%w: package.json is read otherwise by JSON.parse than by another reader: %w", ErrUnresolvable, err)
	}
	return m, nil
}

// PatchPath returns the patch path declared in package.json
// (dsh.bundle.patch, DSHIO/T 10 5.1.1) with a leading "./" removed and the
// path cleaned, for fetching the patch file. It refuses absolute paths and
// paths leaving the package root.
func PatchPath(packageJSON []byte) (string, error) {
	pkg, err := parsePackageJSON(packageJSON, MaxPackageJSONBytes)
	if err != nil {
		return "", err
	}
	raw, err := rawPatchPath(pkg)
	if err != nil {
		return "", err
	}
	return CleanPatchPath(raw)
}

// rawPatchPath reads $.dsh.bundle.patch as a non-empty string.
func rawPatchPath(pkg map[string]any) (string, error) {
	v, where := lookup(pkg, "dsh", "bundle", "patch")
	if where != "" {
		return "", fmt.Errorf("%w: %s", ErrNoPatchDeclared, where)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%w: dsh.bundle.patch is %s, expected a non-empty string", ErrNoPatchDeclared, jsonKind(v))
	}
	if s == "" {
		return "", fmt.Errorf("%w: dsh.bundle.patch is an empty string", ErrNoPatchDeclared)
	}
	return s, nil
}

// maxPatchPathBytes bounds a declared patch path.
const maxPatchPathBytes = 1024

// drivePath reports whether p starts with a Windows drive ("C:").
func drivePath(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}

// CleanPatchPath is the one normaliser of a declared dsh.bundle.patch
// value, used by T0's fetch and by clause 5.1.1 alike: it returns the
// package-relative path to fetch, with leading "./" stripped (the
// comparison DSHIO/T 10 5.3.1 describes) and the path cleaned. As the
// value comes from a possibly hostile package.json it refuses
// (ErrPatchPathInvalid) an empty or over-long value, invalid UTF-8, NUL,
// backslashes, absolute and Windows drive paths, any ".." segment (even
// one that would clean back inside the root) and a path naming a
// directory. SPEC.md "Inputs" (T0 static check, rule 4).
func CleanPatchPath(raw string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("%w: %s %s", ErrPatchPathInvalid, quote(raw), why)
	}
	switch {
	case raw == "":
		return bad("is empty")
	case len(raw) > maxPatchPathBytes:
		return bad(fmt.Sprintf("is longer than %d bytes", maxPatchPathBytes))
	case !utf8.ValidString(raw):
		return bad("is not valid UTF-8")
	case strings.ContainsRune(raw, 0):
		return bad("contains NUL")
	case strings.Contains(raw, `\`):
		return bad(`contains a backslash; package paths use "/"`)
	case strings.HasPrefix(raw, "/") || drivePath(raw):
		return bad("is an absolute path, not relative to the package root")
	}
	rest := raw
	for strings.HasPrefix(rest, "./") {
		rest = strings.TrimLeft(strings.TrimPrefix(rest, "./"), "/")
	}
	for _, seg := range strings.Split(rest, "/") {
		if seg == ".." {
			return bad(`has a ".." segment: it does not name a file inside the package root`)
		}
	}
	p := path.Clean(rest)
	if p == "." || p == "" || strings.HasSuffix(rest, "/") {
		return bad("names a directory, not a file inside the package root")
	}
	return p, nil
}

// lookup walks nested objects. where is "" on success, else a sentence
// naming the first missing or mistyped step.
func lookup(m map[string]any, keys ...string) (v any, where string) {
	var cur any = m
	for i, k := range keys {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Sprintf("%s is %s, expected an object", strings.Join(keys[:i], "."), jsonKind(cur))
		}
		next, ok := obj[k]
		if !ok {
			return nil, fmt.Sprintf("%s is absent", strings.Join(keys[:i+1], "."))
		}
		cur = next
	}
	return cur, ""
}

// sortedKeys returns an object's keys in order, as
// slices.Sorted(maps.Keys(m)) does, in one allocation.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jsonKind names a decoded JSON value's type with its article.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// maxQuoted bounds how much of one untrusted value a message repeats.
const maxQuoted = 120

// quote renders untrusted text with %q, truncated to maxQuoted runes.
func quote(s string) string {
	if len(s) <= maxQuoted && plainASCII(s) {
		return `"` + s + `"` // what strconv.Quote gives, without its per-rune work
	}
	n := utf8.RuneCountInString(s)
	if n <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := 0
	for range maxQuoted {
		_, w := utf8.DecodeRuneInString(s[cut:])
		cut += w
	}
	// Through []rune, as before: each invalid byte becomes U+FFFD.
	return strconv.Quote(string([]rune(s[:cut]))) + "…(" + strconv.Itoa(n-maxQuoted) + " more characters)"
}

// plainASCII reports whether strconv.Quote leaves every byte of s as it
// is: printable ASCII other than the quote and the backslash.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// maxListed bounds how many offenders a message names one by one.
const maxListed = 20

// joinBounded joins findings with "; ", naming at most maxListed of them.
func joinBounded(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, "; ")
	}
	return strings.Join(items[:maxListed], "; ") + fmt.Sprintf("; and %d more", len(items)-maxListed)
}
