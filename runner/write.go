package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
)

// DefaultOutName is the default bundle file name for name@version:
// <name>-<version>.dshaudit.tar.zst, a scope's "@" dropped and its "/"
// turned into "-" as npm pack names tarballs.
func DefaultOutName(name, version string) string {
	n := strings.Replace(strings.TrimPrefix(name, "@"), "/", "-", 1)
	return n + "-" + version + manifest.BundleSuffix
}

// Written describes a bundle written to disk (bundle.Written, so that
// the pure result types of replay/compare need not import the runner).
type Written = bundle.Written

// WriteBundle encodes the manifest canonically, signs it with signer
// (package attest: a key or keyless), and writes the deterministic archive (package
// bundle) to path atomically: path holds either the complete bundle or
// what it held before, never a part, also when ctx is cancelled or the
// disk fills (DESIGN.md "Atomic output and interruption").
func WriteBundle(ctx context.Context, path string, res *Result, signer attest.BundleSigner) (*Written, error) {
	if res == nil || res.Manifest == nil {
		return nil, fmt.Errorf("%w: no result to write", ErrEvidence)
	}
	m := res.Manifest
	raw, err := manifest.Encode(m)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEvidence, err)
	}
	sig, err := attest.Sign(ctx, raw, attest.Predicate{
		Tool:    attest.Tool{Name: m.Tool.Name, Version: m.Tool.Version},
		Subject: attest.Package{Name: m.Subject.Name, Version: m.Subject.Version},
		Verdict: assemble.PredicateVerdict(m),
	}, signer)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: sign: %w", ErrEvidence, err)
	}
	h := sha256.New()
	var n countWriter
	err = bundle.WriteFileAtomicContext(ctx, path, func(w io.Writer) error {
		return bundle.Write(io.MultiWriter(w, h, &n), bundle.Contents{Manifest: raw, Signature: sig, Files: res.Files})
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (no bundle written)", ctx.Err())
		}
		if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
			return nil, fmt.Errorf("%w: %w (no bundle written: free space in %s and run again)", ErrEnvironment, err, filepath.Dir(path))
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%w: %w (no bundle written)", ErrEnvironment, err)
		}
		return nil, fmt.Errorf("%w: %w (no bundle written)", ErrEvidence, err)
	}
	digest := "sha256:" + hex.EncodeToString(h.Sum(nil))
	return &Written{Path: path, SHA256: digest, Size: int64(n), Declaration: assemble.PrintableDeclaration(m.Declaration, digest)}, nil
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
