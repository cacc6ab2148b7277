package bundle

import (
	"archive/tar"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	"github.com/klauspost/compress/zstd"

	"github.com/dshaudit/dshaudit/manifest"
)

// Archive is a bundle read into memory by Read: the raw bytes of every
// entry, unparsed. The manifest and signature are kept as raw bytes
// because those bytes, not a re-encoding, are what was signed.
type Archive struct {
	// RawManifest is manifest.json exactly as stored.
	RawManifest []byte
	// RawSignature is signature.sigstore.json exactly as stored, or nil
	// when the bundle has no signature entry.
	RawSignature []byte
	// Files maps each evidence path to its content.
	Files map[string][]byte
	// Order lists the evidence paths in archive order (ascending).
	Order []string
	// sums holds the sha256 of each evidence file, computed while it was
	// decompressed (nil for an Archive not made by Read).
	sums map[string]fileSum
}

// fileSum is the sha256 of the bytes data held when Read returned; a
// caller who replaces Files[path] gets its new content hashed afresh.
type fileSum struct {
	data []byte
	sum  [sha256.Size]byte
}

// KnownSum returns the digest Read computed for data at path, if data is
// still the slice Read made (the same start and length: the same bytes).
func (a *Archive) KnownSum(path string, data []byte) ([sha256.Size]byte, bool) {
	fs, ok := a.sums[path]
	if !ok || len(fs.data) != len(data) || (len(data) > 0 && &fs.data[0] != &data[0]) {
		return [sha256.Size]byte{}, false
	}
	return fs.sum, true
}

// Read reads a bundle from r, treating it as hostile (SPEC.md "Reader
// limits and refusals"): the compressed input, the zstd window, the
// decompressed stream, the entry count, each entry's size and the total
// are bounded by lim before anything is allocated for them, and every
// entry that is not a regular file with a safe, unique name in the
// bundle order is refused. Errors wrap the sentinel of their class and
// quote the entry name. Read does not compare files with the manifest;
// call manifest.Decode and CompareFiles for that. Options change how Read
// works, never what it accepts or which refusal it reports.
func Read(r io.Reader, lim Limits, opts ...ReadOption) (*Archive, error) {
	if err := lim.validate(); err != nil {
		return nil, err
	}
	var cfg readConfig
	for _, o := range opts {
		o(&cfg)
	}
	// The input is read once, in step with the decoder: the frame is
	// checked as it goes by, never held whole in memory.
	fr := newFrameReader(r, lim)
	if err := fr.readHeader(); err != nil {
		return nil, err
	}
	dec, err := getDecoder(fr, lim, cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	a, err := readStream(dec, lim, cfg.onFile)
	// Once the decoder is given back, nothing reads fr any more (a
	// decoder that decodes ahead has stopped): what fr found can be read.
	putDecoder(dec, lim, cfg)
	if err != nil {
		// The frame's structure is checked to its end whatever the tar
		// stream held, so that the refusal reported does not depend on
		// how far the decoder read ahead of the tar reader.
		fr.skipRest()
		return nil, fr.prefer(err)
	}
	if err := fr.finish(); err != nil {
		return nil, err
	}
	return a, nil
}

// readStream reads the decompressed stream: the tar archive, then the
// stream to its end, which is what makes the decoder verify the frame's
// content checksum; anything after the tar end-of-archive marker is
// refused. A frame whose content does not decode is refused as such even
// when the tar reader failed first, on what came before (SPEC.md
// "Streaming read"): the decoder on one goroutine withholds the last
// block when the checksum fails, and the one of DecodeAhead passes it on,
// so the tar reader may fail on the garbage of one and not of the other.
func readStream(dec io.Reader, lim Limits, onFile func(string, []byte)) (*Archive, error) {
	stream := &capReader{r: decoderErrors{dec}, left: tarStreamLimit(lim)}
	a, err := readTar(stream, lim, onFile)
	if err == nil {
		var one [1]byte
		switch k, rerr := io.ReadFull(stream, one[:]); {
		case k > 0:
			err = fmt.Errorf("%w: data after the tar end-of-archive marker", ErrTrailingData)
		case !errors.Is(rerr, io.EOF):
			err = streamError("after the tar end-of-archive marker", rerr)
		}
	}
	if err == nil {
		return a, nil
	}
	if !undecodable(err) {
		if _, derr := io.Copy(io.Discard, stream); undecodable(derr) {
			err = streamError("", derr)
		}
	}
	return nil, err
}

// tarStreamLimit bounds the decompressed tar stream: the entry data limit
// plus, per entry, a header block, a PAX header block with a path record
// and its padding, and data padding; plus the end-of-archive marker.
func tarStreamLimit(lim Limits) int64 {
	perEntry := int64(3*512) + roundBlock(int64(lim.MaxPathLen)+32)
	overhead := int64(lim.MaxEntries) * perEntry
	if overhead/perEntry != int64(lim.MaxEntries) || lim.MaxTotal > math.MaxInt64-overhead-2*512 {
		return math.MaxInt64 // limits so large that the other checks bind first
	}
	return lim.MaxTotal + overhead + 2*512
}

func roundBlock(n int64) int64 { return (n + 511) &^ 511 }

// typicalFiles is the room readTar's maps start with: a bundle of three
// repetitions holds about 35 files (the pass vector 35), and a map grown entry by entry to
// that size is rehashed several times (5 % of BenchmarkVerifyMany's CPU
// was map growth, issue 48).
const typicalFiles = 64

func readTar(stream io.Reader, lim Limits, onFile func(string, []byte)) (*Archive, error) {
	a := &Archive{Files: make(map[string][]byte, typicalFiles), sums: make(map[string]fileSum, typicalFiles)}
	h := sha256.New()
	pos := &countReader{r: stream}
	tr := tar.NewReader(pos)
	// end is the stream offset where the last entry's padded data ends,
	// where the next header or the end-of-archive marker starts.
	var end int64
	seen := manifest.NewPathSetSize(typicalFiles)
	folded := make(foldSet, typicalFiles)
	var total int64
	prev := ""
	for count := 1; ; count++ {
		start := pos.n
		pos.capture = &rawHeaders{on: true, buf: pos.captureBuf()}
		hdr, err := tr.Next()
		raw := pos.capture.buf
		pos.capture.on = false
		if errors.Is(err, io.EOF) {
			// archive/tar also reports EOF for a stream that just stops,
			// or stops after one zero block. The writer always writes
			// the two zero blocks; exactly those must have been read.
			if pos.n != end+2*512 {
				return nil, fmt.Errorf("%w: tar stream ends at offset %d without the two-block end-of-archive marker", ErrCorrupt, pos.n)
			}
			break
		}
		if err != nil {
			return nil, streamError(fmt.Sprintf("tar header of entry %d", count), err)
		}
		if count > lim.MaxEntries {
			return nil, fmt.Errorf("%w: entry %d %q, limit %d", ErrTooManyEntries, count, hdr.Name, lim.MaxEntries)
		}
		if err := checkEntryHeader(hdr, lim); err != nil {
			return nil, fmt.Errorf("entry %d: %w", count, err)
		}
		if err := checkRawName(raw, int(end-start), hdr.Name); err != nil {
			return nil, fmt.Errorf("entry %d: %w", count, err)
		}
		name := hdr.Name
		if hdr.Size > lim.MaxEntrySize {
			return nil, fmt.Errorf("%w: %q is %d bytes, limit %d", ErrEntryTooLarge, name, hdr.Size, lim.MaxEntrySize)
		}
		if name == manifest.Path && hdr.Size > manifest.MaxSize {
			return nil, fmt.Errorf("%w: %q is %d bytes, limit %d", manifest.ErrTooLarge, name, hdr.Size, manifest.MaxSize)
		}
		if hdr.Size > lim.MaxTotal-total {
			return nil, fmt.Errorf("%w: entry %q brings the total above %d bytes", ErrTooLarge, name, lim.MaxTotal)
		}
		total += hdr.Size
		if err := seen.Add(name); err != nil {
			return nil, fmt.Errorf("entry %d: %w", count, err)
		}
		if err := folded.add(name); err != nil {
			return nil, fmt.Errorf("entry %d: %w", count, err)
		}
		switch {
		case count == 1 && name != manifest.Path:
			return nil, fmt.Errorf("%w: first entry is %q, want %q", ErrLayout, name, manifest.Path)
		case name == manifest.SignaturePath && count != 2:
			return nil, fmt.Errorf("%w: %q is entry %d, want entry 2", ErrLayout, name, count)
		case name != manifest.Path && name != manifest.SignaturePath:
			if prev != "" && name <= prev {
				return nil, fmt.Errorf("%w: %q comes after %q; evidence entries must be in ascending path order", ErrLayout, name, prev)
			}
			prev = name
		}
		// hdr.Size is within every limit, so allocating it is too.
		// Each file is hashed as it is decompressed, while it is in cache.
		data := newFileBuffer(hdr.Size)
		h.Reset()
		if _, err := io.ReadFull(io.TeeReader(tr, h), data); err != nil {
			return nil, streamError(fmt.Sprintf("data of %q", name), err)
		}
		end = pos.n + roundBlock(hdr.Size) - hdr.Size
		switch name {
		case manifest.Path:
			a.RawManifest = data
		case manifest.SignaturePath:
			a.RawSignature = data
		default:
			a.Files[name] = data
			a.sums[name] = fileSum{data, [sha256.Size]byte(h.Sum(nil))}
			a.Order = append(a.Order, name)
			if onFile != nil {
				onFile(name, data)
			}
		}
	}
	if a.RawManifest == nil {
		return nil, fmt.Errorf("%w: no %q entry", ErrLayout, manifest.Path)
	}
	return a, nil
}

// checkEntryHeader refuses everything but a regular file with a valid name,
// in ustar or PAX format, whose only PAX record is "path".
func checkEntryHeader(hdr *tar.Header, lim Limits) error {
	name := hdr.Name
	if err := manifest.ValidPath(name, lim.MaxPathLen); err != nil {
		return err
	}
	if err := printableName(name); err != nil {
		return err
	}
	switch hdr.Typeflag {
	case tar.TypeReg:
	case tar.TypeSymlink:
		return fmt.Errorf("%w: %q is a symbolic link to %q", ErrLink, name, hdr.Linkname)
	case tar.TypeLink:
		return fmt.Errorf("%w: %q is a hard link to %q", ErrLink, name, hdr.Linkname)
	case tar.TypeChar, tar.TypeBlock:
		return fmt.Errorf("%w: %q is a device (type %q)", ErrDevice, name, hdr.Typeflag)
	case tar.TypeDir:
		return fmt.Errorf("%w: %q is a directory; bundles hold no directory entries", ErrNotRegular, name)
	default:
		return fmt.Errorf("%w: %q has type %q", ErrNotRegular, name, hdr.Typeflag)
	}
	if hdr.Format != tar.FormatUSTAR && hdr.Format != tar.FormatPAX {
		return fmt.Errorf("%w: %q is in tar format %v, want ustar or PAX", ErrUnsupportedHeader, name, hdr.Format)
	}
	for k := range hdr.PAXRecords {
		if k == "path" {
			continue
		}
		// The first such record in order is named, not the map's pick.
		for _, k := range slices.Sorted(maps.Keys(hdr.PAXRecords)) {
			if k != "path" {
				return fmt.Errorf("%w: %q has PAX record %q", ErrUnsupportedHeader, name, k)
			}
		}
	}
	if hdr.Linkname != "" {
		return fmt.Errorf("%w: regular file %q has a link name %q", ErrUnsupportedHeader, name, hdr.Linkname)
	}
	if hdr.Size < 0 {
		return fmt.Errorf("%w: %q has negative size %d", ErrCorrupt, name, hdr.Size)
	}
	return nil
}

// streamError classifies an error from the decompressed stream: a limit
// hit keeps its class, anything else (truncation, tar or zstd structure,
// a block that does not decode, checksum) is ErrCorrupt. Where in the
// stream it happened is said unless the decoder said it.
func streamError(where string, err error) error {
	switch {
	case errors.Is(err, ErrTooLarge):
		return fmt.Errorf("%s: %w", where, err)
	case undecodable(err):
		// Not where the tar reader was: a decoder that decodes ahead
		// reports these a read later or sooner.
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	case errors.Is(err, io.EOF):
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w: %s: %w", ErrCorrupt, where, err)
}

// What the reader says of a frame whose content the decoder cannot
// decode (SPEC.md "Streaming read").
var (
	errBlockUndecodable = errors.New("a zstd block does not decode")
	errChecksumMismatch = errors.New("the zstd content checksum does not match")
	errContentSize      = errors.New("the zstd frame does not decode to the content size it declares")
)

// undecodable says err is the decoder's: content that does not decode.
func undecodable(err error) bool {
	return errors.Is(err, errBlockUndecodable) || errors.Is(err, errChecksumMismatch) || errors.Is(err, errContentSize)
}

// decoderErrors passes on what the zstd decoder decodes and replaces what
// it says of content it cannot decode by one of the three errors above:
// how a decoder words a bad block depends on how it runs (on one
// goroutine or ahead, DecodeAhead: "match offset bigger than current
// history" from one, "unexpected literal count" from the other, for the
// same bytes) and on its version, and a verification's findings must
// not. Window and dictionary refusals are the frame header's, checked
// before the decoder sees it (frameReader.readHeader), so from the
// decoder they too mean content that does not decode.
type decoderErrors struct{ r io.Reader }

func (d decoderErrors) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	switch {
	case err == nil, err == io.EOF:
	case errors.Is(err, zstd.ErrCRCMismatch):
		err = errChecksumMismatch
	case errors.Is(err, zstd.ErrFrameSizeMismatch), errors.Is(err, zstd.ErrFrameSizeExceeded):
		err = errContentSize
	default:
		err = errBlockUndecodable
	}
	return n, err
}

// countReader counts the bytes read through it, and keeps them while
// capture is on (the header blocks of one entry, for checkRawName).
type countReader struct {
	r       io.Reader
	n       int64
	capture *rawHeaders
	spare   []byte
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.capture != nil && c.capture.on {
		if len(c.capture.buf)+n > maxPAXCapture {
			return n, fmt.Errorf("%w: more than %d bytes of header blocks for one entry", ErrUnsupportedHeader, maxPAXCapture)
		}
		c.capture.buf = append(c.capture.buf, p[:n]...)
		c.spare = c.capture.buf
	}
	return n, err
}

// captureBuf hands back the buffer of the previous capture, emptied.
func (c *countReader) captureBuf() []byte { return c.spare[:0] }

// capReader reads at most left bytes from r and then fails with
// ErrTooLarge instead of reporting EOF, so a stream cut at the limit is
// not mistaken for a complete one.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// Probe one byte: a stream that ends exactly at the limit is fine.
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("%w: decompressed stream exceeds its limit", ErrTooLarge)
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
