package owner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// MkdirTemp makes a new directory in dir (os.TempDir() when "") named
// prefix + the calling process's Token + "-" + random digits, so that
// SweepDirs can tell whether its maker still runs. Without an owner (no
// /proc) it is os.MkdirTemp's directory, which no sweep removes.
func MkdirTemp(dir, prefix string) (string, error) {
	me, err := Self()
	if err != nil {
		return os.MkdirTemp(dir, prefix)
	}
	return os.MkdirTemp(dir, prefix+me.Token()+"-")
}

// Swept is one directory a sweep found, and what became of it.
type Swept struct {
	Path  string
	Owner string // the Token in its name
	// Removed is set when the owner was dead and the directory is gone.
	Removed bool
	Err     error
}

// SweepDirs removes the directories of dir that MkdirTemp made with one
// of the prefixes for a process that is Dead (DESIGN.md "Leftovers of a
// killed run"). A name without a token, or with the token of a live or
// unknown owner, is left alone and not reported. dir "" is os.TempDir().
func SweepDirs(dir string, prefixes ...string) ([]Swept, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("sweep %q: %w", dir, err)
	}
	var out []Swept
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		tok := dirToken(e.Name(), prefixes)
		if tok == "" || TokenState(tok) != Dead {
			continue
		}
		p := filepath.Join(dir, e.Name())
		s := Swept{Path: p, Owner: tok}
		if err := os.RemoveAll(p); err != nil {
			s.Err = err
		} else {
			s.Removed = true
		}
		out = append(out, s)
	}
	return out, nil
}

// dirToken is the owner token in a MkdirTemp name, "" if none.
func dirToken(name string, prefixes []string) string {
	for _, p := range prefixes {
		rest, ok := strings.CutPrefix(name, p)
		if !ok {
			continue
		}
		i := strings.LastIndexByte(rest, '-')
		if i <= 0 {
			return ""
		}
		return rest[:i]
	}
	return ""
}
