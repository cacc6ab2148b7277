package image

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dshaudit/dshaudit/internal/hosttool"
)

// DESIGN.md "Debian package lock": the base root filesystem is made by
// mmdebstrap from exactly the locked .debs, each checked by sha256.

// dpkgPathExcludes are the dpkg path filters of the base (dpkg skips these
// files on unpack and records that it did): documentation, manual pages,
// info pages, translations and lintian overrides, which nothing in a
// sandbox reads. Copyright files stay.
var dpkgPathExcludes = []string{
	"path-exclude=/usr/share/man/*",
	"path-exclude=/usr/share/doc/*",
	"path-include=/usr/share/doc/*/copyright",
	"path-exclude=/usr/share/info/*",
	"path-exclude=/usr/share/locale/*",
	"path-exclude=/usr/share/lintian/*",
}

// mmdebstrap's hooks: file-mirror-automount makes a file:// mirror
// visible inside the chroot; merged-usr sets up the merged /usr and
// installs usr-is-merged (not usrmerge, which would pull in Perl).
const (
	fileMirrorHookDir = "/usr/share/mmdebstrap/hooks/file-mirror-automount"
	mergedUsrHookDir  = "/usr/share/mmdebstrap/hooks/merged-usr"
)

// debianVariant is mmdebstrap's package set: the Essential:yes packages,
// plus the lock's request (--include).
const debianVariant = "essential"

// mmdebstrapCommand is how the image record names the bootstrapper.
const mmdebstrapCommand = "mmdebstrap --mode=root --variant=" + debianVariant + " --hook-dir=" + mergedUsrHookDir

// debDownloadWorkers bounds parallel .deb downloads.
const debDownloadWorkers = 4

// LockStaleError names the locked packages the mirror no longer serves.
type LockStaleError struct {
	Mirror   string
	Packages []string // PACKAGE=VERSION:ARCH
}

func (e *LockStaleError) Error() string {
	return fmt.Sprintf("mirror %s no longer serves %d locked package(s): %s (a rebuild of this lock needs the published image archive, or move the lock on purpose with --update-lock)",
		e.Mirror, len(e.Packages), strings.Join(e.Packages, ", "))
}

// Unwrap makes errors.Is(err, ErrLockStale) hold.
func (e *LockStaleError) Unwrap() error { return ErrLockStale }

// DebianBase is one build of the base root filesystem from a lock.
type DebianBase struct {
	Lock *Lock
	// Mirror overrides the lock's mirror for downloads ("" = the lock's).
	Mirror string
	// DebCache holds verified .debs by sha256 ("" = inside Work).
	DebCache string
	// Work is scratch space; the root filesystem is made at Work/rootfs.
	Work   string
	Log    io.Writer
	Client *http.Client
}

func (b *DebianBase) mirror() string {
	if b.Mirror != "" {
		return strings.TrimRight(b.Mirror, "/")
	}
	return strings.TrimRight(b.Lock.Mirror, "/")
}

// Build fetches and checks every locked .deb, makes a local repository of
// exactly those, bootstraps it with mmdebstrap and checks that the
// installed set is the lock. It returns the root filesystem directory.
func (b *DebianBase) Build(ctx context.Context) (string, error) {
	bin, err := hosttool.Look("mmdebstrap", "apt-get install -y mmdebstrap, or run scripts/setup.sh")
	if err != nil {
		return "", err
	}
	if _, err := hosttool.Look("dpkg-deb", "apt-get install -y dpkg"); err != nil {
		return "", err
	}
	debs, err := b.fetchAll(ctx)
	if err != nil {
		return "", err
	}
	// The repository is mounted inside the chroot at its host path, and
	// mmdebstrap leaves that mountpoint's directories behind. Under /tmp
	// they fall in a directory the base keeps empty (rootfsKeepDirOnly),
	// so the scratch path never reaches a layer. Literal /tmp, not
	// $TMPDIR: the path inside the chroot must not depend on the builder.
	repo, err := os.MkdirTemp("/tmp", "dshaudit-debian-repo-")
	if err != nil {
		return "", err
	}
	defer RemoveTree(repo)
	if err := writeLocalRepo(ctx, repo, b.Lock, debs); err != nil {
		return "", fmt.Errorf("local repository: %w", err)
	}
	target := filepath.Join(b.Work, "rootfs")
	installed := filepath.Join(b.Work, "installed.txt")
	names := make([]string, len(b.Lock.Packages))
	for i, d := range b.Lock.Packages {
		names[i] = d.Package
	}
	args := []string{"--mode=root", "--variant=" + debianVariant, "--include=" + strings.Join(names, ","),
		"--hook-dir=" + mergedUsrHookDir, "--hook-dir=" + fileMirrorHookDir, "--skip=check/signed-by"}
	for _, o := range dpkgPathExcludes {
		args = append(args, "--dpkgopt="+o)
	}
	args = append(args,
		"--customize-hook=chroot \"$1\" dpkg-query -W -f '${Package}\\t${Version}\\t${Architecture}\\n' > "+shellQuote(installed),
		b.Lock.Suite, target, "deb [trusted=yes] file://"+repo+" "+b.Lock.Suite+" main")
	if err := b.mmdebstrap(ctx, bin, args); err != nil {
		return "", err
	}
	got, err := os.ReadFile(installed)
	if err != nil {
		return "", fmt.Errorf("installed package list: %w", err)
	}
	if err := compareInstalled(b.Lock, got); err != nil {
		return "", err
	}
	return target, nil
}

func (b *DebianBase) mmdebstrap(ctx context.Context, bin string, args []string) error {
	tmp := filepath.Join(b.Work, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(b.Log, "image: mmdebstrap %s\n", strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, bin, args...)
	// Nothing of the build user's environment: a fixed locale, time zone
	// and SOURCE_DATE_EPOCH for every maintainer script.
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C.UTF-8", "TZ=UTC",
		"HOME=" + tmp, "TMPDIR=" + tmp, "SOURCE_DATE_EPOCH=" + strconv.FormatInt(b.Lock.SourceDateEpoch, 10)}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, b.Log), io.MultiWriter(&out, b.Log)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: mmdebstrap: %v: %s", ErrBaseBuild, err, tail(out.String(), 800))
	}
	return nil
}

// compareInstalled requires the installed set to be exactly the lock.
func compareInstalled(l *Lock, installed []byte) error {
	want := map[string]bool{}
	for _, d := range l.Packages {
		want[d.ID()] = true
	}
	var extra []string
	for _, line := range strings.Split(strings.TrimSpace(string(installed)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return fmt.Errorf("%w: dpkg-query line %q", ErrBaseBuild, line)
		}
		id := f[0] + "=" + f[1] + ":" + f[2]
		if !want[id] {
			extra = append(extra, id)
		}
		delete(want, id)
	}
	var missing []string
	for id := range want {
		missing = append(missing, id)
	}
	sort.Strings(missing)
	if len(extra)+len(missing) > 0 {
		return fmt.Errorf("%w: installed set is not the lock: not locked %v, locked but not installed %v", ErrBaseBuild, extra, missing)
	}
	return nil
}

// fetchAll returns the host path of every locked .deb, downloading the
// ones not cached; each file's sha256 and size are checked against the
// lock, cached or not. Packages the mirror answers 404/410 for are
// reported together (LockStaleError).
func (b *DebianBase) fetchAll(ctx context.Context) (map[string]string, error) {
	dir := b.DebCache
	if dir == "" {
		dir = filepath.Join(b.Work, "debs")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	client := b.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Minute}
	}
	var (
		mu     sync.Mutex
		paths  = map[string]string{}
		gone   []string
		errs   []error
		wg     sync.WaitGroup
		jobs   = make(chan LockedDeb)
		cached int
	)
	for range debDownloadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range jobs {
				p := filepath.Join(dir, d.SHA256+".deb")
				hit := checkDeb(p, d) == nil
				var err error
				if !hit {
					err = b.download(ctx, client, d, p)
				}
				mu.Lock()
				var se *debGoneError
				switch {
				case errors.As(err, &se):
					gone = append(gone, d.ID())
				case err != nil:
					errs = append(errs, err)
				default:
					paths[d.ID()] = p
					if hit {
						cached++
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, d := range b.Lock.Packages {
		jobs <- d
	}
	close(jobs)
	wg.Wait()
	if len(gone) > 0 {
		sort.Strings(gone)
		return nil, &LockStaleError{Mirror: b.mirror(), Packages: gone}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	fmt.Fprintf(b.Log, "image: %d locked .debs checked by sha256 (%d cached)\n", len(paths), cached)
	return paths, nil
}

type debGoneError struct{ status int }

func (e *debGoneError) Error() string { return fmt.Sprintf("HTTP %d", e.status) }

func (b *DebianBase) download(ctx context.Context, client *http.Client, d LockedDeb, dst string) error {
	u := b.mirror() + "/" + d.Filename
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrRegistry, u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone {
		return &debGoneError{resp.StatusCode}
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: %s: HTTP %d", ErrRegistry, u, resp.StatusCode)
	}
	f, err := os.CreateTemp(filepath.Dir(dst), ".deb-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(resp.Body, d.Size+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrRegistry, u, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != d.SHA256 || n != d.Size {
		return fmt.Errorf("%w: %s from %s: sha256 %s, %d bytes; locked %s, %d bytes", ErrIntegrity, d.ID(), u, got, n, d.SHA256, d.Size)
	}
	return os.Rename(f.Name(), dst)
}

// checkDeb re-hashes a cached .deb.
func checkDeb(p string, d LockedDeb) error {
	got, n, err := fileSHA256(p)
	if err != nil {
		return err
	}
	if got != d.SHA256 || n != d.Size {
		return fmt.Errorf("%w: cached %s changed", ErrIntegrity, d.ID())
	}
	return nil
}

// writeLocalRepo writes a one-suite repository holding only the locked
// .debs: pool/ copies and a Packages index made from each .deb's own
// control paragraph (dpkg-deb -f) plus its Filename, Size and SHA256.
func writeLocalRepo(ctx context.Context, repo string, l *Lock, debs map[string]string) error {
	pool := filepath.Join(repo, "pool")
	bindir := filepath.Join(repo, "dists", l.Suite, "main", "binary-"+l.Architecture)
	for _, d := range []string{pool, bindir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	var idx bytes.Buffer
	for _, d := range l.Packages {
		name := path.Base(d.Filename)
		dst := filepath.Join(pool, name)
		if err := os.Link(debs[d.ID()], dst); err != nil {
			if err := copyFile(debs[d.ID()], dst); err != nil {
				return err
			}
		}
		ctrl, err := exec.CommandContext(ctx, "dpkg-deb", "-f", dst).Output()
		if err != nil {
			return fmt.Errorf("dpkg-deb -f %s: %w", name, err)
		}
		idx.Write(bytes.TrimRight(ctrl, "\n"))
		fmt.Fprintf(&idx, "\nFilename: pool/%s\nSize: %d\nSHA256: %s\n\n", name, d.Size, d.SHA256)
	}
	if err := os.WriteFile(filepath.Join(bindir, "Packages"), idx.Bytes(), 0o644); err != nil {
		return err
	}
	sum := sha256.Sum256(idx.Bytes())
	rel := fmt.Sprintf("Suite: %s\nCodename: %s\nArchitectures: %s\nComponents: main\nSHA256:\n %s %d main/binary-%s/Packages\n",
		l.Suite, l.Suite, l.Architecture, hex.EncodeToString(sum[:]), idx.Len(), l.Architecture)
	return os.WriteFile(filepath.Join(repo, "dists", l.Suite, "Release"), []byte(rel), 0o644)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// UpdateLock resolves request against the live mirror with mmdebstrap
// (apt checks the mirror's signed Release and the Packages index hashes)
// and returns a lock of exactly what it installed, with each .deb's
// sha256 from the verified index. SourceDateEpoch is today, 00:00 UTC.
func UpdateLock(ctx context.Context, base Lock, work string, log io.Writer, now time.Time) (*Lock, error) {
	bin, err := hosttool.Look("mmdebstrap", "apt-get install -y mmdebstrap")
	if err != nil {
		return nil, err
	}
	out := filepath.Join(work, "lock-out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	args := []string{"--mode=root", "--variant=" + debianVariant, "--hook-dir=" + mergedUsrHookDir}
	if len(base.Request) > 0 {
		args = append(args, "--include="+strings.Join(base.Request, ","))
	}
	args = append(args,
		"--customize-hook=chroot \"$1\" dpkg-query -W -f '${Package}\\t${Version}\\t${Architecture}\\n' > "+shellQuote(filepath.Join(out, "installed.txt")),
		"--customize-hook=cp \"$1\"/var/lib/apt/lists/*_Packages "+shellQuote(out)+"/",
		base.Suite, filepath.Join(work, "lock-rootfs"), base.Mirror)
	base.SourceDateEpoch = now.UTC().Truncate(24 * time.Hour).Unix()
	b := &DebianBase{Lock: &base, Work: work, Log: log}
	if err := b.mmdebstrap(ctx, bin, args); err != nil {
		return nil, err
	}
	installed, err := os.ReadFile(filepath.Join(out, "installed.txt"))
	if err != nil {
		return nil, err
	}
	lists, _ := filepath.Glob(filepath.Join(out, "*_Packages"))
	index := map[string]packagesStanza{}
	for _, p := range lists {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		m, err := parsePackagesIndex(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(p), err)
		}
		for k, v := range m {
			index[k] = v
		}
	}
	return lockFromInstalled(installed, index, base)
}
