package rules

import (
	"strings"
	"testing"
)

func TestClaimsCertified(t *testing.T) {
	tests := []struct {
		text   string
		exempt []string
		want   bool
	}{
		{"DSHIO certified", nil, true},
		{"CERTIFIED plugin", nil, true},
		{"сertified (Cyrillic es)", nil, true},
		{"cеrtіfіed (Cyrillic ie, i)", nil, true},
		{"ｃｅｒｔｉｆｉｅｄ", nil, true},
		{"cer\u200btified", nil, true},
		{"cert\u00adified", nil, true},
		{"uncertified-ish", nil, false},
		{"certification pending", nil, false},
		{"Package: certified-weather@1.0.0", []string{"certified-weather"}, false},
		{"certified-weather is certified", []string{"certified-weather"}, true},
		{"/pkgs/certified-weather-1.0.0.tgz", []string{"certified-weather"}, false},
		{"nothing here", nil, false},
		// A package named exactly the word exempts it only where a
		// package name stands; a fragment of the word exempts nothing.
		{"certified@1.0.0", []string{"certified"}, false},
		{"dsh plugin --profile web add /pkgs/certified-1.0.0.tgz", []string{"certified"}, false},
		{"note: DSHIO certified build", []string{"certified"}, true},
		{"Package: certified@1.0.0, DSHIO certified", []string{"certified"}, true},
		{"DSHIO certified", []string{"e"}, true},
		{"DSHIO certified", []string{"cert"}, true},
		{"DSHIO certified", []string{"ified"}, true},
	}
	for _, tt := range tests {
		if got := ClaimsCertified(tt.text, tt.exempt...); got != tt.want {
			t.Errorf("ClaimsCertified(%q, %q) = %v, want %v", tt.text, tt.exempt, got, tt.want)
		}
	}
}

// TestContainsFoldASCIIAsLowerCase: ClaimsCertified's ASCII prefilter
// answers as strings.Contains over strings.ToLower, the folding it skips.
func TestContainsFoldASCIIAsLowerCase(t *testing.T) {
	for _, s := range []string{
		"", "c", "certifie", "certified", "CERTIFIED", "CeRtIfIeD", "uncertified", "xcertifiedx",
		"certifieD!", "cert ified", "Certificate", "ccertified", "certifiec", "\x03ERTIFIED", "CERTIFIE\x04",
		"cer\x00tified", "CERTIFIEDcertified", "[ertified", "certifie" + "d"[:0],
	} {
		if got, want := containsFoldASCII(s, "certified"), strings.Contains(strings.ToLower(s), "certified"); got != want {
			t.Errorf("containsFoldASCII(%q) = %v, strings.Contains of its lower case %v", s, got, want)
		}
	}
}
