// Package rawtar writes tar header blocks byte by byte: the headers
// archive/tar would not write (a name field with bytes after its NUL, a
// PAX path beside another ustar name, old magic, a base-256 size), which
// the reader's tests and the archive-name test vectors feed to the bundle
// reader and to other tar readers (SPEC.md "Reader limits and
// refusals"). Mode is 0644, uid, gid and mtime 0, uname and gname empty.
package rawtar

import (
	"bytes"
	"fmt"
)

// BlockSize is the size of a tar block.
const BlockSize = 512

// Header is one raw ustar header block.
type Header struct {
	Name, Prefix string
	Typeflag     byte
	Size         int64
	// Magic is the magic and version fields; "" is POSIX ustar
	// ("ustar\x0000").
	Magic string
	// SizeField, when set, is the raw size field in place of Size.
	SizeField []byte
	// NameField, when set, is the raw name field in place of Name.
	NameField []byte
}

// Block returns the 512-byte header block, its checksum computed.
func (h Header) Block() []byte {
	b := make([]byte, BlockSize)
	if h.NameField != nil {
		copy(b[0:100], h.NameField)
	} else {
		copy(b[0:100], h.Name)
	}
	copy(b[100:108], "0000644\x00")
	copy(b[108:116], "0000000\x00")
	copy(b[116:124], "0000000\x00")
	if h.SizeField != nil {
		copy(b[124:136], h.SizeField)
	} else {
		copy(b[124:136], fmt.Sprintf("%011o\x00", h.Size))
	}
	copy(b[136:148], "00000000000\x00")
	b[156] = h.Typeflag
	magic := h.Magic
	if magic == "" {
		magic = "ustar\x0000"
	}
	copy(b[257:265], magic)
	copy(b[345:500], h.Prefix)
	copy(b[148:156], "        ")
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

// PAXRecords encodes PAX extended header records, each key=value with
// its length prefix, in the order given (a key may repeat).
func PAXRecords(recs ...[2]string) []byte {
	var b bytes.Buffer
	for _, r := range recs {
		body := " " + r[0] + "=" + r[1] + "\n"
		n := len(body) + 1
		for len(fmt.Sprint(n))+len(body) != n {
			n = len(fmt.Sprint(n)) + len(body)
		}
		fmt.Fprintf(&b, "%d%s", n, body)
	}
	return b.Bytes()
}

// PAXHeader is a PAX 'x' header block named PaxHeaders/x followed by
// its records, padded to whole blocks.
func PAXHeader(recs ...[2]string) []byte {
	d := PAXRecords(recs...)
	return append(Header{Name: "PaxHeaders/x", Typeflag: 'x', Size: int64(len(d))}.Block(), Pad(d)...)
}

// Pad appends zero bytes to b up to a whole number of blocks.
func Pad(b []byte) []byte {
	return append(b, make([]byte, (BlockSize-len(b)%BlockSize)%BlockSize)...)
}
