package hosttool

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestLook(t *testing.T) {
	if _, err := Look("go", "install Go"); err != nil {
		t.Fatalf("go (running this test) not found: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "no-such-program")
	_, err := Look(missing, "apt-get install -y no-such-program")
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "apt-get install -y no-such-program") {
		t.Errorf("missing program: %v, want ErrMissing naming it and its install", err)
	}
}
