package static

import "testing"

// TestInstalledFloor: the floor is the sum of the tarball's distinct
// file sizes, and there is none when anything the install runs could
// remove the files (SPEC.md "The tested tarball").
func TestInstalledFloor(t *testing.T) {
	sizes := map[string]int64{"package.json": 233, "lib/index.js": 62, "cordis.patch.yml": 61, "lib/copy.js": 62, "empty": 0}
	for _, tc := range []struct {
		name  string
		sizes map[string]int64
		docs  []string
		floor int64
		ok    bool
	}{
		{"plain", sizes, []string{`{"name":"p","scripts":{"test":"x"},"dependencies":{},"optionalDependencies":null}`}, 356, true},
		{"registry metadata too", sizes, []string{`{"name":"p"}`, `{"name":"p","dist":{}}`}, 356, true},
		{"dependency", sizes, []string{`{"dependencies":{"a":"1"}}`}, 0, false},
		{"dependency in the metadata only", sizes, []string{`{}`, `{"dependencies":{"a":"1"}}`}, 0, false},
		{"optional dependency", sizes, []string{`{"optionalDependencies":{"a":"1"}}`}, 0, false},
		{"bundled", sizes, []string{`{"bundleDependencies":true}`}, 0, false},
		{"postinstall", sizes, []string{`{"scripts":{"postinstall":""}}`}, 0, false},
		{"install escaped", sizes, []string{`{"scripts":{"inst\u0061ll":"x"}}`}, 0, false},
		{"scripts not an object", sizes, []string{`{"scripts":"x"}`}, 0, false},
		{"gypfile", sizes, []string{`{"gypfile":false}`}, 0, false},
		{"members read two ways", sizes, []string{`{"scripts":{},"scripts":{"a":"b"}}`}, 0, false},
		{"not one object", sizes, []string{`{} {}`}, 0, false},
		{"binding.gyp", map[string]int64{"binding.gyp": 10}, []string{`{}`}, 0, false},
		{"bundled files", map[string]int64{"node_modules/a/x.js": 10}, []string{`{}`}, 0, false},
		{"nested bundled files", map[string]int64{"lib/node_modules/a/x.js": 10}, []string{`{}`}, 0, false},
	} {
		var docs [][]byte
		for _, d := range tc.docs {
			docs = append(docs, []byte(d))
		}
		floor, ok := InstalledFloor(tc.sizes, docs...)
		if floor != tc.floor || ok != tc.ok {
			t.Errorf("%s: %d %v, want %d %v", tc.name, floor, ok, tc.floor, tc.ok)
		}
	}
}
