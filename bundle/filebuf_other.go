//go:build !linux

package bundle

// newFileBuffer returns a zeroed buffer of n bytes for an evidence file
// (filebuf_linux.go advises large ones for huge pages).
func newFileBuffer(n int64) []byte { return make([]byte, n) }
