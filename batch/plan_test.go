package batch

import (
	"errors"
	"strings"
	"testing"
)

func TestParsePlan(t *testing.T) {
	plan := `# nightly
hello-dsh-plugin@1.0.0
  ./testdata/plugins/pass   # a fixture

@scope/x@^1.2
github:owner/repo#v1.0.0
`
	es, err := ParsePlan(strings.NewReader(plan), "plan.txt")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Spec.String()+"@line"+string(rune('0'+e.Line)))
	}
	want := "hello-dsh-plugin@1.0.0@line2 testdata/plugins/pass@line3 @scope/x@^1.2@line5 github:owner/repo#v1.0.0@line6"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
}

func TestParsePlanNamesEveryBadLine(t *testing.T) {
	plan := "good@1.0.0\nhttps://example.com/x.tgz\n\nnot a spec\nnpm:alias@1\n"
	_, err := ParsePlan(strings.NewReader(plan), "plan.txt")
	if !errors.Is(err, ErrPlan) {
		t.Fatalf("err %v, want ErrPlan", err)
	}
	for _, want := range []string{"plan.txt:2: not a package spec", "plan.txt:4: not a package spec", "plan.txt:5: not a package spec"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "plan.txt:1:") {
		t.Errorf("error %q names the good line", err)
	}
}

func TestParsePlanEmpty(t *testing.T) {
	if _, err := ParsePlan(strings.NewReader("# nothing\n\n"), "p"); !errors.Is(err, ErrPlan) {
		t.Fatalf("err %v, want ErrPlan", err)
	}
}

func TestBundleName(t *testing.T) {
	d := "sha256:b1f337c9c01cafad1f7cc4f951532ca12c6921a22155690ef7b811206ab98b01"
	for _, c := range []struct{ name, version, want string }{
		{"hello", "1.0.0", "hello-1.0.0.img-b1f337c9c01c.dshaudit.tar.zst"},
		{"@scope/x", "2.0.0-rc.1", "scope-x-2.0.0-rc.1.img-b1f337c9c01c.dshaudit.tar.zst"},
	} {
		got, err := BundleName(c.name, c.version, d)
		if err != nil || got != c.want {
			t.Errorf("BundleName(%q, %q) = %q, %v; want %q", c.name, c.version, got, err, c.want)
		}
	}
	if _, err := BundleName("x", "../../etc", d); err == nil {
		t.Error("a version with a path escape gave a name")
	}
	if _, err := BundleName("x", "1.0.0", "md5:abc"); err == nil {
		t.Error("a non-sha256 digest gave a name")
	}
}
