package doccheck

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func refStrings(refs []FlagRef) []string {
	var out []string
	for _, r := range refs {
		cmd := "?"
		if r.Words != nil {
			cmd = strings.Join(r.Words, " ")
		}
		out = append(out, fmt.Sprintf("%d:%s:--%s", r.Line, cmd, r.Flag))
	}
	return out
}

func TestFlags(t *testing.T) {
	doc := "# Title\n" + // 1
		"\n" + // 2
		"Run `dshaudit verify B --key K` or give `--jobs`; podman gets\n" + // 3
		"`podman run --memory 768m`, dsh `dsh --profile web --no-open`.\n" + // 4
		"A span over lines: `dshaudit static X [--registry URL]\n" + // 5
		"[--no-cdn]` ends here, and plain --window text.\n" + // 6
		"\n" + // 7
		"```sh\n" + // 8
		"dshaudit image build --load   # also --not-a-flag in a comment\n" + // 9
		"dshaudit run x \\\n" + // 10
		"    --image i --key k\n" + // 11
		"cosign verify-blob --bundle b\n" + // 12
		"go run ./cmd/dshaudit key generate --type ed25519\n" + // 13
		"```\n" + // 14
		"Em dash -- and `--` are not flags.\n" // 15
	got := refStrings(Flags("X.md", []byte(doc)))
	want := []string{
		"3:verify B:--key",
		"3:?:--jobs",
		"5:static X:--registry",
		"5:static X:--no-cdn",
		"6:?:--window",
		"9:image build:--load",
		"10:run x:--image",
		"10:run x:--key",
		"13:key generate:--type",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Flags:\n got %q\nwant %q", got, want)
	}
}

func TestCitations(t *testing.T) {
	src := "package x\n" + // 1
		"// Read reads (SPEC.md \"Reader\n" + // 2
		"// limits and refusals\"). See also DESIGN.md \"Sandbox image\".\n" + // 3
		"const help = `checks offline (DESIGN.md \"Running\n" + // 4
		"a test\"), SPEC \"T3 mount\"`\n" + // 5
		"// SPEC.md 3.3 is a number; PACKAGE-SPEC \"x\" is not a citation.\n" // 6
	var got []string
	for _, c := range Citations("x.go", []byte(src)) {
		got = append(got, fmt.Sprintf("%d:%s:%s", c.Line, c.Doc, c.Heading))
	}
	want := []string{
		"2:SPEC.md:Reader limits and refusals",
		"3:DESIGN.md:Sandbox image",
		"4:DESIGN.md:Running a test",
		"5:SPEC.md:T3 mount",
		"6:SPEC.md:",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Citations:\n got %q\nwant %q", got, want)
	}
}

func TestHeadings(t *testing.T) {
	md := "# A\n## T4 command (DSHIO/T 21 5.1.8)\n```\n# not a heading\n```\n####### seven\n#nospace\n### C\n"
	hs := Headings([]byte(md))
	if want := []string{"A", "T4 command (DSHIO/T 21 5.1.8)", "C"}; !slices.Equal(hs, want) {
		t.Fatalf("Headings = %q, want %q", hs, want)
	}
	for cited, want := range map[string]bool{
		"T4 command": true, "T4 command (DSHIO/T 21 5.1.8)": true, "T4": false, "C": true, "c": false,
	} {
		if got := HasHeading(hs, cited); got != want {
			t.Errorf("HasHeading(%q) = %v, want %v", cited, got, want)
		}
	}
}

func TestFileProblem(t *testing.T) {
	for _, c := range []struct {
		f    TrackedFile
		want string // substring; "" for no problem
	}{
		{TrackedFile{Path: "verify/verify.go", Size: 100, Head: []byte("package")}, ""},
		{TrackedFile{Path: "verify.test", Size: 100, Head: []byte("xx")}, "build output"},
		{TrackedFile{Path: "bin/dshaudit", Size: 100, Head: []byte("\x7fELF\x02")}, "executable"},
		{TrackedFile{Path: "docs/big.json", Size: MaxTrackedSize + 1, Head: []byte("{")}, "over the"},
		{TrackedFile{Path: "testdata/vectors/big.tar.zst", Size: 5 * MaxTrackedSize, Head: []byte{0x28, 0xb5}}, ""},
		{TrackedFile{Path: "docs/ok.json", Size: MaxTrackedSize, Head: []byte("{")}, ""},
	} {
		got := FileProblem(c.f)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("FileProblem(%s) = %q, want %q", c.f.Path, got, c.want)
		}
	}
}
