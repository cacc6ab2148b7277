package static

import (
	"fmt"
	"strings"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// EntryDeclarationPath is where the declaration of the patch entry's
// options lives in the dsh package's dependency tree: the EntryOptions
// interface of @deepseek-ai/cordis-plugin-loader, the loader that reads
// the entries of a patch list. dsh 0.1.0-rc.8 has no
// option printing an entry schema; this declaration, shipped in the sandbox image,
// is the entry definition it uses. SPEC.md "5.1.6 Optional entry fields".
const EntryDeclarationPath = "@deepseek-ai/cordis-plugin-loader/lib/types/config/entry.d.ts"

// dshEntrySchemaVersions are the dsh versions known to print an entry JSON
// Schema (dsh --dump-config-schema), the only source of the `schema`
// evidence. None is known: dsh 0.1.0-rc.8 has no such option, and the
// baseline 0.2.2-rc.1 is not published. SPEC.md "5.1.6 Optional entry
// fields".
var dshEntrySchemaVersions = map[string]bool{}

// DSHPrintsEntrySchema says whether dsh version v is known to print an
// entry JSON Schema, so that a bundle recording v may carry one.
func DSHPrintsEntrySchema(v string) bool { return dshEntrySchemaVersions[v] }

// EntryDeclarationError says why an entry declaration cannot be read as
// clause 5.1.6 reads it by default, or nil when it can.
func EntryDeclarationError(b []byte) error {
	_, err := parseEntryDeclaration(b, MaxEntryDeclarationBytes)
	return err
}

var (
	entryInterface = lazyregexp.New(`(?s)export\s+(?:declare\s+)?interface\s+EntryOptions\s*\{(.*?)\n\}`)
	blockComment   = lazyregexp.New(`(?s)/\*.*?\*/`)
	lineComment    = lazyregexp.New(`(?m)//.*$`)
	member         = lazyregexp.New(`^\s*(?:readonly\s+)?([A-Za-z_$][A-Za-z0-9_$]*)(\??)\s*:\s*(.+?)\s*$`)
)

// parseEntryDeclaration reads the TypeScript declaration of the
// EntryOptions interface into the same minimal form as an entry schema:
// each member's allowed JSON types. TypeScript types map to JSON types as
// string, number, boolean, null, T[] / Array<…> → array, an object literal
// or Record<…> / Dict<…> → object, a string literal → string; any,
// unknown and named types dshaudit cannot resolve (e.g. Inject) allow any
// value. An interface allows other fields, so unknown fields are not
// findings. A declaration above max bytes is not read
// (SPEC.md "T0 static check", "Input bounds").
func parseEntryDeclaration(b []byte, max int) (*entrySchema, error) {
	if len(b) > max {
		return nil, fmt.Errorf("the entry declaration is %d bytes, more than the %d-byte limit, and was not parsed", len(b), max)
	}
	m := entryInterface.FindSubmatch(b)
	if m == nil {
		return nil, fmt.Errorf("the entry declaration has no \"export interface EntryOptions { … }\"")
	}
	body := lineComment.ReplaceAllString(blockComment.ReplaceAllString(string(m[1]), ""), "")
	es := &entrySchema{types: map[string][]string{}}
	for _, line := range strings.Split(strings.ReplaceAll(body, ";", "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		mm := member.FindStringSubmatch(line)
		if mm == nil {
			return nil, fmt.Errorf("the entry declaration has a member dshaudit cannot read: %q", strings.TrimSpace(line))
		}
		es.types[mm[1]] = tsJSONTypes(mm[3])
		es.propertiesCount++
	}
	if es.propertiesCount == 0 {
		return nil, fmt.Errorf("the EntryOptions declaration has no members")
	}
	return es, nil
}

// tsJSONTypes maps a TypeScript type to the JSON types it allows; nil
// means any.
func tsJSONTypes(t string) []string {
	var out []string
	for _, alt := range strings.Split(t, "|") {
		alt = strings.TrimSpace(alt)
		var j string
		switch {
		case alt == "string" || strings.HasPrefix(alt, "'") || strings.HasPrefix(alt, `"`) || strings.HasPrefix(alt, "`"):
			j = "string"
		case alt == "number":
			j = "number"
		case alt == "boolean" || alt == "true" || alt == "false":
			j = "boolean"
		case alt == "null":
			j = "null"
		case alt == "undefined":
			continue // an optional member may be absent, never present as undefined in YAML
		case strings.HasSuffix(alt, "[]") || strings.HasPrefix(alt, "Array<") || strings.HasPrefix(alt, "ReadonlyArray<"):
			j = "array"
		case strings.HasPrefix(alt, "{") || strings.HasPrefix(alt, "Record<") || strings.HasPrefix(alt, "Dict<"):
			j = "object"
		default:
			return nil // any, unknown, or a named type: any value
		}
		if !strings.Contains(strings.Join(out, " "), j) {
			out = append(out, j)
		}
	}
	return out
}
