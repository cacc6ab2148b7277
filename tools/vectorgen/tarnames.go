package main

import (
	"bytes"
	"fmt"
)

// The archive-name vectors: bundles whose tar entry names could depend on
// which tar reader reads them (SPEC.md "Consumers", the bundle archive).
// Each is the pass bundle with one entry's header blocks rewritten by
// hand; the reader refuses each as archive-unsafe.

// header builds one POSIX ustar header block (typeflag, name field bytes,
// size) with its checksum.
func header(typeflag byte, nameField []byte, size int) []byte {
	b := make([]byte, 512)
	copy(b[0:100], nameField)
	copy(b[100:108], "0000644\x00")
	copy(b[108:116], "0000000\x00")
	copy(b[116:124], "0000000\x00")
	copy(b[124:136], fmt.Sprintf("%011o\x00", size))
	copy(b[136:148], "00000000000\x00")
	b[156] = typeflag
	copy(b[257:265], "ustar\x0000")
	copy(b[148:156], "        ")
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

// paxHeader is a PAX 'x' header block with its records, padded.
func paxHeader(recs ...[2]string) []byte {
	var d bytes.Buffer
	for _, r := range recs {
		body := " " + r[0] + "=" + r[1] + "\n"
		n := len(body) + 1
		for len(fmt.Sprint(n))+len(body) != n {
			n = len(fmt.Sprint(n)) + len(body)
		}
		fmt.Fprintf(&d, "%d%s", n, body)
	}
	out := header('x', []byte("PaxHeaders/x"), d.Len())
	data := d.Bytes()
	return append(append(out, data...), make([]byte, (512-len(data)%512)%512)...)
}

// spliceHeader replaces the single ustar header block of the regular
// entry named name in the tar stream tb by blocks.
func spliceHeader(tb []byte, name string, blocks []byte) ([]byte, error) {
	for off := 0; off+512 <= len(tb); off += 512 {
		b := tb[off : off+512]
		n := b[0:100]
		if i := bytes.IndexByte(n, 0); i >= 0 {
			n = n[:i]
		}
		if b[156] == '0' && string(n) == name && string(b[257:263]) == "ustar\x00" {
			out := append([]byte(nil), tb[:off]...)
			out = append(out, blocks...)
			return append(out, tb[off+512:]...), nil
		}
	}
	return nil, fmt.Errorf("no ustar header for %q", name)
}

func (g *gen) brokenNames() error {
	stdout := g.pass.m.Repetitions[0].Stages[0].Evidence["stdout"]
	stderr := g.pass.m.Repetitions[0].Stages[0].Evidence["stderr"]
	size := len(g.pass.files[stdout])
	cases := []struct {
		name, desc string
		make       func() ([]byte, error)
	}{
		{"tar_pax_path_ustar_name_differ", "repetition 1's T1 stdout is named by a PAX path record, while its ustar name field says its stderr's path: a reader without PAX support reads the other name", func() ([]byte, error) {
			tb, err := rawTar(entriesOf(g.pass))
			if err != nil {
				return nil, err
			}
			return spliceHeaderArchive(tb, stdout, append(paxHeader([2]string{"path", stdout}), header('0', []byte(stderr), size)...))
		}},
		{"tar_pax_path_twice", "repetition 1's T1 stdout has two PAX path records, its own and its stderr's: archive/tar and GNU tar keep the last, a reader may keep the first", func() ([]byte, error) {
			tb, err := rawTar(entriesOf(g.pass))
			if err != nil {
				return nil, err
			}
			return spliceHeaderArchive(tb, stdout, append(paxHeader([2]string{"path", stderr}, [2]string{"path", stdout}), header('0', []byte(stdout), size)...))
		}},
		{"tar_name_after_nul", "repetition 1's T1 stdout's name field holds more bytes after its terminating NUL", func() ([]byte, error) {
			tb, err := rawTar(entriesOf(g.pass))
			if err != nil {
				return nil, err
			}
			f := append(append([]byte(stdout), 0), "../../evil"...)
			return spliceHeaderArchive(tb, stdout, header('0', f, size))
		}},
		{"tar_case_fold_duplicate", "an entry repetitions/1/t1/stdout beside repetitions/1/T1/stdout: two names for tar readers, one file on a case-insensitive file system", func() ([]byte, error) {
			return rawArchive(append(entriesOf(g.pass), rawEntry{name: "repetitions/1/t1/stdout", data: []byte("+ hello-dsh-plugin 1.0.0\n")}))
		}},
	}
	for _, c := range cases {
		archive, err := c.make()
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if err := g.emitRaw(c.name, "broken: "+c.desc, archive, "tampered", []string{"archive-unsafe"}, ""); err != nil {
			return err
		}
	}
	return nil
}

func spliceHeaderArchive(tb []byte, name string, blocks []byte) ([]byte, error) {
	out, err := spliceHeader(tb, name, blocks)
	if err != nil {
		return nil, err
	}
	return compressTar(out)
}
