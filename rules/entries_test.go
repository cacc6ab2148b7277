package rules

import (
	"errors"
	"reflect"
	"testing"
)

func TestInsertEntries(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  []Entry
		err   bool
	}{
		{"one", "- insert:\n    - id: a\n      name: \"pkg-a\"\n", []Entry{{"a", "pkg-a"}}, false},
		{"several items and lists", "- insert:\n    - {id: a, name: pa}\n    - id: b\n      name: pb\n- id: llm-retry\n  disabled: true\n- insert:\n    - id: c\n      name: pc\n", []Entry{{"a", "pa"}, {"b", "pb"}, {"c", "pc"}}, false},
		{"no insert", "- id: llm-retry\n  disabled: true\n", nil, false},
		{"insert not a list", "- insert: x\n", nil, false},
		{"incomplete entries kept empty", "- insert:\n    - id: a\n    - name: pb\n    - scalar\n    - id: ~\n      name: [x]\n", []Entry{{ID: "a"}, {Name: "pb"}, {}, {}}, false},
		{"alias", "- insert:\n    - &e {id: a, name: pa}\n    - *e\n", []Entry{{"a", "pa"}, {"a", "pa"}}, false},
		{"comments and tags", "# c\n- insert: # c\n    - id: !!str a\n      name: pa # c\n", []Entry{{"a", "pa"}}, false},
		// Merge keys: js-yaml (dsh's JSON schema) keeps << a plain key, a
		// YAML 1.1 loader merges; the readings differ, the patch is refused.
		{"id and name from a merge", "- insert:\n    - <<: {id: a, name: pa}\n    - <<: [{id: b}, {id: x, name: pb}]\n      name: pb\n", nil, true},
		{"insert from a merge", "- <<: {insert: [{id: a, name: pa}]}\n", nil, true},
		{"quoted << is an ordinary key", "- insert:\n    - \"<<\": {id: a, name: pa}\n", []Entry{{}}, false},
		{"entry with a merge refused", "- insert:\n    - id: a\n      name: pa\n      <<: 1\n", nil, true},
		{"duplicate key refused", "- insert:\n    - id: a\n      name: pa\n      id: b\n", nil, true},
		{"a number id is no string", "- insert:\n    - id: 123\n      name: pa\n    - id: '123'\n      name: 0x10\n", []Entry{{Name: "pa"}, {ID: "123"}}, false},
		{"js-yaml's strings: yes, no, 1_000", "- insert:\n    - id: yes\n      name: 1_000\n", []Entry{{"yes", "1_000"}}, false},
		{"mapping root", "insert:\n  - id: a\n", nil, true},
		{"empty", "", nil, true},
		{"not YAML", "- insert:\n    - id: badyaml\n      name: @fx/badyaml-dsh-plugin\n", nil, true},
		{"two documents", "- insert: []\n---\n- insert: []\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := InsertEntries([]byte(tt.patch), Limits{})
			if tt.err {
				if !errors.Is(err, ErrPatch) {
					t.Errorf("err %v, want ErrPatch", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

// DSHIO/T 20 8.4: the dump entry's name must be the package name, not the
// name the patch declares.
func TestMountTargetsUsePackageName(t *testing.T) {
	sub := Subject{Name: "hello-dsh-plugin", Version: "1.0.0"}
	patchName := []Entry{{ID: "hello-dsh", Name: "other-name"}}
	o := Observation{Stage: T3, Stdout: []byte("- id: hello-dsh\n  name: other-name\n")}
	if r := DeriveT3(MountTargets(sub, patchName), o, DefaultLimits()); r.Status != StageFailed || r.Verdict != InstallsButNotRegistered {
		t.Errorf("dump names the patch's name: %s %s, want failed installs_but_not_registered", r.Status, r.Verdict)
	}
	o.Stdout = []byte("- id: hello-dsh\n  name: hello-dsh-plugin\n")
	if r := DeriveT3(MountTargets(sub, patchName), o, DefaultLimits()); r.Status != StagePassed {
		t.Errorf("dump names the package: %s %v, want passed", r.Status, r.Reasons)
	}
}
