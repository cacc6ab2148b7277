package manifest_test

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
)

// manifestPaths are the dotted paths of every member of the manifest
// (a slice's elements as "[]", a map a leaf), from its Go types: what a
// writer can put in a manifest.
func manifestPaths(t reflect.Type, prefix string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		p := prefix + name
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct:
			manifestPaths(ft, p+".", out)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			manifestPaths(ft.Elem(), p+"[].", out)
		default:
			*out = append(*out, p)
		}
	}
}

// TestEveryFieldHasAKind: SPEC.md "Manifest fields and how each is
// checked" is the one list of what each manifest field is (derived,
// cross-checked or unverified), and a verifier's trust in a value rests
// on it; a field added to the manifest without a row there fails here.
// A row names fields by full path (`subject.integrity`), by a parent
// (`static.report`, `claimed.*`, `conditions.fixed`), or, inside an
// array's elements, by the member's name (`argv` of
// `repetitions[].stages[]`, `why` of `deviations[]`).
func TestEveryFieldHasAKind(t *testing.T) {
	b, err := os.ReadFile("../SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	spec := string(b)
	start := strings.Index(spec, "\n### Manifest fields and how each is checked\n")
	if start < 0 {
		t.Fatal(`SPEC.md has no section "Manifest fields and how each is checked"`)
	}
	sec := spec[start+1:]
	if end := strings.Index(sec, "\n### "); end >= 0 {
		sec = sec[:end]
	}
	var names []string
	tick := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| field ") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		if kind := strings.TrimSpace(cells[2]); kind == "" || kind == "---" {
			t.Errorf("SPEC.md row %q names no kind", cells[1])
		}
		for _, m := range tick.FindAllStringSubmatch(cells[1], -1) {
			names = append(names, m[1])
		}
	}
	if len(names) < 20 {
		t.Fatalf("SPEC.md's field table lists only %d names: %q", len(names), names)
	}
	covered := func(p string) bool {
		rest := p
		if i := strings.LastIndex(p, "[]."); i >= 0 {
			rest = p[i+3:]
		}
		for _, n := range names {
			switch {
			case n == p, strings.HasSuffix(n, ".*") && strings.HasPrefix(p, strings.TrimSuffix(n, "*")):
				return true
			case !strings.HasSuffix(n, "[]") && (strings.HasPrefix(p, n+".") || strings.HasPrefix(p, n+"[].")):
				return true
			case !strings.ContainsAny(n, ".[") && rest != p && (rest == n || strings.HasPrefix(rest, n+".")):
				return true
			}
		}
		return false
	}
	var paths []string
	manifestPaths(reflect.TypeOf(manifest.Manifest{}), "", &paths)
	for _, p := range paths {
		if !covered(p) {
			t.Errorf("manifest field %s has no row in SPEC.md \"Manifest fields and how each is checked\": say whether it is derived, cross-checked or unverified", p)
		}
	}
}
