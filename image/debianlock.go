package image

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// DESIGN.md "Debian package lock".

// LockSchema names the lock file format.
const LockSchema = "dshaudit-debian-lock/1"

// DefaultLockFile is the committed lock of the default base, relative to
// the repository root; DefaultLock is its content, built in.
const DefaultLockFile = "image/debian-bookworm.lock.json"

//go:embed debian-bookworm.lock.json
var defaultLockJSON []byte

// DefaultDebianRequest is what --update-lock asks the mirror for beyond
// the Essential:yes set and usr-is-merged (mmdebstrap's essential variant
// with its merged-usr hook): libstdc++6 (Node needs it) and netbase
// (/etc/services, /etc/protocols for Node's resolver). No apt: the image
// installs nothing after it is built.
var DefaultDebianRequest = []string{"libstdc++6", "netbase"}

// LockedDeb is one .deb of the lock, as the mirror's Packages index gives it.
type LockedDeb struct {
	Package      string `json:"package"`
	Version      string `json:"version"`
	Architecture string `json:"architecture"`
	Filename     string `json:"filename"` // path below the mirror root
	Size         int64  `json:"size"`
	SHA256       string `json:"sha256"`
}

// ID is PACKAGE=VERSION:ARCH, how errors and lists name a locked package.
func (d LockedDeb) ID() string { return d.Package + "=" + d.Version + ":" + d.Architecture }

// Lock pins the Debian base: exactly these .debs are installed.
type Lock struct {
	Schema       string   `json:"schema"`
	Suite        string   `json:"suite"`
	Mirror       string   `json:"mirror"`
	Architecture string   `json:"architecture"`
	Request      []string `json:"request"`
	// SourceDateEpoch is given to mmdebstrap and every maintainer script
	// (e.g. /etc/shadow's last-change day); it is the day the lock was
	// made, so it moves only with the lock.
	SourceDateEpoch int64       `json:"sourceDateEpoch"`
	Packages        []LockedDeb `json:"packages"`
}

var (
	debNameRE    = lazyregexp.New(`^[a-z0-9][a-z0-9+.-]+$`)
	debVersionRE = lazyregexp.New(`^[A-Za-z0-9.+~:-]+$`)
	sha256HexRE  = lazyregexp.New(`^[0-9a-f]{64}$`)
	poolPathRE   = lazyregexp.New(`^pool/[A-Za-z0-9._+~/-]+\.deb$`)
)

// Validate checks the lock is complete and well-formed: every field set,
// names, versions and pool paths of the expected shape (they reach a
// command line and a URL), packages sorted and unique.
func (l *Lock) Validate() error {
	var problems []string
	if l.Schema != LockSchema {
		problems = append(problems, fmt.Sprintf("schema %q, want %q", l.Schema, LockSchema))
	}
	if l.Suite == "" || l.Mirror == "" || l.Architecture == "" {
		problems = append(problems, "suite, mirror and architecture must be set")
	}
	if l.SourceDateEpoch <= 0 {
		problems = append(problems, "sourceDateEpoch must be positive")
	}
	if len(l.Packages) == 0 {
		problems = append(problems, "no packages")
	}
	for i, d := range l.Packages {
		switch {
		case !debNameRE.MatchString(d.Package):
			problems = append(problems, fmt.Sprintf("package %q: bad name", d.Package))
		case !debVersionRE.MatchString(d.Version):
			problems = append(problems, fmt.Sprintf("package %q: bad version %q", d.Package, d.Version))
		case d.Architecture != l.Architecture && d.Architecture != "all":
			problems = append(problems, fmt.Sprintf("package %q: architecture %q", d.Package, d.Architecture))
		case !sha256HexRE.MatchString(d.SHA256):
			problems = append(problems, fmt.Sprintf("package %q: sha256 %q", d.Package, d.SHA256))
		case !poolPathRE.MatchString(d.Filename) || strings.Contains(d.Filename, ".."):
			problems = append(problems, fmt.Sprintf("package %q: filename %q", d.Package, d.Filename))
		case d.Size <= 0:
			problems = append(problems, fmt.Sprintf("package %q: size %d", d.Package, d.Size))
		case i > 0 && l.Packages[i-1].Package >= d.Package:
			problems = append(problems, fmt.Sprintf("package %q: not sorted or listed twice", d.Package))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: debian lock: %s", ErrBadInput, strings.Join(problems, "; "))
	}
	return nil
}

// Encode returns the lock's canonical bytes (indented JSON, newline).
func (l *Lock) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Digest is the sha256 of the canonical bytes: the lock's identity in cache
// keys, the image record and labels.
func (l *Lock) Digest() (string, error) {
	b, err := l.Encode()
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:]), nil
}

// ParseLock decodes and validates a lock.
func ParseLock(b []byte) (*Lock, error) {
	var l Lock
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%w: debian lock: %v", ErrBadInput, err)
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return &l, nil
}

// ReadLock reads a lock file; "" means the built-in default lock.
func ReadLock(path string) (*Lock, error) {
	if path == "" {
		return DefaultLock()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: debian lock: %w", ErrBadInput, err)
	}
	l, err := ParseLock(b)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", path, err)
	}
	return l, nil
}

// DefaultLock returns the built-in lock (DefaultLockFile as committed).
func DefaultLock() (*Lock, error) { return ParseLock(defaultLockJSON) }

// WriteLock writes the lock atomically.
func WriteLock(path string, l *Lock) error {
	b, err := l.Encode()
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// packagesStanza is one paragraph of a Debian Packages index.
type packagesStanza map[string]string

// parsePackagesIndex reads a Debian Packages index (deb822 paragraphs) and
// returns the stanzas keyed by PACKAGE=VERSION:ARCH.
func parsePackagesIndex(r io.Reader) (map[string]packagesStanza, error) {
	out := map[string]packagesStanza{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	cur := packagesStanza{}
	last := ""
	flush := func() {
		if cur["Package"] != "" {
			out[cur["Package"]+"="+cur["Version"]+":"+cur["Architecture"]] = cur
		}
		cur, last = packagesStanza{}, ""
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
		case line[0] == ' ' || line[0] == '\t':
			if last != "" {
				cur[last] += "\n" + line
			}
		default:
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				return nil, fmt.Errorf("%w: packages index line %q", ErrBadInput, line)
			}
			last = k
			cur[k] = strings.TrimSpace(v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	flush()
	return out, nil
}

// lockFromInstalled makes a lock from the packages installed in a
// bootstrap (PACKAGE\tVERSION\tARCH lines of dpkg-query) and the Packages
// indexes apt verified for it.
func lockFromInstalled(installed []byte, index map[string]packagesStanza, base Lock) (*Lock, error) {
	l := base
	l.Schema = LockSchema
	l.Packages = nil
	var missing []string
	for _, line := range strings.Split(strings.TrimSpace(string(installed)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("%w: dpkg-query line %q", ErrBadInput, line)
		}
		id := f[0] + "=" + f[1] + ":" + f[2]
		st, ok := index[id]
		if !ok {
			missing = append(missing, id)
			continue
		}
		size, err := strconv.ParseInt(st["Size"], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: size %q", ErrBadInput, id, st["Size"])
		}
		l.Packages = append(l.Packages, LockedDeb{Package: f[0], Version: f[1], Architecture: f[2],
			Filename: st["Filename"], Size: size, SHA256: st["SHA256"]})
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: installed packages not in the mirror's index: %s", ErrBadInput, strings.Join(missing, ", "))
	}
	sort.Slice(l.Packages, func(i, j int) bool { return l.Packages[i].Package < l.Packages[j].Package })
	return &l, l.Validate()
}

// LockChanges lists what moves from old to nl: added, removed and
// changed packages, one line each, sorted.
func LockChanges(old, nl *Lock) []string {
	was := map[string]LockedDeb{}
	for _, d := range old.Packages {
		was[d.Package] = d
	}
	var out []string
	for _, d := range nl.Packages {
		o, ok := was[d.Package]
		switch {
		case !ok:
			out = append(out, "+ "+d.ID())
		case o.Version != d.Version || o.SHA256 != d.SHA256:
			out = append(out, "~ "+o.ID()+" -> "+d.Version)
		}
		delete(was, d.Package)
	}
	for _, o := range was {
		out = append(out, "- "+o.ID())
	}
	sort.Strings(out)
	if len(out) == 0 {
		out = []string{"unchanged (" + strconv.Itoa(len(nl.Packages)) + " packages)"}
	}
	return out
}
