package pkgsource

import (
	"errors"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

var testVersions = []string{
	"0.9.0", "1.0.0", "1.1.0", "1.2.0-rc.1", "1.2.0", "1.2.5", "1.3.0-beta.1",
	"2.0.0-rc.1", "2.0.0-rc.2", "not-semver",
}

func TestResolveVersion(t *testing.T) {
	tags := map[string]string{"latest": "1.2.0", "next": "2.0.0-rc.2", "beta": "1.3.0-beta.1"}
	cases := []struct {
		kind    SelectorKind
		sel     string
		want    string
		howPart string
	}{
		{SelectExact, "1.1.0", "1.1.0", "exact"},
		{SelectExact, "v1.1.0", "1.1.0", "exact"},
		{SelectExact, "2.0.0-rc.1", "2.0.0-rc.1", "exact"},
		{SelectTag, "latest", "1.2.0", "dist-tag"},
		{SelectTag, "next", "2.0.0-rc.2", "dist-tag"},
		// npm-pick-manifest: latest wins when it satisfies the range.
		{SelectRange, "^1.0.0", "1.2.0", "latest"},
		// latest outside the range: highest satisfying, no prereleases.
		{SelectRange, ">=1.2.1", "1.2.5", "highest"},
		{SelectRange, "~1.1", "1.1.0", "highest"},
		{SelectRange, "*", "1.2.0", "latest"},
		{SelectRange, "<1.0.0", "0.9.0", "highest"},
		{SelectRange, "0.9.0 || 1.1.0", "1.1.0", "highest"},
		// A range naming a prerelease admits prereleases of that tuple.
		{SelectRange, ">=2.0.0-rc.1", "2.0.0-rc.2", "highest"},
		{SelectRange, "^1.3.0-beta.0", "1.3.0-beta.1", "highest"},
		// ...but not prereleases of other tuples (1.3.0-beta.1 here);
		// latest 1.2.0 satisfies, so it wins over 1.2.5.
		{SelectRange, ">=1.2.0-rc.1 <1.3.0-0", "1.2.0", "latest"},
		{SelectRange, ">1.2.0-rc.1 <1.2.0", "", ""},
	}
	for _, c := range cases {
		got, err := ResolveVersion("x", c.kind, c.sel, tags, testVersions)
		if c.want == "" {
			if !errors.Is(err, ErrVersionNotFound) {
				t.Errorf("%s %q: got %+v, %v; want ErrVersionNotFound", c.kind, c.sel, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", c.kind, c.sel, err)
			continue
		}
		if got.Version != c.want || !strings.Contains(got.How, c.howPart) {
			t.Errorf("%s %q = %+v, want %s (%s)", c.kind, c.sel, got, c.want, c.howPart)
		}
	}
}

func TestResolveNoLatestTagMeansStar(t *testing.T) {
	got, err := ResolveVersion("x", SelectTag, "latest", map[string]string{}, testVersions)
	if err != nil || got.Version != "1.2.5" {
		t.Fatalf("got %+v, %v; want 1.2.5 (highest non-prerelease)", got, err)
	}
}

func TestResolveNotFound(t *testing.T) {
	tags := map[string]string{"latest": "1.2.0", "gone": "9.9.9"}
	for _, c := range []struct {
		kind SelectorKind
		sel  string
		msg  string
	}{
		{SelectExact, "3.0.0", `version "3.0.0" is not published`},
		{SelectTag, "nope", `no dist-tag "nope"`},
		{SelectTag, "gone", `points at "9.9.9"`},
		{SelectRange, "^5", `no published version satisfies range "^5"`},
	} {
		_, err := ResolveVersion("x", c.kind, c.sel, tags, testVersions)
		if !errors.Is(err, ErrVersionNotFound) {
			t.Errorf("%q: %v is not ErrVersionNotFound", c.sel, err)
			continue
		}
		for _, part := range []string{c.msg, "available: 2.0.0-rc.2, 2.0.0-rc.1, 1.3.0-beta.1", "and 2 older", "latest=1.2.0"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("%q: %q lacks %q", c.sel, err, part)
			}
		}
	}
}

// The SANDBOX.md example: Masterminds admits 0.2.2-rc.1 in >=0.2.0-rc.2,
// npm does not.
func TestSatisfiesNPMPrereleaseRule(t *testing.T) {
	cases := []struct {
		rng, v string
		want   bool
	}{
		{">=0.2.0-rc.2", "0.2.2-rc.1", false},
		{">=0.2.0-rc.2", "0.2.0-rc.3", true},
		{">=0.2.0-rc.2", "0.2.2", true},
		{">=0.2.0-rc.2 <0.2.2-0", "0.2.2-rc.1", false},
		{"^1.0.0", "1.5.0-rc.1", false},
		{"^1.5.0-rc.0", "1.5.0-rc.1", true},
		{"^1.5.0-rc.0", "1.6.0-rc.1", false},
		{"1.0.0 || >=2.0.0-alpha", "2.0.0-beta", true},
		{"2.0.0-alpha || 1.0.0", "2.0.0-beta", false},
		{"*", "1.0.0-rc.1", false},
		{"", "1.0.0", true},
		{"1.2.3 - 2.0.0", "1.9.9", true},
	}
	for _, c := range cases {
		got, err := satisfiesNPM(c.rng, semver.MustParse(c.v))
		if err != nil {
			t.Errorf("%q %q: %v", c.rng, c.v, err)
			continue
		}
		if got != c.want {
			t.Errorf("satisfiesNPM(%q, %q) = %v, want %v", c.rng, c.v, got, c.want)
		}
	}
	// Masterminds alone disagrees on the first case: the reason this
	// rule exists.
	c, _ := semver.NewConstraint(">=0.2.0-rc.2")
	if !c.Check(semver.MustParse("0.2.2-rc.1")) {
		t.Fatalf("Masterminds changed: it no longer admits 0.2.2-rc.1 in >=0.2.0-rc.2; revisit satisfiesNPM")
	}
}

func TestAvailableSummaryQuotesHostileText(t *testing.T) {
	s := availableSummary(map[string]string{"evil\x1b[31m": "1.0.0"}, []string{"1.0.0", "x\ny"})
	if strings.ContainsAny(s, "\x1b\n") {
		t.Fatalf("summary carries control characters: %q", s)
	}
}
