package batch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/pkgsource"
	"github.com/dshaudit/dshaudit/runner"
)

// Task is one spec of a plan, identified: the exact package it names and
// the bundle it gets.
type Task struct {
	// Line is the plan line (0 for a command-line spec); Spec the spec
	// as written.
	Line int    `json:"line,omitempty"`
	Spec string `json:"spec"`
	// RunSpec is what the task passes to `dshaudit run`: NAME@VERSION,
	// exact, for a registry spec (so a version published while the batch
	// runs changes nothing), the absolute path for a local one.
	RunSpec string `json:"run_spec"`
	// Package is NAME@VERSION.
	Package string `json:"package"`
	// Bundle is the bundle's path in the output directory.
	Bundle string `json:"bundle"`
}

// Identifier resolves a spec to its exact name and version
// (pkgsource.Identify; a fake in tests).
type Identifier func(ctx context.Context, spec pkgsource.Spec) (name, version string, err error)

// BundleName is the file name of name@version's bundle made with the
// image whose digest is "sha256:HEX": npm pack's name for the package
// (scope "@" dropped, "/" turned into "-"), the version, the first 12 hex
// digits of the image digest, then ".dshaudit.tar.zst". The digest in the
// name keeps runs against different images apart; the full digest is
// checked inside the bundle (its fingerprint) before a bundle counts.
func BundleName(name, version, digest string) (string, error) {
	tgz, err := runner.TarballFileName(name, version)
	if err != nil {
		return "", err
	}
	hex, ok := strings.CutPrefix(digest, "sha256:")
	if !ok || len(hex) < 12 {
		return "", fmt.Errorf("image digest %q is not sha256:HEX", digest)
	}
	return strings.TrimSuffix(tgz, ".tgz") + ".img-" + hex[:12] + manifest.BundleSuffix, nil
}

// ImageDigest returns the "sha256:HEX" of a pinned image reference.
func ImageDigest(image string) (string, error) {
	ref, err := engine.ParsePinned(image)
	if err != nil {
		return "", err
	}
	return ref.Digest.String(), nil
}

// ErrUnresolvableSpec marks a spec whose exact name and version cannot be
// had (DSHIO/T 20 5.5 "unresolvable"): it gets no task and no bundle.
var ErrUnresolvableSpec = errors.New("spec unresolvable")

// Identify turns plan entries into tasks with bundles in dir. A spec
// whose version cannot be resolved is returned in unresolved with why;
// an environment failure (registry unreachable) stops everything. Two
// specs naming the same package@version give one task.
func Identify(ctx context.Context, entries []Entry, id Identifier, dir, digest string) (tasks []Task, unresolved []Outcome, err error) {
	seen := map[string]int{}
	for _, e := range entries {
		name, version, err := id(ctx, e.Spec)
		if err != nil {
			if errors.Is(err, pkgsource.ErrRegistryUnreachable) || ctx.Err() != nil {
				return nil, nil, err
			}
			t := Task{Line: e.Line, Spec: e.Spec.Raw}
			unresolved = append(unresolved, Outcome{Task: t, State: StateUnresolvable, Why: err.Error()})
			continue
		}
		file, err := BundleName(name, version, digest)
		if err != nil {
			t := Task{Line: e.Line, Spec: e.Spec.Raw, Package: name + "@" + version}
			unresolved = append(unresolved, Outcome{Task: t, State: StateUnresolvable, Why: err.Error()})
			continue
		}
		t := Task{Line: e.Line, Spec: e.Spec.Raw, Package: name + "@" + version, Bundle: filepath.Join(dir, file)}
		switch e.Spec.Source {
		case pkgsource.SourceRegistry:
			t.RunSpec = t.Package
		case pkgsource.SourceLocalDir, pkgsource.SourceLocalTarball:
			abs, err := filepath.Abs(e.Spec.Path)
			if err != nil {
				return nil, nil, err
			}
			// An absolute path: the task's working directory may
			// differ, the shared storage holds the same path.
			t.RunSpec = abs
		default:
			t.RunSpec = e.Spec.Raw
		}
		if i, dup := seen[t.Package]; dup {
			unresolved = append(unresolved, Outcome{Task: t, State: StateDuplicate,
				Why: fmt.Sprintf("names %s, as %q does: one bundle for both", t.Package, tasks[i].Spec)})
			continue
		}
		seen[t.Package] = len(tasks)
		tasks = append(tasks, t)
	}
	return tasks, unresolved, nil
}
