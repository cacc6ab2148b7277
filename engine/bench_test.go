package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// BenchmarkRunTrue is the per-command overhead of Run: a fresh container,
// limits, capture, and the explicit cleanup, running `true`.
func BenchmarkRunTrue(b *testing.B) {
	f := base(b)
	s := RunSpec{Image: f.image.ID, Argv: []string{"true"}, Limits: DefaultLimits()}
	for b.Loop() {
		res, err := f.eng.Run(context.Background(), s)
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// BenchmarkBarePodmanRunTrue is the same container through a bare
// `podman run` followed by `podman rm` (no --rm, as the engine), the
// baseline for BenchmarkRunTrue's overhead ratio.
func BenchmarkBarePodmanRunTrue(b *testing.B) {
	f := base(b)
	name := fmt.Sprintf("bench-bare-%d", os.Getpid())
	for b.Loop() {
		out, err := exec.Command("podman", "--runtime", "runc", "run", "--name", name, "--pull=never", "--network", "none",
			"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024", f.image.ID, "true").CombinedOutput()
		if rmOut, rmErr := exec.Command("podman", "rm", "--force", "--ignore", name).CombinedOutput(); rmErr != nil {
			b.Fatalf("podman rm %s: %v: %s", name, rmErr, rmOut)
		}
		if err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}
