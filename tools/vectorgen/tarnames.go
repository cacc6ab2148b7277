package main

import (
	"bytes"
	"fmt"

	"github.com/dshaudit/dshaudit/internal/rawtar"
)

// The archive-name vectors: bundles whose tar entry names could depend on
// which tar reader reads them (SPEC.md "Consumers", the bundle archive).
// Each is the pass bundle with one entry's header blocks rewritten by
// hand (package rawtar); the reader refuses each as archive-unsafe.

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
			return spliceHeaderArchive(tb, stdout, append(rawtar.PAXHeader([2]string{"path", stdout}), rawtar.Header{Name: stderr, Typeflag: '0', Size: int64(size)}.Block()...))
		}},
		{"tar_pax_path_twice", "repetition 1's T1 stdout has two PAX path records, its own and its stderr's: archive/tar and GNU tar keep the last, a reader may keep the first", func() ([]byte, error) {
			tb, err := rawTar(entriesOf(g.pass))
			if err != nil {
				return nil, err
			}
			return spliceHeaderArchive(tb, stdout, append(rawtar.PAXHeader([2]string{"path", stderr}, [2]string{"path", stdout}), rawtar.Header{Name: stdout, Typeflag: '0', Size: int64(size)}.Block()...))
		}},
		{"tar_name_after_nul", "repetition 1's T1 stdout's name field holds more bytes after its terminating NUL", func() ([]byte, error) {
			tb, err := rawTar(entriesOf(g.pass))
			if err != nil {
				return nil, err
			}
			f := append(append([]byte(stdout), 0), "../../evil"...)
			return spliceHeaderArchive(tb, stdout, rawtar.Header{NameField: f, Typeflag: '0', Size: int64(size)}.Block())
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
