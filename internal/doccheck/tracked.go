package doccheck

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// MaxTrackedSize is the largest file the repository tracks outside a
// testdata directory.
const MaxTrackedSize = 1 << 20

// TrackedFile is one file `git ls-files` lists: its path, size and first
// bytes.
type TrackedFile struct {
	Path string
	Size int64
	Head []byte
}

// buildOutputSuffixes are names Go and C toolchains give their outputs.
var buildOutputSuffixes = []string{".test", ".exe", ".o", ".a", ".so", ".dll", ".dylib"}

// executableMagics are the first bytes of ELF, Mach-O and PE files.
var executableMagics = [][]byte{
	[]byte("\x7fELF"),
	{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf},
	{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
	[]byte("MZ"),
}

// FileProblem says why a tracked file does not belong in the repository,
// or "" when it does: a build output (by name or by executable header),
// or more than MaxTrackedSize bytes outside a testdata directory.
func FileProblem(f TrackedFile) string {
	name := path.Base(f.Path)
	for _, suf := range buildOutputSuffixes {
		if strings.HasSuffix(name, suf) {
			return fmt.Sprintf("a build output (%s file); build outputs are never tracked", suf)
		}
	}
	for _, magic := range executableMagics {
		if bytes.HasPrefix(f.Head, magic) {
			return "an executable or object file (by its header); build outputs are never tracked"
		}
	}
	if f.Size > MaxTrackedSize && !inTestdata(f.Path) {
		return fmt.Sprintf("%d bytes, over the %d-byte limit for files outside testdata/", f.Size, MaxTrackedSize)
	}
	return ""
}

func inTestdata(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if part == "testdata" {
			return true
		}
	}
	return false
}
