package bundle_test

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/internal/rawtar"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"github.com/dshaudit/dshaudit/manifest"
)

const tarBlock = rawtar.BlockSize

// The tar differential test: archives of generated and mutated entry
// headers are read by this package's reader (readTar) and listed by GNU
// tar and bsdtar (Debian's libarchive-tools, installed by scripts/setup.sh).
// Whenever the reader accepts an archive, both tools must list exactly its
// entry names, in order, without a warning; the archives the reader
// refuses are counted, not compared. A long soak:
//
//	DSHAUDIT_E2E=1 go test ./bundle/ -run TarNamesDifferential -tarnames.n 200000 -tarnames.seed $RANDOM
var (
	tarDiffN    = flag.Int("tarnames.n", 4000, "archives the tar name differential test generates")
	tarDiffSeed = flag.Int64("tarnames.seed", 1, "seed of the tar name differential test")
)

var tarNamePool = []string{
	"a", "b", "z/y", "repetitions/1/T1/stdout", "static/patch.yml", "A", "B",
	"./a", "a/", "a//b", "../a", "/a", "a/./b", "a/..", "a\\b", "a\x00b", "\xffa", "a b", " a", "a ",
	"é", "e\u0301", "ß", "SS", "ss", "K", "\u212a", "k", "ǅ", "ǆ", "\u200ba", "\ufeffa", "a\u00ad", "\u0130",
	"x/" + strings.Repeat("n", 99), strings.Repeat("l", 100), strings.Repeat("m", 101), "p/" + strings.Repeat("q", 140) + "/r",
	strings.Repeat("d/", 60) + "f", "\ue000", "a\u2028b", "a\u0085b", "\U0001F600", "a:b", "a*b", "a?b", "\u202ea",
}

// validNamePool are names every reader takes; most entries use one, so
// that enough archives are accepted to compare.
var validNamePool = []string{
	"a", "b", "c/d", "repetitions/1/T1/stdout", "repetitions/2/T4/merged", "static/patch.yml", "Z", "é", "ké/x", "a b", "a:b",
	"x/" + strings.Repeat("n", 99), strings.Repeat("l", 100), strings.Repeat("m", 101), "p/" + strings.Repeat("q", 140) + "/r", strings.Repeat("d/", 60) + "f",
	"😀", "日本/語",
}

// genEntry writes one entry's header blocks and data for intended name n
// in a random encoding, and says whether it is an ordinary one.
func genEntry(r *rand.Rand, n string, data []byte) []byte {
	var out []byte
	body := rawtar.Pad(append([]byte(nil), data...))
	switch r.Intn(16) {
	case 0, 1, 2, 12, 13, 14, 15: // archive/tar's own choice of format
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		f := []tar.Format{tar.FormatUnknown, tar.FormatUSTAR, tar.FormatPAX, tar.FormatGNU}[r.Intn(4)]
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: n, Size: int64(len(data)), Mode: 0o644, Format: f}); err != nil {
			return nil
		}
		tw.Write(data)
		tw.Flush()
		return b.Bytes()
	case 3, 4: // ustar, split into prefix and name somewhere
		prefix, name := "", n
		if i := strings.LastIndexByte(n, '/'); len(n) > 100 && i > 0 || r.Intn(4) == 0 && i > 0 {
			prefix, name = n[:i], n[i+1:]
		}
		if r.Intn(6) == 0 && len(n) > 2 { // split not at a slash
			k := 1 + r.Intn(len(n)-1)
			prefix, name = n[:k], n[k:]
		}
		out = rawtar.Header{Name: name, Prefix: prefix, Typeflag: '0', Size: int64(len(data))}.Block()
	case 5, 6: // PAX path beside a ustar name of any kind
		ustarName := n
		switch r.Intn(4) {
		case 0:
			ustarName = pick(r, tarNamePool)
		case 1:
			if len(n) > 100 {
				ustarName = n[:100]
			}
		case 2:
			ustarName = ""
		}
		recs := [][2]string{{"path", n}}
		switch r.Intn(6) {
		case 0:
			recs = append(recs, [2]string{"path", pick(r, tarNamePool)})
		case 1:
			recs = append(recs, [2]string{pick(r, []string{"linkpath", "size", "mtime", "GNU.sparse.name", "SCHILY.xattr.a", "comment", "uname"}), "1"})
		case 2:
			recs = [][2]string{{"path", ""}}
		}
		pd := rawtar.PAXRecords(recs...)
		out = append(out, rawtar.Header{Name: "PaxHeaders/x", Typeflag: 'x', Size: int64(len(pd))}.Block()...)
		out = append(out, rawtar.Pad(pd)...)
		u := rawtar.Header{Name: ustarName, Typeflag: '0', Size: int64(len(data))}
		if len(ustarName) > 100 {
			u.Name = ustarName[:100]
		}
		out = append(out, u.Block()...)
	case 7: // GNU long name
		ln := append([]byte(n), 0)
		out = append(out, rawtar.Header{Name: "././@LongLink", Typeflag: 'L', Size: int64(len(ln)), Magic: "ustar  \x00"}.Block()...)
		out = append(out, rawtar.Pad(ln)...)
		short := n
		if r.Intn(2) == 0 {
			short = pick(r, tarNamePool)
		}
		if len(short) > 100 {
			short = short[:100]
		}
		out = append(out, rawtar.Header{Name: short, Typeflag: '0', Size: int64(len(data)), Magic: "ustar  \x00"}.Block()...)
	case 8: // junk after the name's NUL
		f := make([]byte, 100)
		copy(f, n)
		if len(n) < 98 {
			copy(f[len(n)+1:], pick(r, tarNamePool))
		}
		out = rawtar.Header{NameField: f, Typeflag: '0', Size: int64(len(data))}.Block()
	case 9: // other type flags
		out = rawtar.Header{Name: n, Typeflag: pick(r, []string{"\x00", "7", "1", "2", "5", "g", "S"})[0], Size: int64(len(data))}.Block()
	case 10: // base-256 or odd size fields
		sf := make([]byte, 12)
		switch r.Intn(3) {
		case 0:
			sf[0] = 0x80
			sf[11] = byte(len(data))
		case 1:
			copy(sf, fmt.Sprintf("%11o ", len(data)))
		case 2:
			copy(sf, fmt.Sprintf(" %10o\x00", len(data)))
		}
		out = rawtar.Header{Name: n, Typeflag: '0', SizeField: sf, Size: int64(len(data))}.Block()
	default: // old GNU or v7 magic
		out = rawtar.Header{Name: n, Typeflag: '0', Size: int64(len(data)), Magic: pick(r, []string{"ustar  \x00", "\x00\x00\x00\x00\x00\x00\x00\x00", "ustar\x00  "})}.Block()
	}
	return append(out, body...)
}

func pick[T any](r *rand.Rand, p []T) T { return p[r.Intn(len(p))] }

// genArchive writes manifest.json and one to four further entries, their
// intended names in ascending order, then the end-of-archive marker.
func genArchive(r *rand.Rand) []byte {
	var names []string
	for n := 1 + r.Intn(4); n > 0; n-- {
		if r.Intn(4) == 0 {
			names = append(names, pick(r, tarNamePool))
		} else {
			names = append(names, pick(r, validNamePool))
		}
	}
	sort.Strings(names)
	if r.Intn(8) != 0 {
		names = slices.Compact(names)
	}
	out := rawtar.Header{Name: manifest.Path, Typeflag: '0', Size: 2}.Block()
	out = append(out, rawtar.Pad([]byte("{}"))...)
	for _, n := range names {
		out = append(out, genEntry(r, n, []byte(n))...)
	}
	return append(out, make([]byte, 2*tarBlock)...)
}

// listTar lists an archive with one tool; ok false with the reason when
// it exits non-zero or warns.
func listTar(t *testing.T, tool string, archive []byte) ([]string, string) {
	args := []string{"-tf", "-"}
	if tool == "tar" {
		args = []string{"--list", "--quoting-style=literal", "-f", "-"}
	}
	cmd := exec.Command(tool, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	cmd.Stdin = bytes.NewReader(archive)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		return nil, fmt.Sprintf("%v: %s", err, stderr.String())
	}
	return strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n"), ""
}

func TestTarNamesDifferential(t *testing.T) {
	e2etest.Require(t, "tar", "bsdtar")
	if out, err := exec.Command("tar", "--version").Output(); err != nil || !bytes.Contains(out, []byte("GNU tar")) {
		t.Fatalf("tar is not GNU tar: %v %s", err, out)
	}
	r := rand.New(rand.NewSource(*tarDiffSeed))
	archives := make([][]byte, *tarDiffN)
	for i := range archives {
		archives[i] = genArchive(r)
	}
	lim := bundle.DefaultLimits()
	type outcome struct{ accepted, refused, disagree int }
	var mu sync.Mutex
	var o outcome
	var failures []string
	why := map[string]int{}
	const maxRefusedListed = 600
	var toolsWarn, toolsDiffer, toolsAgree int
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, ar := range archives {
		a, err := bundle.ReadTar(bytes.NewReader(ar), lim)
		if err != nil {
			o.refused++
			why[refusalClass(err)]++
			if o.refused <= maxRefusedListed {
				// Informative: do the two tools agree with each other on
				// what dshaudit refused?
				wg.Add(1)
				sem <- struct{}{}
				go func(ar []byte) {
					defer func() { <-sem; wg.Done() }()
					g, gw := listTar(t, "tar", ar)
					b, bw := listTar(t, "bsdtar", ar)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case gw != "" || bw != "":
						toolsWarn++
					case strings.Join(g, "\n") != strings.Join(b, "\n"):
						toolsDiffer++
					default:
						toolsAgree++
					}
				}(ar)
			}
			continue
		}
		want := append([]string{manifest.Path}, a.Order...)
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, ar []byte) {
			defer func() { <-sem; wg.Done() }()
			var bad []string
			for _, tool := range []string{"tar", "bsdtar"} {
				got, why := listTar(t, tool, ar)
				if why != "" {
					bad = append(bad, fmt.Sprintf("%s refuses or warns: %s", tool, why))
				} else if strings.Join(got, "\n") != strings.Join(want, "\n") {
					bad = append(bad, fmt.Sprintf("%s lists %+q", tool, got))
				}
			}
			mu.Lock()
			defer mu.Unlock()
			o.accepted++
			if len(bad) > 0 {
				o.disagree++
				if len(failures) < 10 {
					failures = append(failures, fmt.Sprintf("archive %d: dshaudit reads %+q; %s", i, want, strings.Join(bad, "; ")))
				}
			}
		}(i, ar)
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	t.Logf("tar names (seed %d): %d archives, %d read by dshaudit and compared with GNU tar and bsdtar, %d refused by dshaudit, %d disagreements", *tarDiffSeed, len(archives), o.accepted, o.refused, o.disagree)
	t.Logf("refusals by class: %v", why)
	t.Logf("of the first %d refused archives, GNU tar and bsdtar: %d warn or fail on them, %d list different names, %d list the same names", min(o.refused, maxRefusedListed), toolsWarn, toolsDiffer, toolsAgree)
	if o.accepted < len(archives)/10 {
		t.Errorf("only %d of %d archives were accepted: too few to compare", o.accepted, len(archives))
	}
}

// refusalClass names the sentinel a refusal wraps, for the test's tally.
func refusalClass(err error) string {
	for _, e := range []error{bundle.ErrNameAmbiguous, bundle.ErrUnsupportedHeader, manifest.ErrPathInvalid, manifest.ErrPathEscape, manifest.ErrDuplicate, manifest.ErrPathConflict, bundle.ErrLayout, bundle.ErrLink, bundle.ErrNotRegular, bundle.ErrCorrupt} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	return "other"
}

// archiveOf is manifest.json, then the given raw entry blocks, then the
// end-of-archive marker.
func archiveOf(entries ...[]byte) []byte {
	out := rawtar.Header{Name: manifest.Path, Typeflag: '0', Size: 2}.Block()
	out = append(out, rawtar.Pad([]byte("{}"))...)
	for _, e := range entries {
		out = append(out, e...)
	}
	return append(out, make([]byte, 2*tarBlock)...)
}

func goEntry(t *testing.T, name string, f tar.Format) []byte {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: 1, Mode: 0o644, Format: f}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte("x"))
	tw.Flush()
	return b.Bytes()
}

// Each way an entry's name could depend on the reader is refused, with
// ErrNameAmbiguous or the class named; what archive/tar writes itself,
// ustar or PAX, is read. SPEC.md "Reader limits and refusals".
func TestTarNamesDirected(t *testing.T) {
	long := "p/" + strings.Repeat("q", 140) + "/r"
	data := rawtar.Pad([]byte("x"))
	pax := func(recs [][2]string, ustarName string) []byte {
		pd := rawtar.PAXRecords(recs...)
		out := rawtar.Header{Name: "PaxHeaders/x", Typeflag: 'x', Size: int64(len(pd))}.Block()
		out = append(out, rawtar.Pad(pd)...)
		return append(append(out, rawtar.Header{Name: ustarName, Typeflag: '0', Size: 1}.Block()...), data...)
	}
	nameField := make([]byte, 100)
	copy(nameField, "a\x00b")
	for _, tc := range []struct {
		name  string
		entry []byte
		want  error // nil: read
	}{
		{"go ustar", goEntry(t, "repetitions/1/T1/stdout", tar.FormatUSTAR), nil},
		{"go ustar with prefix", goEntry(t, strings.Repeat("d/", 60)+"f", tar.FormatUnknown), nil},
		{"go pax long name", goEntry(t, long, tar.FormatPAX), nil},
		// archive/tar drops the non-ASCII bytes from the ustar name it
		// writes beside the PAX path; that form is accepted, any other not.
		{"go pax non-ascii", goEntry(t, "日本/語", tar.FormatUnknown), nil},
		{"pax non-ascii, ustar name another", pax([][2]string{{"path", "日本/語"}}, "x/y"), bundle.ErrNameAmbiguous},
		{"raw utf-8 ustar name", append(rawtar.Header{Name: "日本/語", Typeflag: '0', Size: 1}.Block(), data...), bundle.ErrUnsupportedHeader},
		{"go gnu long name", goEntry(t, long, tar.FormatGNU), bundle.ErrUnsupportedHeader},
		{"pax path, ustar name the same", pax([][2]string{{"path", "a"}}, "a"), nil},
		{"pax path, ustar name another", pax([][2]string{{"path", "a"}}, "b"), bundle.ErrNameAmbiguous},
		{"pax path, ustar name empty", pax([][2]string{{"path", "a"}}, ""), bundle.ErrNameAmbiguous},
		{"pax path twice", pax([][2]string{{"path", "b"}, {"path", "a"}}, "a"), bundle.ErrNameAmbiguous},
		{"pax path and comment", pax([][2]string{{"path", "a"}, {"comment", "x"}}, "a"), bundle.ErrUnsupportedHeader},
		{"bytes after the name's NUL", append(rawtar.Header{NameField: nameField, Typeflag: '0', Size: 1}.Block(), data...), bundle.ErrNameAmbiguous},
		{"old-style regular typeflag", append(rawtar.Header{Name: "a", Typeflag: 0, Size: 1}.Block(), data...), bundle.ErrUnsupportedHeader},
		{"old GNU magic", append(rawtar.Header{Name: "a", Typeflag: '0', Size: 1, Magic: "ustar  \x00"}.Block(), data...), bundle.ErrUnsupportedHeader},
		{"base-256 size", append(rawtar.Header{Name: "a", Typeflag: '0', SizeField: append([]byte{0x80}, make([]byte, 10)...), Size: 1}.Block()[:tarBlock], data...), bundle.ErrUnsupportedHeader},
		{"zero-width space", goEntry(t, "\u200ba", tar.FormatUnknown), manifest.ErrPathInvalid},
		{"line separator", goEntry(t, "a\u2028b", tar.FormatUnknown), manifest.ErrPathInvalid},
		{"not NFC", goEntry(t, "e\u0301", tar.FormatUnknown), manifest.ErrPathInvalid},
	} {
		_, err := bundle.ReadTar(bytes.NewReader(archiveOf(tc.entry)), bundle.DefaultLimits())
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want != nil && !errors.Is(err, tc.want):
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// Names one file on a case-insensitive or normalising file system.
	for _, pair := range [][2]string{{"A", "a"}, {"\u03a3", "\u03c3"}, {"\u01c5", "\u01c6"}, {"SS", "ß"}, {"r/T1/x", "r/t1/x"}} {
		ar := archiveOf(goEntry(t, pair[0], tar.FormatUnknown), goEntry(t, pair[1], tar.FormatUnknown))
		if _, err := bundle.ReadTar(bytes.NewReader(ar), bundle.DefaultLimits()); !errors.Is(err, bundle.ErrNameAmbiguous) {
			t.Errorf("%q beside %q: %v, want ErrNameAmbiguous", pair[0], pair[1], err)
		}
	}
}
