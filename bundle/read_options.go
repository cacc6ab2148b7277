package bundle

// ReadOption changes how Read works, never what it accepts or which
// refusal it reports (TestReadOptionsAgree).
type ReadOption func(*readConfig)

type readConfig struct {
	decodeAhead bool
	onFile      func(path string, data []byte)
}

// DecodeAhead has Read decode the zstd frame on goroutines of its own,
// ahead of the tar reader, with a history buffer of twice the window
// (klauspost/compress's WithDecoderConcurrency(2) and
// WithDecoderLowmem(false)) instead of on the caller's goroutine with a
// history buffer of the window plus 1 MiB, which moves the window down
// each time that megabyte fills. For one bundle read while a core is
// idle: it took a third off verifying a 60 MiB bundle (DESIGN.md "Large
// bundles") for up to 8 MiB more memory. Not for many bundles read at
// once, whose readers already fill the cores (verify.Each): there it
// costs CPU. Such a decoder is made for one Read and closed after it.
func DecodeAhead() ReadOption {
	return func(c *readConfig) { c.decodeAhead = true }
}

// OnFile has Read give f each evidence file as soon as it is read and
// hashed, on Read's goroutine, before it reads on: a caller can start
// work on a file while the rest of the archive is still being
// decompressed (verify reads a large stage output for the run model so).
// f must not change data and should not keep Read waiting; a file given
// to f may still be refused later with the whole archive, so what f
// starts is speculative until Read returns the Archive.
func OnFile(f func(path string, data []byte)) ReadOption {
	return func(c *readConfig) { c.onFile = f }
}
