package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/dshaudit/dshaudit/internal/owner"
)

// ErrOutBusy: another run holds the lock of the same bundle path (the
// command maps it to "could not run", exit 3).
var ErrOutBusy = errors.New("bundle path in use")

// OutLock is the exclusive hold of one bundle path for one run (DESIGN.md
// "Two runs, one --out"): a file ".NAME.lock" beside it, flock(2)ed for
// the whole run, so a second run with the same path stops at once instead
// of racing the first to the rename.
type OutLock struct {
	path string
	f    *os.File
}

// LockOut takes the lock of the bundle path out, or fails with
// ErrOutBusy (naming the holder) when another
// process holds it. Holding it, it removes the temporary files
// (".NAME.tmp-*") a killed writer of the same path left: every writer of
// the path takes the lock first, so none of them is being written.
func LockOut(out string) (*OutLock, error) {
	lp := filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".lock")
	for range 10 {
		f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("%w: --out %q: lock %q: %w", ErrEnvironment, out, lp, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			holder, _ := io.ReadAll(io.LimitReader(f, 512))
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("%w: --out %q is held by another dshaudit run (%s); wait for it to end or give another --out",
					ErrOutBusy, out, holderText(string(holder)))
			}
			return nil, fmt.Errorf("%w: --out %q: lock %q: %w", ErrEnvironment, out, lp, err)
		}
		// The holder before us may have removed the file after we opened
		// it: then the lock is on a name nobody else will open. Retry.
		fst, err1 := f.Stat()
		pst, err2 := os.Stat(lp)
		if err1 != nil || err2 != nil || !os.SameFile(fst, pst) {
			f.Close()
			continue
		}
		if me, err := owner.Self(); err == nil {
			_ = f.Truncate(0)
			_, _ = f.WriteAt([]byte(me.String()+"\n"), 0)
		}
		tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "."+globEscape(filepath.Base(out))+".tmp-*"))
		for _, t := range tmps {
			_ = os.Remove(t)
		}
		return &OutLock{path: lp, f: f}, nil
	}
	return nil, fmt.Errorf("%w: --out %q: lock %q keeps being replaced", ErrEnvironment, out, lp)
}

// Release removes the lock file and lets the lock go. It is safe on nil.
func (l *OutLock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = os.Remove(l.path) // before the unlock: a waiter then retries on a new file
	_ = l.f.Close()
	l.f = nil
}

func holderText(s string) string {
	o, err := owner.Parse(strings.TrimSpace(s))
	if err != nil {
		return "holder unknown"
	}
	return fmt.Sprintf("pid %d on %s", o.PID, o.Host)
}

func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(s)
}
