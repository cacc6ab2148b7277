package e2etest

import (
	"testing"
)

// recorder is a testing.TB that records Skipf and Fatalf instead of
// stopping the goroutine.
type recorder struct {
	testing.TB
	skipped, failed bool
}

func (r *recorder) Skipf(string, ...any)  { r.skipped = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestRequire(t *testing.T) {
	for _, tc := range []struct {
		env                 string
		tools               []string
		wantSkip, wantFatal bool
	}{
		{"", []string{"no-such-tool-dshaudit"}, true, false},
		{"0", nil, true, false},
		{"1", nil, false, false},
		{"1", []string{"go"}, false, false},
		{"1", []string{"no-such-tool-dshaudit"}, false, true},
	} {
		t.Setenv(EnvVar, tc.env)
		r := &recorder{TB: t}
		Require(r, tc.tools...)
		if r.skipped != tc.wantSkip || r.failed != tc.wantFatal {
			t.Errorf("%s=%q tools %v: skipped %v failed %v, want %v %v", EnvVar, tc.env, tc.tools, r.skipped, r.failed, tc.wantSkip, tc.wantFatal)
		}
	}
}
