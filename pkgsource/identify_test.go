package pkgsource

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestIdentifyRegistryAsksOnlyThePackument(t *testing.T) {
	reg := newFakeRegistry(t)
	tgz := helloTgz(t)
	reg.publish("hello-dsh-plugin", map[string][]byte{"1.0.0": tgz, "1.2.0": tgz, "2.0.0": tgz}, nil, `{"latest":"2.0.0"}`)
	for spec, want := range map[string]string{"hello-dsh-plugin@^1": "1.2.0", "hello-dsh-plugin": "2.0.0", "hello-dsh-plugin@1.0.0": "1.0.0"} {
		before := reg.hits.Load()
		name, version, err := Identify(context.Background(), mustSpec(t, spec), testOpts(reg.srv.URL, nil))
		if err != nil || name != "hello-dsh-plugin" || version != want {
			t.Errorf("%s: %s@%s %v, want %s", spec, name, version, err, want)
		}
		if n := reg.hits.Load() - before; n != 1 {
			t.Errorf("%s: %d requests, want the packument only", spec, n)
		}
	}
	if _, _, err := Identify(context.Background(), mustSpec(t, "hello-dsh-plugin@^3"), testOpts(reg.srv.URL, nil)); !errors.Is(err, ErrUnresolvable) || !errors.Is(err, ErrVersionNotFound) {
		t.Errorf("no matching version: %v", err)
	}
	if _, _, err := Identify(context.Background(), mustSpec(t, "hello-dsh-plugin"), testOpts("http://127.0.0.1:1/", nil)); !errors.Is(err, ErrRegistryUnreachable) {
		t.Errorf("registry down: %v", err)
	}
}

func TestIdentifyLocalSources(t *testing.T) {
	dir := t.TempDir()
	tgzPath := filepath.Join(dir, "hello-1.0.0.tgz")
	if err := os.WriteFile(tgzPath, helloTgz(t), 0o644); err != nil {
		t.Fatal(err)
	}
	pdir := filepath.Join(dir, "plugin")
	os.MkdirAll(pdir, 0o755)
	os.WriteFile(filepath.Join(pdir, "package.json"), []byte(`{"name":"@s/p","version":"0.3.0"}`), 0o644)
	for spec, want := range map[string]string{tgzPath: "hello-dsh-plugin@1.0.0", pdir: "@s/p@0.3.0"} {
		name, version, err := Identify(context.Background(), mustSpec(t, spec), Options{})
		if err != nil || name+"@"+version != want {
			t.Errorf("%s: %s@%s %v, want %s", spec, name, version, err, want)
		}
	}
	os.WriteFile(filepath.Join(pdir, "package.json"), []byte(`{"name":"x"}`), 0o644)
	if _, _, err := Identify(context.Background(), mustSpec(t, pdir), Options{}); !errors.Is(err, ErrUnresolvable) || !errors.Is(err, ErrBadMetadata) {
		t.Errorf("no version: %v", err)
	}
	if _, _, err := Identify(context.Background(), mustSpec(t, filepath.Join(dir, "none")), Options{}); !errors.Is(err, ErrLocalSource) {
		t.Errorf("missing directory: %v", err)
	}
}
