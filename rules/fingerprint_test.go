package rules

import (
	"errors"
	"strings"
	"testing"
)

const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

const goodFP = "dsh=0.2.2-rc.1;img=dsh-sandbox:5.0@sha256:" + hex64 + ";node=24.11.1;pnpm=9.15.9;mem=768m;cpu=1"

func TestParseFingerprintValid(t *testing.T) {
	for _, s := range []string{
		goodFP,
		"dsh=0.1.0-rc.8;img=localhost:5000/dshaudit/sandbox:0.1.0-rc.8@sha256:" + hex64 + ";node=24.11.1;pnpm=9.15.9;mem=768m;cpu=0.5",
		"dsh=0.2.2-rc.1;img=dsh-sandbox@sha256:" + hex64 + ";node=24.11.1;pnpm=9.15.9;mem=2g;cpu=2",
		goodFP + ";model=deepseek-v4.1-flash-0731;temp=0;maxtok=4096;tools=7",
	} {
		f, err := ParseFingerprint(s)
		if err != nil {
			t.Errorf("ParseFingerprint(%q): %v", s, err)
			continue
		}
		if f.String() != s {
			t.Errorf("round trip\n got %q\nwant %q", f.String(), s)
		}
	}
	f, _ := ParseFingerprint(goodFP)
	want := Fingerprint{DSH: "0.2.2-rc.1", ImageName: "dsh-sandbox:5.0", ImageDigest: "sha256:" + hex64,
		Node: "24.11.1", PNPM: "9.15.9", Mem: "768m", CPU: "1"}
	if f != want || f.HasModel() {
		t.Errorf("got %+v", f)
	}
}

func TestParseFingerprintInvalid(t *testing.T) {
	rep := func(old, new string) string { return strings.Replace(goodFP, old, new, 1) }
	tests := []struct {
		name  string
		in    string
		is    error
		field string
	}{
		{"empty", "", nil, ""},
		{"standard example with elided digest", "dsh=0.2.2-rc.1;img=dsh-sandbox:5.0@sha256:abc123...;node=24.11.1;pnpm=9.15.9;mem=768m;cpu=1", ErrNoDigest, "img"},
		{"no digest", rep("@sha256:"+hex64, ""), ErrNoDigest, "img"},
		{"sha512 digest", rep("sha256:"+hex64, "sha512:"+hex64+hex64), ErrNoDigest, "img"},
		{"uppercase digest", rep(hex64, strings.ToUpper(hex64)), ErrNoDigest, "img"},
		{"empty image name", rep("dsh-sandbox:5.0", ""), nil, "img"},
		{"bad image name", rep("dsh-sandbox:5.0", "Dsh Sandbox"), nil, "img"},
		{"x range", rep("dsh=0.2.2-rc.1", "dsh=0.2.x"), ErrNotExactVersion, "dsh"},
		{"caret range", rep("dsh=0.2.2-rc.1", "dsh=^0.2.2"), ErrNotExactVersion, "dsh"},
		{"comparator range", rep("dsh=0.2.2-rc.1", "dsh=>=0.2.0"), ErrNotExactVersion, "dsh"},
		{"series", rep("dsh=0.2.2-rc.1", "dsh=0.2.2 series"), ErrNotExactVersion, "dsh"},
		{"v prefix node", rep("node=24.11.1", "node=v24.11.1"), ErrNotExactVersion, "node"},
		{"short pnpm", rep("pnpm=9.15.9", "pnpm=9"), ErrNotExactVersion, "pnpm"},
		{"mem without unit", rep("mem=768m", "mem=768"), nil, "mem"},
		{"mem with capital unit", rep("mem=768m", "mem=768MiB"), nil, "mem"},
		{"cpu not a number", rep("cpu=1", "cpu=one"), nil, "cpu"},
		{"cpu zero", rep("cpu=1", "cpu=0"), nil, "cpu"},
		{"keys out of order", "img=dsh-sandbox:5.0@sha256:" + hex64 + ";dsh=0.2.2-rc.1;node=24.11.1;pnpm=9.15.9;mem=768m;cpu=1", nil, "field 1"},
		{"missing key", "dsh=0.2.2-rc.1;img=dsh-sandbox:5.0@sha256:" + hex64 + ";node=24.11.1;pnpm=9.15.9;mem=768m", nil, "fields"},
		{"unknown key", rep("cpu=1", "gpu=1"), nil, "field 6"},
		{"trailing semicolon", goodFP + ";", nil, "fields"},
		{"spaces", strings.ReplaceAll(goodFP, ";", "; "), nil, "field 2"},
		{"partial model fields", goodFP + ";model=m;temp=0;maxtok=4096", nil, "fields"},
		{"bad model values", goodFP + ";model=m;temp=hot;maxtok=0;tools=-1", nil, "temp"},
		{"too long", goodFP + strings.Repeat("x", MaxFingerprintBytes), nil, "bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFingerprint(tt.in)
			if !errors.Is(err, ErrNotFingerprint) {
				t.Fatalf("err %v, want ErrNotFingerprint", err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err %v, want %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.field) {
				t.Errorf("err %q does not name %q", err, tt.field)
			}
		})
	}
}

// All field problems are reported together, each quoting its input.
func TestParseFingerprintReportsAll(t *testing.T) {
	_, err := ParseFingerprint("dsh=^0.2.2;img=x:1;node=v24;pnpm=9.15.9;mem=lots;cpu=1")
	for _, want := range []string{`dsh`, `"^0.2.2"`, `img`, `node`, `"v24"`, `mem`, `"lots"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not mention %s", err, want)
		}
	}
}
