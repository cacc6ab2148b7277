package image

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestDefaultLockValid(t *testing.T) {
	l, err := DefaultLock()
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := l.Encode()
	if string(enc) != string(defaultLockJSON) {
		t.Errorf("%s is not in canonical form (re-encode it with --update-lock)", DefaultLockFile)
	}
	names := map[string]bool{}
	for _, p := range l.Packages {
		names[p.Package] = true
	}
	for _, must := range []string{"libc6", "libstdc++6", "dash", "coreutils", "netbase", "usr-is-merged"} {
		if !names[must] {
			t.Errorf("default lock lacks %s", must)
		}
	}
	for _, mustNot := range []string{"apt", "usrmerge", "perl"} {
		if names[mustNot] {
			t.Errorf("default lock holds %s", mustNot)
		}
	}
	t.Logf("default lock %s: %d packages", d, len(l.Packages))
}

func TestLockValidateRefuses(t *testing.T) {
	good, err := DefaultLock()
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(l *Lock){
		"bad sha256":        func(l *Lock) { l.Packages[0].SHA256 = "abc" },
		"path escape":       func(l *Lock) { l.Packages[0].Filename = "pool/../../etc/passwd.deb" },
		"shell in name":     func(l *Lock) { l.Packages[0].Package = "libc6;rm" },
		"unsorted":          func(l *Lock) { l.Packages[0], l.Packages[1] = l.Packages[1], l.Packages[0] },
		"other arch":        func(l *Lock) { l.Packages[0].Architecture = "arm64" },
		"no epoch":          func(l *Lock) { l.SourceDateEpoch = 0 },
		"schema":            func(l *Lock) { l.Schema = "x" },
		"duplicate package": func(l *Lock) { l.Packages[1] = l.Packages[0] },
	} {
		t.Run(name, func(t *testing.T) {
			l := *good
			l.Packages = append([]LockedDeb(nil), good.Packages...)
			edit(&l)
			if err := l.Validate(); !errors.Is(err, ErrBadInput) {
				t.Fatalf("Validate: %v", err)
			}
		})
	}
	if _, err := ParseLock([]byte(`{"schema":"dshaudit-debian-lock/1","extra":1}`)); !errors.Is(err, ErrBadInput) {
		t.Errorf("unknown field accepted: %v", err)
	}
}

const packagesIndexSample = `Package: hello
Version: 2.10-3
Architecture: amd64
Description: example
 long line
Filename: pool/main/h/hello/hello_2.10-3_amd64.deb
Size: 53000
SHA256: 0000000000000000000000000000000000000000000000000000000000000001

Package: tzdata
Version: 2024a-0+deb12u1
Architecture: all
Filename: pool/main/t/tzdata/tzdata_2024a-0+deb12u1_all.deb
Size: 255000
SHA256: 0000000000000000000000000000000000000000000000000000000000000002
`

func TestLockFromInstalled(t *testing.T) {
	idx, err := parsePackagesIndex(strings.NewReader(packagesIndexSample))
	if err != nil {
		t.Fatal(err)
	}
	base := Lock{Suite: "bookworm", Mirror: DefaultMirror, Architecture: "amd64", SourceDateEpoch: 1}
	l, err := lockFromInstalled([]byte("tzdata\t2024a-0+deb12u1\tall\nhello\t2.10-3\tamd64\n"), idx, base)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Packages) != 2 || l.Packages[0].Package != "hello" || l.Packages[1].Size != 255000 || !strings.HasSuffix(l.Packages[0].SHA256, "1") {
		t.Fatalf("lock: %+v", l.Packages)
	}
	if _, err := lockFromInstalled([]byte("hello\t2.10-4\tamd64\n"), idx, base); err == nil || !strings.Contains(err.Error(), "hello=2.10-4:amd64") {
		t.Fatalf("a version the index lacks: %v", err)
	}
	old := &Lock{Packages: []LockedDeb{{Package: "hello", Version: "2.10-2", Architecture: "amd64"}, {Package: "gone", Version: "1", Architecture: "all"}}}
	got := strings.Join(LockChanges(old, l), "\n")
	for _, want := range []string{"~ hello=2.10-2:amd64 -> 2.10-3", "+ tzdata=2024a-0+deb12u1:all", "- gone=1:all"} {
		if !strings.Contains(got, want) {
			t.Errorf("LockChanges lacks %q:\n%s", want, got)
		}
	}
}

func TestCompareInstalled(t *testing.T) {
	l := &Lock{Packages: []LockedDeb{{Package: "a", Version: "1", Architecture: "amd64"}, {Package: "b", Version: "2", Architecture: "all"}}}
	if err := compareInstalled(l, []byte("b\t2\tall\na\t1\tamd64\n")); err != nil {
		t.Fatal(err)
	}
	err := compareInstalled(l, []byte("a\t1\tamd64\nc\t3\tamd64\n"))
	if !errors.Is(err, ErrBaseBuild) || !strings.Contains(err.Error(), "c=3:amd64") || !strings.Contains(err.Error(), "b=2:all") {
		t.Fatalf("extra and missing: %v", err)
	}
}

// TestLockStaleNamesPackages: a mirror that no longer serves two locked
// versions (404, 410) stops the build naming both; one that serves other
// bytes is an integrity failure. The mirror is a local fake.
func TestLockStaleNamesPackages(t *testing.T) {
	good := []byte("a real .deb would be here")
	sum := sha256.Sum256(good)
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/ok_1_all.deb"):
			w.Write(good)
		case strings.HasSuffix(r.URL.Path, "/gone_1_all.deb"):
			w.WriteHeader(http.StatusGone)
		case strings.HasSuffix(r.URL.Path, "/bad_1_all.deb"):
			io.WriteString(w, "other bytes of the same length!")
		default:
			http.NotFound(w, r)
		}
	}))
	defer mirror.Close()
	deb := func(name string, sha string, size int64) LockedDeb {
		return LockedDeb{Package: name, Version: "1", Architecture: "all", Filename: "pool/main/x/" + name + "_1_all.deb", Size: size, SHA256: sha}
	}
	okSHA := hex.EncodeToString(sum[:])
	lock := &Lock{Schema: LockSchema, Suite: "bookworm", Mirror: mirror.URL, Architecture: "amd64", SourceDateEpoch: 1,
		Packages: []LockedDeb{deb("gone", okSHA, 10), deb("missing", okSHA, 10), deb("ok", okSHA, int64(len(good)))}}
	b := &DebianBase{Lock: lock, Work: t.TempDir(), Log: io.Discard}
	_, err := b.fetchAll(context.Background())
	var se *LockStaleError
	if !errors.As(err, &se) || !errors.Is(err, ErrLockStale) {
		t.Fatalf("want LockStaleError, got %v", err)
	}
	if strings.Join(se.Packages, ",") != "gone=1:all,missing=1:all" || !strings.Contains(err.Error(), "--update-lock") {
		t.Fatalf("stale error: %v", err)
	}
	lock.Packages = []LockedDeb{deb("bad", okSHA, int64(len("other bytes of the same length!")))}
	if _, err := b.fetchAll(context.Background()); !errors.Is(err, ErrIntegrity) {
		t.Fatalf("other bytes: %v", err)
	}
	lock.Packages = []LockedDeb{deb("ok", okSHA, int64(len(good)))}
	paths, err := b.fetchAll(context.Background())
	if err != nil || len(paths) != 1 {
		t.Fatalf("good deb: %v %v", paths, err)
	}
}
