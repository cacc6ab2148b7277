package image

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// DESIGN.md "Rebuild and compare".

// FileRec is one tar entry as the comparison sees it.
type FileRec struct {
	Path   string `json:"path"`
	Type   string `json:"type"` // file, dir, symlink, hardlink, char, block, fifo
	Size   int64  `json:"size"`
	Mode   string `json:"mode"` // octal permission and special bits
	UID    int    `json:"uid"`
	GID    int    `json:"gid"`
	Link   string `json:"link,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// FileDiff is one path whose entry differs (nil side: absent there).
type FileDiff struct {
	Path    string   `json:"path"`
	Given   *FileRec `json:"given,omitempty"`
	Rebuilt *FileRec `json:"rebuilt,omitempty"`
}

// LayerDiff is one layer whose content differs.
type LayerDiff struct {
	Index          int        `json:"index"`
	History        string     `json:"history"`
	GivenDiffID    string     `json:"givenDiffID"`
	RebuiltDiffID  string     `json:"rebuiltDiffID"`
	Files          []FileDiff `json:"files"`
	FilesTruncated bool       `json:"filesTruncated,omitempty"`
}

// ImageDiffError is a rebuilt image that is not the given one.
type ImageDiffError struct {
	Want, Rebuilt string // manifest digests
	Layers        []LayerDiff
	// Notes name differences outside layer content (config, layer count,
	// compressed bytes of equal content).
	Notes []string
}

func (e *ImageDiffError) Error() string {
	var parts []string
	for _, l := range e.Layers {
		parts = append(parts, fmt.Sprintf("layer %d (%s): %d file(s) differ", l.Index+1, l.History, len(l.Files)))
	}
	parts = append(parts, e.Notes...)
	return fmt.Sprintf("rebuilt %s, want %s: %s", e.Rebuilt, e.Want, strings.Join(parts, "; "))
}

// Unwrap makes errors.Is(err, ErrImageDiffers) hold.
func (e *ImageDiffError) Unwrap() error { return ErrImageDiffers }

// maxFileDiffs bounds the files listed per layer.
const maxFileDiffs = 200

// ReadInputs reads /opt/dshaudit/inputs.json from an image's last layer.
func ReadInputs(img v1.Image) (*Inputs, error) {
	ls, err := img.Layers()
	if err != nil || len(ls) == 0 {
		return nil, fmt.Errorf("%w: image has no layers: %v", ErrBadInput, err)
	}
	rc, err := ls[len(ls)-1].Uncompressed()
	if err != nil {
		return nil, fmt.Errorf("%w: last layer: %v", ErrBadInput, err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	want := strings.TrimPrefix(ImageInputsFile, "/")
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: image has no %s: not built by dshaudit image build", ErrBadInput, ImageInputsFile)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: last layer: %v", ErrBadInput, err)
		}
		if strings.TrimPrefix(path.Clean("/"+h.Name), "/") != want {
			continue
		}
		var in Inputs
		dec := json.NewDecoder(io.LimitReader(tr, 16<<20))
		if err := dec.Decode(&in); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrBadInput, ImageInputsFile, err)
		}
		return &in, nil
	}
}

// RebuildOptions turns an image's inputs record into build options that
// make the same image again. It fails (ErrBadInput) when the record cannot
// be rebuilt by this dshaudit: another builder version, or a base given
// as --rootfs rather than a Debian lock.
func RebuildOptions(in *Inputs) (Options, error) {
	if in.Builder != BuilderVersion {
		return Options{}, fmt.Errorf("%w: image built by %q, this dshaudit builds %q: rebuild with that dshaudit release", ErrBadInput, in.Builder, BuilderVersion)
	}
	if in.Debian == nil {
		return Options{}, fmt.Errorf("%w: image base was given with --rootfs (layer diffID %s), not made from a Debian lock: it cannot be rebuilt from the image alone", ErrBadInput, in.Rootfs.LayerDiffID)
	}
	lock := in.Debian.Lock
	if err := lock.Validate(); err != nil {
		return Options{}, err
	}
	if d, err := lock.Digest(); err != nil || d != in.Debian.LockDigest {
		return Options{}, fmt.Errorf("%w: recorded lock hashes to %s, record says %s", ErrBadInput, d, in.Debian.LockDigest)
	}
	return Options{Lock: &lock, NodeVersion: in.Node.Version, PNPMVersion: in.PNPM.Version, DshVersion: in.Dsh.Version, Registry: in.Registry}, nil
}

// CompareImages explains why rebuilt is not given: the layers whose
// content (diffID) differs, with the files that differ in each, and any
// difference in config or compressed bytes. It returns nil when the
// manifest digests are equal.
func CompareImages(given, rebuilt v1.Image) error {
	gd, err := given.Digest()
	if err != nil {
		return err
	}
	rd, err := rebuilt.Digest()
	if err != nil {
		return err
	}
	if gd == rd {
		return nil
	}
	de := &ImageDiffError{Want: gd.String(), Rebuilt: rd.String()}
	gl, err := given.Layers()
	if err != nil {
		return err
	}
	rl, err := rebuilt.Layers()
	if err != nil {
		return err
	}
	if len(gl) != len(rl) {
		de.Notes = append(de.Notes, fmt.Sprintf("given has %d layers, rebuilt %d", len(gl), len(rl)))
	}
	contentSame := true
	for i := 0; i < len(gl) && i < len(rl); i++ {
		g, _ := gl[i].DiffID()
		r, _ := rl[i].DiffID()
		if g == r {
			gc, _ := gl[i].Digest()
			rc, _ := rl[i].Digest()
			if gc != rc {
				de.Notes = append(de.Notes, fmt.Sprintf("layer %d: same content, compressed bytes differ (%s, rebuilt %s)", i+1, gc, rc))
			}
			continue
		}
		contentSame = false
		ld := LayerDiff{Index: i, GivenDiffID: g.String(), RebuiltDiffID: r.String()}
		if i < len(layerHistory) {
			ld.History = layerHistory[i]
		}
		gf, err := layerFiles(gl[i])
		if err != nil {
			return fmt.Errorf("given layer %d: %w", i+1, err)
		}
		rf, err := layerFiles(rl[i])
		if err != nil {
			return fmt.Errorf("rebuilt layer %d: %w", i+1, err)
		}
		ld.Files, ld.FilesTruncated = diffFiles(gf, rf)
		de.Layers = append(de.Layers, ld)
	}
	if contentSame {
		gc, _ := given.RawConfigFile()
		rc, _ := rebuilt.RawConfigFile()
		if string(gc) != string(rc) {
			de.Notes = append(de.Notes, "image config differs")
		}
	}
	return de
}

func layerFiles(l v1.Layer) (map[string]FileRec, error) {
	rc, err := l.Uncompressed()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	out := map[string]FileRec{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		p := strings.TrimPrefix(path.Clean("/"+h.Name), "/")
		f := FileRec{Path: p, Size: h.Size, Mode: fmt.Sprintf("%04o", h.Mode&0o7777), UID: h.Uid, GID: h.Gid, Link: h.Linkname}
		switch h.Typeflag {
		case tar.TypeReg, tar.TypeRegA:
			f.Type = "file"
			s := sha256.New()
			if _, err := io.Copy(s, tr); err != nil {
				return nil, err
			}
			f.SHA256 = hex.EncodeToString(s.Sum(nil))
		case tar.TypeDir:
			f.Type = "dir"
		case tar.TypeSymlink:
			f.Type = "symlink"
		case tar.TypeLink:
			f.Type = "hardlink"
		case tar.TypeChar:
			f.Type = "char"
		case tar.TypeBlock:
			f.Type = "block"
		case tar.TypeFifo:
			f.Type = "fifo"
		default:
			f.Type = fmt.Sprintf("type %q", string(h.Typeflag))
		}
		out[p] = f
	}
}

func diffFiles(given, rebuilt map[string]FileRec) ([]FileDiff, bool) {
	paths := map[string]bool{}
	for p := range given {
		paths[p] = true
	}
	for p := range rebuilt {
		paths[p] = true
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	var out []FileDiff
	for _, p := range sorted {
		g, gok := given[p]
		r, rok := rebuilt[p]
		if gok && rok && g == r {
			continue
		}
		if len(out) == maxFileDiffs {
			return out, true
		}
		d := FileDiff{Path: p}
		if gok {
			d.Given = &g
		}
		if rok {
			d.Rebuilt = &r
		}
		out = append(out, d)
	}
	return out, false
}

// Verify rebuilds the image from the inputs recorded in given and compares
// it with want, the pinned manifest digest: nil when the rebuild has that
// digest, an *ImageDiffError (ErrImageDiffers) naming the layers and
// files that differ, or another error when the rebuild could not run.
// given supplies the record and the content compared; its own manifest
// may differ from want when an engine re-wrote it (docker save), since
// only the rebuilt digest is compared with want.
func Verify(ctx context.Context, want v1.Hash, given v1.Image, o Options) (*Result, error) {
	in, err := ReadInputs(given)
	if err != nil {
		return nil, err
	}
	ro, err := RebuildOptions(in)
	if err != nil {
		return nil, err
	}
	ro.CacheDir, ro.NoCache, ro.Log, ro.Client, ro.DebianMirror = o.CacheDir, o.NoCache, o.Log, o.Client, o.DebianMirror
	r, err := Build(ctx, ro)
	if err != nil {
		return nil, err
	}
	if r.Digest == want {
		return r, nil
	}
	if err := CompareImages(given, r.Image); err != nil {
		var de *ImageDiffError
		if errors.As(err, &de) {
			de.Want = want.String()
		}
		return r, err
	}
	return r, &ImageDiffError{Want: want.String(), Rebuilt: r.Digest.String(), Notes: []string{"the given image content equals the rebuild, but its manifest digest is not the one pinned"}}
}
