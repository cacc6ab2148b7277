package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

func TestImageBuildUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"image", "build", "--insecure"}, "--insecure needs --push"},
		{[]string{"image", "build", "--resolution-cutoff", "yesterday"}, "RFC 3339"},
		{[]string{"image", "build", "extra-arg"}, "unknown command"},
		{[]string{"image", "build", "--update-lock"}, "--update-lock needs --lock FILE"},
		{[]string{"image", "build", "--rootfs", "/x", "--lock", "/y"}, "--rootfs replaces the Debian base"},
		{[]string{"image", "build", "--lock", "/nonexistent/lock.json"}, "debian lock"},
		{[]string{"image", "verify", "localhost/x:1"}, "not pinned"},
		{[]string{"image", "verify", fakePinned}, "--oci-archive FILE or --oci-layout DIR"},
		{[]string{"image", "verify", fakePinned, "--oci-archive", "/nonexistent.tar"}, "nonexistent"},
	} {
		var out, errb bytes.Buffer
		code := execute(context.Background(), tc.args, strings.NewReader(""), &out, &errb)
		if code != ExitUsage || !strings.Contains(errb.String(), tc.want) || out.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit %d and %q", tc.args, code, errb.String(), out.String(), ExitUsage, tc.want)
		}
	}
}

// The DSHIO baseline is not published in the reachable registry: one clear
// error, exit 2, nothing on stdout. Needs the npm registry.
func TestImageBuildUnpublishedDsh(t *testing.T) {
	e2etest.Require(t)
	var out, errb bytes.Buffer
	code := execute(context.Background(), []string{"image", "build", "--dsh-version", "0.2.2-rc.1", "--cache-dir", t.TempDir(), "--rootfs", t.TempDir()}, strings.NewReader(""), &out, &errb)
	if code != ExitUsage || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	msg := errb.String()
	for _, w := range []string{"0.2.2-rc.1", "not published", "--dsh-version", "0.1.0-rc.8"} {
		if !strings.Contains(msg, w) {
			t.Errorf("stderr lacks %q: %s", w, msg)
		}
	}
}

func TestImageBuildHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := execute(context.Background(), []string{"image", "build", "--help"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, w := range []string{"Exit codes:", "--load", "--oci-archive", "--resolution-cutoff", "Examples:", "--update-lock", "--lock", "--debian-mirror"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("help lacks %q", w)
		}
	}
}
