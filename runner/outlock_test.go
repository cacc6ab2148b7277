package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
)

func TestLockOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p-1.0.0"+manifest.BundleSuffix)
	// What a killed writer of the same path left, and another path's.
	stale := filepath.Join(dir, ".p-1.0.0"+manifest.BundleSuffix+".tmp-123")
	other := filepath.Join(dir, ".q-1.0.0"+manifest.BundleSuffix+".tmp-123")
	for _, p := range []string{stale, other} {
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := LockOut(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the killed writer's temporary file is still there: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another path's temporary file was removed: %v", err)
	}
	_, err = LockOut(out)
	if !errors.Is(err, ErrOutBusy) || !strings.Contains(err.Error(), "pid ") || !strings.Contains(err.Error(), "give another --out") {
		t.Errorf("second lock: %v, want ErrOutBusy naming the holder's pid and what to do", err)
	}
	l.Release()
	l.Release() // twice is harmless
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("left in the directory: %v", ents)
	}
	l2, err := LockOut(out)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l2.Release()
	var nilLock *OutLock
	nilLock.Release()
}
