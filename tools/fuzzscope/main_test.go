package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestScope(t *testing.T) {
	prefixes := []string{"github.com/dshaudit/dshaudit/", "github.com/sigstore/"}
	compile := "/usr/local/go/pkg/tool/linux_amd64/compile"
	args := func(pkg string) []string {
		return []string{"-o", "x.a", "-p", pkg, "-lang=go1.26", "-d=libfuzzer", "-complete", "a.go"}
	}
	for _, c := range []struct {
		tool, pkg string
		keep      bool
	}{
		{compile, "github.com/dshaudit/dshaudit/attest", true},
		{compile, "github.com/dshaudit/dshaudit/attest_test", true},
		{compile, "github.com/sigstore/sigstore-go/pkg/verify", true},
		{compile, "github.com/go-openapi/strfmt", false},
		{compile, "main", false},
		{compile, "crypto/x509", false},
		{compile + ".exe", "github.com/theupdateframework/go-tuf/v2/metadata", false},
		{"/usr/local/go/pkg/tool/linux_amd64/asm", "crypto/x509", true}, // only compile is changed
	} {
		in := args(c.pkg)
		got := scope(c.tool, in, prefixes)
		if c.keep != slices.Contains(got, instrumentFlag) {
			t.Errorf("%s -p %s: instrumented %v, want %v", c.tool, c.pkg, !c.keep, c.keep)
		}
		if want := slices.DeleteFunc(slices.Clone(in), func(a string) bool { return a == instrumentFlag }); !slices.Equal(slices.DeleteFunc(slices.Clone(got), func(a string) bool { return a == instrumentFlag }), want) {
			t.Errorf("%s -p %s: other arguments changed: %q", c.tool, c.pkg, got)
		}
		if !slices.Equal(in, args(c.pkg)) {
			t.Errorf("%s -p %s: the caller's arguments were modified", c.tool, c.pkg)
		}
	}
}

// TestRunNamesTheScopeInTheToolID: the compiler's -V=full line, which
// cmd/go keys its cache on, carries the scope; other output and exit
// codes pass through.
func TestRunNamesTheScopeInTheToolID(t *testing.T) {
	dir := t.TempDir()
	compile := filepath.Join(dir, "compile")
	script := "#!/bin/sh\nif [ \"$1\" = -V=full ]; then echo 'compile version go1.26.8'; exit 0; fi\necho \"$@\"; exit 7\n"
	if err := os.WriteFile(compile, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"a/,b/", compile, "-V=full"}, nil, &out, &errOut); code != 0 || out.String() != "compile version go1.26.8 fuzzscope=a/,b/\n" {
		t.Fatalf("-V=full: exit %d, %q %q", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run([]string{"a/", compile, "-p", "c/d", "-d=libfuzzer", "x.go"}, nil, &out, &errOut); code != 7 || out.String() != "-p c/d x.go\n" {
		t.Fatalf("compile outside the scope: exit %d, %q", code, out.String())
	}
	out.Reset()
	if code := run([]string{"a/"}, nil, &out, &errOut); code != 2 {
		t.Fatalf("no tool: exit %d", code)
	}
}
