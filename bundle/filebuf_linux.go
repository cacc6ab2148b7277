package bundle

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// newFileBuffer returns a zeroed buffer of n bytes for an evidence file.
// One of hugeFileBuffer bytes or more is advised to the kernel for
// transparent huge pages (madvise MADV_HUGEPAGE, which takes effect where
// the system's setting is "madvise" or "always"): the file is written
// whole straight after, and on a virtual machine a fault per 4 KiB page
// of fresh memory cost more than decompressing the bytes written to it
// (60 MiB of buffers touched: 230–270 ms with 4 KiB pages, 30–95 ms
// advised, on the 2-core VM of docs/measurements/
// 2026-12-06-verify-targets.md). Only the whole pages inside the buffer
// are advised, so no other memory changes; the advice is a hint, and its
// failure changes nothing but the speed.
func newFileBuffer(n int64) []byte {
	b := make([]byte, n)
	if n >= hugeFileBuffer {
		const page = 4096
		lo := (page - int(uintptr(unsafe.Pointer(unsafe.SliceData(b)))%page)) % page
		hi := lo + (len(b)-lo)/page*page
		_ = unix.Madvise(b[lo:hi], unix.MADV_HUGEPAGE)
	}
	return b
}
