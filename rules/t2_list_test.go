package rules

import (
	"reflect"
	"testing"
)

const helloList = "Legend: production dependency, optional only, dev only\n\ndsh-profile-web /dsh-home/profiles/web (PRIVATE)\n\ndependencies:\nhello-dsh-plugin 1.0.0\n"

func TestListedDependencies(t *testing.T) {
	out := "Legend: production dependency\n\nproj /p (PRIVATE)\n\ndependencies:\na 1.0.0\n@s/b 2.0.0-rc.1\n\ndevDependencies:\nhello-dsh-plugin 1.0.0\n\nother /q\n\ndependencies:\nc 3.0.0\nd\ne 4.0.0\n"
	got := ListedDependencies([]byte(out))
	want := []Dependency{{"a", "1.0.0", 1, "proj /p (PRIVATE)"}, {"@s/b", "2.0.0-rc.1", 1, "proj /p (PRIVATE)"}, {"c", "3.0.0", 2, "other /q"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// A header directly after the block ends it.
	got = ListedDependencies([]byte("dependencies:\na 1.0.0\noptionalDependencies:\nb 1.0.0\n"))
	if !reflect.DeepEqual(got, []Dependency{{"a", "1.0.0", 1, ""}}) {
		t.Errorf("got %v", got)
	}
	if d := ListedDependencies([]byte("hello-dsh-plugin 1.0.0\n")); d != nil {
		t.Errorf("line outside a block counted: %v", d)
	}
}

func TestDeriveT2(t *testing.T) {
	tests := []struct {
		name   string
		o      Observation
		status StageStatus
		fe     string
		reason string
	}{
		{name: "pass", o: obs(T2, 0, helloList, ""), status: StagePassed},
		{name: "pass with CRLF and colour", o: obs(T2, 0, "dependencies:\r\n\x1b[33mhello-dsh-plugin\x1b[39m 1.0.0\r\n", ""), status: StagePassed},
		{name: "version mismatch", o: obs(T2, 0, "dependencies:\nhello-dsh-plugin 1.0.1\n", ""), status: StageFailed,
			fe: SyntheticPrefix + "dependencies block lists hello-dsh-plugin at version \"1.0.1\", want \"1.0.0\"", reason: "1.0.1"},
		{name: "missing", o: obs(T2, 0, "dependencies:\nother 1.0.0\n", ""), status: StageFailed, reason: "does not list"},
		{name: "named only outside the block", o: obs(T2, 0, "hello-dsh-plugin 1.0.0\n\ndependencies:\nother 1.0.0\n", ""), status: StageFailed, reason: "does not list"},
		{name: "only in devDependencies", o: obs(T2, 0, "devDependencies:\nhello-dsh-plugin 1.0.0\n", ""), status: StageFailed, reason: "does not list"},
		// Every line naming the subject must agree. SPEC.md "T2 list".
		{name: "listed at two versions", o: obs(T2, 0, "dependencies:\nhello-dsh-plugin 1.0.0\nhello-dsh-plugin 0.9.0\n", ""), status: StageFailed,
			reason: "names hello-dsh-plugin 2 times (hello-dsh-plugin 1.0.0, hello-dsh-plugin 0.9.0)"},
		{name: "listed twice in one block", o: obs(T2, 0, "dependencies:\nhello-dsh-plugin 1.0.0\nhello-dsh-plugin 1.0.0\n", ""), status: StageFailed,
			reason: "more than once"},
		{name: "another project lists another version", o: obs(T2, 0, helloList+"\nother /q\n\ndependencies:\nhello-dsh-plugin 2.0.0\n", ""), status: StageFailed,
			reason: "the lines conflict"},
		{name: "two projects list the version", o: obs(T2, 0, helloList+"\nother /q\n\ndependencies:\nhello-dsh-plugin 1.0.0\n", ""), status: StagePassed},
		{name: "listed only on stderr", o: obs(T2, 0, "", "dependencies:\nhello-dsh-plugin 1.0.0\n"), status: StageFailed, reason: "does not list"},
		{name: "non-zero exit although listed", o: obs(T2, 1, helloList, "Error: dsh: boom\n"), status: StageFailed,
			fe: "Error: dsh: boom", reason: "exited with code 1"},
		{name: "timeout", o: func() Observation { o := obs(T2, 0, helloList, ""); o.TimedOut = true; return o }(),
			status: StageFailed, fe: "timeout: T2*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DeriveT2(helloSub, tt.o)
			v := Verdict("")
			if tt.status == StageFailed {
				v = InstallFailed
			}
			checkResult(t, r, tt.status, v, tt.fe)
			if tt.reason != "" && !hasReason(r, tt.reason) {
				t.Errorf("no reason containing %q in %q", tt.reason, r.Reasons)
			}
		})
	}
}
