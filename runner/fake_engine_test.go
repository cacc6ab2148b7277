package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/rules"
)

// fakeEngine plays dsh for unit tests: T1 writes a profile like dsh does,
// and each stage's outcome per repetition comes from fail.
type fakeEngine struct {
	mu    sync.Mutex
	calls []engine.RunSpec
	// fail[rep][stage] makes that stage fail in that repetition.
	fail map[int]map[rules.Stage]bool
	// block makes T1 of every repetition wait for ctx (interrupt test);
	// started is closed when it begins waiting.
	block   bool
	started chan struct{}
	rep     int
	dsh     string
	name    string
	version string
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{fail: map[int]map[rules.Stage]bool{}, dsh: "0.1.0-rc.8", name: "fx-plugin", version: "1.0.0"}
}

func (f *fakeEngine) Name() string                                { return "fake" }
func (f *fakeEngine) Version(ctx context.Context) (string, error) { return "0.0.1", nil }

func (f *fakeEngine) EnsureImage(ctx context.Context, ref string, src engine.Source) (engine.Image, error) {
	p, err := engine.ParsePinned(ref)
	if err != nil {
		return engine.Image{}, err
	}
	return engine.Image{Ref: ref, Digest: p.Digest.String(), ID: "fakeimageid"}, nil
}

func (f *fakeEngine) stageOf(argv []string) rules.Stage {
	a := strings.Join(argv, " ")
	switch {
	case strings.Contains(a, " add "):
		return rules.T1
	case strings.HasSuffix(a, " list"):
		return rules.T2
	case strings.HasSuffix(a, "--dump-config"):
		return rules.T3
	case strings.HasPrefix(a, "dsh --profile web"):
		return rules.T4
	}
	return ""
}

func (f *fakeEngine) Run(ctx context.Context, spec engine.RunSpec) (*engine.Result, error) {
	return f.run(ctx, spec, 0)
}

func (f *fakeEngine) Observe(ctx context.Context, spec engine.RunSpec, window time.Duration) (*engine.Result, error) {
	return f.run(ctx, spec, window)
}

func (f *fakeEngine) run(ctx context.Context, spec engine.RunSpec, window time.Duration) (*engine.Result, error) {
	f.mu.Lock()
	f.calls = append(f.calls, spec)
	st := f.stageOf(spec.Argv)
	if st == rules.T1 {
		f.rep++
	}
	rep := f.rep
	failing := f.fail[rep][st]
	f.mu.Unlock()
	res := &engine.Result{Container: "dshaudit-fake"}
	out := func(s string) { res.Stdout = append(res.Stdout, s...); res.Merged = append(res.Merged, s...) }
	switch {
	case slices.Equal(spec.Argv, []string{"dsh", "--version"}):
		out(f.dsh + "\n")
		return res, nil
	case slices.Equal(spec.Argv, []string{"node", "--version"}):
		out("v24.11.1\n")
		return res, nil
	case slices.Equal(spec.Argv, []string{"pnpm", "--version"}):
		out("9.15.9\n")
		return res, nil
	case len(spec.Argv) > 2 && spec.Argv[2] == entryDeclarationScript:
		b, err := os.ReadFile("../testdata/dsh-evidence/cordis-plugin-loader-1.0.2-entry.d.ts")
		if err != nil {
			return nil, err
		}
		out(string(b))
		return res, nil
	}
	var home string
	for _, m := range spec.Mounts {
		if m.Target == ProfileMount {
			home = m.Source
		}
	}
	if home == "" {
		return nil, fmt.Errorf("fake: no profile mount in %v", spec.Mounts)
	}
	switch st {
	case rules.T1:
		if f.block {
			close(f.started)
			<-ctx.Done()
			return res, fmt.Errorf("run: stopped: %w", ctx.Err())
		}
		// dsh sets up the fresh profile before it runs pnpm.
		out("dsh: initialized profile web at " + ProfileMount + "/profiles/web\n")
		if failing {
			res.ExitCode = 1
			out(" ERR_PNPM_FETCH_404  GET https://registry.npmjs.org/nonexistent-pkg-dshaudit-xyz: Not Found - 404\n")
			return res, nil
		}
		web := filepath.Join(home, "profiles", "web")
		pkgDir := filepath.Join(web, "node_modules", ".pnpm", f.name+"@1.0.0", "node_modules", f.name)
		if err := os.MkdirAll(pkgDir, 0o755); err != nil {
			return nil, err
		}
		os.WriteFile(filepath.Join(pkgDir, "index.js"), make([]byte, 1000), 0o644)
		os.Link(filepath.Join(pkgDir, "index.js"), filepath.Join(pkgDir, "hardlink.js")) // counted once
		os.Symlink(".pnpm/"+f.name+"@1.0.0/node_modules/"+f.name, filepath.Join(web, "node_modules", f.name))
		// pnpm writes a local package as file:PATH, a registry one as
		// its version (SPEC.md "What the verifier cross-checks", class 6).
		dep := f.version
		if installed := spec.Argv[len(spec.Argv)-1]; strings.HasPrefix(installed, "/") {
			dep = "file:" + installed
		}
		os.WriteFile(filepath.Join(web, "package.json"), []byte(`{"name":"dsh-profile-web","private":true,"dependencies":{"`+f.name+`":"`+dep+`"},"dsh":{"profile":{"bundles":["@deepseek-ai/dsh-base","`+f.name+`"]}}}`), 0o644)
		out(fmt.Sprintf("dependencies:\n+ %s %s\n\nDone in 1s\n", f.name, f.version))
	case rules.T2:
		if failing {
			out("dependencies:\n")
			return res, nil
		}
		out(fmt.Sprintf("Legend: production dependency\n\ndsh-profile-web %s/profiles/web (PRIVATE)\n\ndependencies:\n%s %s\n", ProfileMount, f.name, f.version))
	case rules.T3:
		if failing {
			res.ExitCode = 1
			out("Error: YAMLException: bad patch\n")
			return res, nil
		}
		out(fmt.Sprintf("# == @deepseek-ai/dsh-base\n- id: base\n  name: '@deepseek-ai/dsh-base'\n# == %s\n- id: fx\n  name: %s\n", f.name, f.name))
	case rules.T4:
		res.Liveness = &engine.Liveness{Window: window, AliveFor: window, AliveAtEnd: true}
		res.ExitCode = 137
		if failing {
			res.Liveness = &engine.Liveness{Window: window, AliveFor: time.Second}
			res.ExitCode = 1
			out("dsh web: http://127.0.0.1:3080\nError: boom from apply\n")
			return res, nil
		}
		out("dsh web: http://127.0.0.1:3080\n")
	default:
		return nil, fmt.Errorf("fake: unexpected command %q", spec.Argv)
	}
	return res, nil
}

func (f *fakeEngine) stagesRun() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var s []string
	for _, c := range f.calls {
		if st := f.stageOf(c.Argv); st != "" {
			s = append(s, string(st))
		}
	}
	return s
}
