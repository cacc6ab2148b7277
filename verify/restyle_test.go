package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
)

// restyles are changes of a bundle's stage output that change no line as
// SPEC.md reads it: a CSI escape sequence, an OSC one or a BEL at the
// start of every line of T1, T2 and T4 output (cleaning removes them,
// "Output lines"); a comment line before each item of the T3 dump, and
// the dump's names that dsh single-quotes written double-quoted (the same
// YAML, in styles dsh's dump does not use, which the fast reader gives
// up on), and the dump started with a document marker; and T1's profile package.json written compact, or with every
// dash escaped (the same JSON); the environment's version outputs with
// CRLF line ends (a version is the first line, trimmed). Merged output is changed with its streams.
var restyles = map[string]func(path string, b []byte) []byte{
	"escape-before-each-line": func(path string, b []byte) []byte {
		if strings.Contains(path, "/T3/") || !stageStream.MatchString(path) {
			return b
		}
		return bytes.ReplaceAll(b, []byte("\n"), []byte("\n\x1b[0m"))
	},
	"bell-before-each-line": func(path string, b []byte) []byte {
		if strings.Contains(path, "/T3/") || !stageStream.MatchString(path) {
			return b
		}
		return bytes.ReplaceAll(b, []byte("\n"), []byte("\n\a"))
	},
	"osc-title-before-each-line": func(path string, b []byte) []byte {
		if strings.Contains(path, "/T3/") || !stageStream.MatchString(path) {
			return b
		}
		return bytes.ReplaceAll(b, []byte("\n"), []byte("\n\x1b]0;dsh\a"))
	},
	"dump-comment-before-each-item": func(path string, b []byte) []byte {
		if !strings.HasSuffix(path, "/T3/stdout") && !strings.HasSuffix(path, "/T3/merged") {
			return b
		}
		return bytes.ReplaceAll(b, []byte("\n- "), []byte("\n# item\n- "))
	},
	"profile-json-compact": func(path string, b []byte) []byte {
		if !strings.HasSuffix(path, "/T1/profile-package.json") {
			return b
		}
		var c bytes.Buffer
		if json.Compact(&c, b) != nil {
			return b // not JSON: nothing to restyle
		}
		return c.Bytes()
	},
	"profile-json-dashes-escaped": func(path string, b []byte) []byte {
		if !strings.HasSuffix(path, "/T1/profile-package.json") || !json.Valid(b) {
			return b
		}
		return bytes.ReplaceAll(b, []byte("-"), []byte(`\u002d`)) // a dash stands only inside strings here
	},
	"environment-crlf": func(path string, b []byte) []byte {
		if !strings.HasPrefix(path, "environment/") {
			return b
		}
		return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
	},
	"dump-document-start": func(path string, b []byte) []byte {
		// At the dump's start: in merged, where its first section line is.
		i := bytes.Index(b, []byte("# == "))
		if !strings.HasSuffix(path, "/T3/stdout") && !strings.HasSuffix(path, "/T3/merged") || i < 0 || strings.HasSuffix(path, "/stdout") && i > 0 {
			return b
		}
		return slices.Concat(b[:i], []byte("---\n"), b[i:])
	},
	"dump-names-double-quoted": func(path string, b []byte) []byte {
		if !strings.HasSuffix(path, "/T3/stdout") && !strings.HasSuffix(path, "/T3/merged") {
			return b
		}
		return singleQuotedName.ReplaceAll(b, []byte(`$1"$2"`))
	},
}

var (
	stageStream      = regexp.MustCompile(`^repetitions/\d+/T\d/(stdout|stderr|merged)$`)
	singleQuotedName = regexp.MustCompile(`(?m)^(\s*(?:- )?name: )'([^'"\\\n]*)'$`)
)

// TestLiesSurviveRestyling: every valid vector, restyled and signed
// again, still verifies, and every lie vector restyled keeps each of its
// finding classes: a lie told in another style of the same output is
// refused for the same reason (two lies, a section label and Node's
// version line, verified once restyled). The lies in the signature's
// predicate are left out: signing again writes the predicate from the
// manifest, which undoes them.
func TestLiesSurviveRestyling(t *testing.T) {
	raw, err := os.ReadFile(vectorsDir + "/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Vectors []struct {
			Name, File, Status string
			Classes            []Class
		}
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	signer, err := attest.LoadSigner(vectorsDir + "/keys/signer.key")
	if err != nil {
		t.Fatal(err)
	}
	_, pol := validVectorPaths(t)
	changed := 0
	for _, v := range idx.Vectors {
		honest := v.Status == string(StatusVerified)
		if !honest && (!strings.HasPrefix(v.Name, "lie_") || strings.HasPrefix(v.Name, "lie_predicate_")) {
			continue
		}
		data, err := os.ReadFile(vectorsDir + "/" + v.File)
		if err != nil {
			t.Fatal(err)
		}
		a, err := bundle.Read(bytes.NewReader(data), bundle.DefaultLimits())
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		for name, restyle := range restyles {
			files := make(map[string][]byte, len(a.Files))
			same := true
			for p, b := range a.Files {
				files[p] = b
				if stageStream.MatchString(p) || strings.HasSuffix(p, "/profile-package.json") || strings.HasPrefix(p, "environment/") {
					files[p] = restyle(p, b)
					same = same && bytes.Equal(files[p], b)
				}
			}
			if same {
				continue
			}
			changed++
			r, err := Verify(context.Background(), v.Name, bytes.NewReader(resign(t, a.RawManifest, files, signer)), Options{Policy: pol})
			if err != nil {
				t.Fatalf("%s restyled (%s): %v", v.Name, name, err)
			}
			if honest {
				if !r.OK() {
					t.Errorf("valid vector %s restyled (%s) does not verify: %v", v.Name, name, r.Findings)
				}
				continue
			}
			got := map[Class]bool{}
			for _, f := range r.Findings {
				got[f.Class] = true
			}
			for _, c := range v.Classes {
				if !got[c] {
					t.Errorf("lie %s restyled (%s) lost its %s finding: status %s, findings %v", v.Name, name, c, r.Status, r.Findings)
				}
			}
		}
	}
	if changed < 100 {
		t.Errorf("only %d restyled bundles: the restyles changed too few vectors to test anything", changed)
	}
}
