package verify

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest/signed"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/vsa"
)

// ErrUnreadable marks input that is not a bundle at all (exit code 2).
var ErrUnreadable = errors.New("unreadable bundle")

// zstdMagic starts every zstd frame (RFC 8878 3.1.1).
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Options configure a verification.
type Options struct {
	// Policy checks the signature and says which signer to trust:
	// dshaudit passes an attest.Policy, exactly one public key or one
	// Sigstore trusted root (attest refuses ambiguous policies). Without
	// one, no signature verifies. An interface, so that this package does
	// not link the Sigstore stack (package signed).
	Policy signed.Checker
	// Limits bound what the reader accepts from hostile input.
	Limits bundle.Limits
	// MaxBundleSize bounds the compressed file read.
	MaxBundleSize int64
	// RuleLimits bound what the re-derivation parses; zero fields are the
	// defaults, which the runner uses (SPEC.md "T3 dump size limit").
	RuleLimits rules.Limits
	// KeepEvidence keeps what the verification read and derived in
	// Report.Evidence, for a caller that shows it (dshaudit report). Off
	// by default: a many-bundle verification would otherwise hold every
	// bundle's files until the end.
	KeepEvidence bool
	// Budget, when set, bounds the memory this verification and others
	// sharing the Budget hold at once (Each sets one: SPEC.md "Many
	// bundles"). Nil for a single verification, whose memory the limits
	// alone bound.
	Budget *Budget
	// DecodeAhead decodes the bundle on goroutines of its own, ahead of
	// the reader (bundle.DecodeAhead), when the process has more than one
	// CPU: for one verification, as `dshaudit verify FILE` and `dshaudit
	// report` run it. Each ignores it: its workers already fill the
	// cores. The report is the same either way.
	DecodeAhead bool
	// Now is the verifier's clock, against which a run's dates are
	// checked (SPEC.md "Time and process facts"); zero: time.Now(). A
	// caller that gives it (--now) makes the date checks reproducible.
	Now time.Time
	// Artifact, when set, is the digests of a package tarball the caller
	// holds (verify --artifact): it must be the tarball the bundle holds
	// and tested (SPEC.md "The tested tarball"), or the verification
	// fails with a subject-mismatch finding.
	Artifact *vsa.Tarball
}

// DefaultMaxBundleSize bounds a bundle file (SPEC.md "Reader limits and refusals").
const DefaultMaxBundleSize = 1 << 30

// Verify checks one bundle, in the order of SPEC.md "Verification":
// archive safety → signature → every file against the manifest →
// re-derivation of every verdict → report rules. It returns a Report with
// every finding; the error is non-nil only when the input is unreadable
// or ctx ends.
func Verify(ctx context.Context, name string, r io.Reader, opts Options) (*Report, error) {
	max := opts.MaxBundleSize
	if max <= 0 {
		max = DefaultMaxBundleSize
	}
	lim := opts.Limits
	if lim == (bundle.Limits{}) {
		lim = bundle.DefaultLimits()
	}
	// The file is read once: hashed as it is read, decompressed and
	// checked by bundle.Read in the same pass, never copied whole.
	h := sha256.New()
	in := &io.LimitedReader{R: r, N: max + 1}
	src := &readErrors{r: io.TeeReader(in, h)}
	br := getReadBuffer(src)
	defer putReadBuffer(br)
	if magic, err := br.Peek(len(zstdMagic)); !bytes.Equal(magic, zstdMagic) {
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %s: %w", ErrUnreadable, name, err)
		}
		return nil, fmt.Errorf("%w: %s: not a zstd-compressed dshaudit bundle", ErrUnreadable, name)
	}
	if b := opts.Budget; b != nil {
		hdr, _ := br.Peek(bundle.MaxFrameHeaderSize)
		release, err := acquire(ctx, b.content, b.contentWeight(hdr))
		if err != nil {
			return nil, err
		}
		defer release()
	}
	// 1. Archive safety.
	var readOpts []bundle.ReadOption
	var early *earlyModels
	if opts.DecodeAhead && runtime.GOMAXPROCS(0) > 1 {
		early = &earlyModels{}
		readOpts = append(readOpts, bundle.DecodeAhead(), bundle.OnFile(early.start))
	}
	arc, readErr := bundle.Read(br, lim, readOpts...)
	// The rest of the file (nothing, for a bundle Read accepts) still
	// counts towards its digest.
	if _, err := io.Copy(io.Discard, br); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnreadable, name, err)
	}
	if in.N <= 0 {
		return nil, fmt.Errorf("%w: %s: larger than %d bytes", ErrUnreadable, name, max)
	}
	if src.err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnreadable, name, src.err)
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	rep := &Report{
		Now:           now.UTC().Format(time.RFC3339Nano),
		MediaType:     ResultMediaType,
		SchemaVersion: ResultSchemaVersion,
		Bundle:        name,
		BundleSHA256:  "sha256:" + hex.EncodeToString(h.Sum(nil)),
		Deviations:    []string{},
		NotUsable:     []string{},
		Repetitions:   []RepetitionView{},
		Findings:      []Finding{},
		Unverified:    []UnverifiedField{},
	}
	defer rep.finish()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if readErr != nil {
		rep.add(Finding{Class: ClassArchiveUnsafe, Clause: `SPEC.md "Reader limits and refusals"`, Message: readErr.Error()})
		return rep, nil
	}
	if arc.RawManifest == nil {
		rep.add(Finding{Class: ClassManifestInvalid, File: manifest.Path, Message: "the archive has no manifest"})
		return rep, nil
	}
	if opts.KeepEvidence {
		rep.Evidence = &Evidence{Archive: arc}
	}

	vf := &verification{rep: rep, now: now, lim: opts.RuleLimits, raw: arc.RawManifest, knownSum: arc.KnownSum,
		early: early}
	if rep.Evidence == nil {
		// knownSum keeps arc to the end: vf.raw is left the only
		// reference to the manifest's bytes, which readManifest drops.
		arc.RawManifest = nil
	}

	// 2. Signature, over the raw manifest bytes.
	vf.checkSignature(opts.Policy, arc.RawSignature)

	// 3. The manifest and every file against it.
	if !vf.readManifest() {
		return rep, nil
	}
	vf.checkPredicate()
	vf.checkFiles(arc)
	// Files referred to against the layout, and streams not tied to one
	// another, are not read by any rule.
	vf.checkReferences()
	vf.checkStreams()

	// 4. Re-derive and compare; 5. cross-check every writer fact; 6.
	// report rules.
	if b := opts.Budget; b != nil {
		release, err := acquire(ctx, b.parse, b.parseWeight(arc))
		if err != nil {
			return nil, err
		}
		defer release()
	}
	vf.derive()
	vf.compare()
	vf.checkStreamReadings()
	vf.checkWriterFacts()
	vf.checkArtifact(opts.Artifact)
	vf.checkRules()
	vf.checkRebuild()
	if rep.Evidence != nil {
		rep.Evidence.Derived = vf.derived
	}
	return rep, nil
}

// checkSignature checks the signature over the raw manifest with policy
// and sets vf.sig when it verifies; a nil policy verifies nothing (SPEC.md
// "Signature").
func (vf *verification) checkSignature(policy signed.Checker, signature []byte) {
	rep := vf.rep
	if signature == nil {
		rep.add(Finding{Class: ClassUnsigned, File: manifest.SignaturePath, Message: "the bundle carries no signature"})
		return
	}
	if policy == nil {
		rep.add(Finding{Class: ClassSignatureInvalid, File: manifest.SignaturePath, Message: fmt.Sprintf("%v: no key or trusted root given", signed.ErrAmbiguousPolicy)})
		return
	}
	res, err := policy.Check(signature, vf.raw)
	if err != nil {
		switch {
		case errors.Is(err, signed.ErrNoSignature):
			rep.add(Finding{Class: ClassUnsigned, File: manifest.SignaturePath, Message: err.Error()})
		case errors.Is(err, signed.ErrStatementUnsupported):
			// The signature holds; what it signs is not ours.
			rep.add(Finding{Class: ClassStatementUnsupported, File: manifest.SignaturePath, Clause: `SPEC.md "Signature"`, Message: err.Error()})
		case errors.Is(err, signed.ErrSubjectMismatch):
			// A valid signature over other bytes: the manifest was
			// changed after signing.
			rep.add(Finding{Class: ClassFileChanged, File: manifest.Path, Clause: `SPEC.md "Signature"`, Message: "changed after signing: " + err.Error()})
		default:
			rep.add(Finding{Class: ClassSignatureInvalid, File: manifest.SignaturePath, Message: err.Error()})
		}
		return
	}
	rep.Signer = res.Signer
	rep.ProducedBy, rep.AuditWorkflow = ProducedBySigner, res.AuditWorkflow
	if res.AuditWorkflow != "" {
		rep.ProducedBy = ProducedByAuditWorkflow
	}
	if res.Certificate != nil {
		rep.Certificate, rep.SignedAt = res.Certificate, res.Timestamps
	}
	vf.sig = res
}

// readManifest decodes the signed manifest into vf.m and describes the
// bundle by it; false when it does not decode, which ends the
// verification.
func (vf *verification) readManifest() bool {
	m, err := manifest.Decode(vf.raw)
	if err != nil {
		vf.rep.add(Finding{Class: ClassManifestInvalid, File: manifest.Path, Message: err.Error()})
		return false
	}
	vf.m = m
	// Decode accepted the bytes only as m's canonical encoding: the
	// rebuild compares its encoding with their digest, and the bytes
	// themselves are encoded from m again only to name what differs.
	vf.digest, vf.raw = sha256.Sum256(vf.raw), nil
	if vf.rep.Evidence != nil {
		vf.rep.Evidence.Manifest = m
	}
	vf.describe()
	return true
}

// checkPredicate holds the signed predicate's verdict to the manifest's
// (SPEC.md "Signature").
func (vf *verification) checkPredicate() {
	if vf.sig == nil {
		return
	}
	if want := assemble.PredicateVerdict(vf.m); vf.sig.Predicate.Verdict != want {
		vf.rep.add(Finding{Class: ClassVerdictMismatch, File: manifest.SignaturePath, Field: "predicate.verdict", Clause: `SPEC.md "Signature"`,
			Message: fmt.Sprintf("the signed predicate says %q, the manifest %q", vf.sig.Predicate.Verdict, want)})
	}
}

// checkFiles compares the archive with the manifest's file list and
// sets vf.trusted, the files whose digests match, and vf.untrusted, the
// listed paths that cannot be trusted (missing or changed).
func (vf *verification) checkFiles(arc *bundle.Archive) {
	untrusted := map[string]bool{}
	for _, f := range bundle.CompareFiles(vf.m, arc) {
		c := ClassFileChanged
		switch f.Class {
		case bundle.FindingMissing:
			c = ClassFileMissing
		case bundle.FindingExtra:
			c = ClassFileExtra
		}
		vf.rep.add(Finding{Class: c, File: f.Path, Clause: `SPEC.md "Manifest fields"`, Message: f.Detail})
		if c != ClassFileExtra {
			untrusted[f.Path] = true
		}
	}
	trusted := make(map[string][]byte, len(vf.m.Files))
	for _, f := range vf.m.Files {
		if b, ok := arc.Files[f.Path]; ok && !untrusted[f.Path] {
			trusted[f.Path] = b
		}
	}
	vf.trusted, vf.untrusted = trusted, untrusted
}

// derive re-derives every verdict from the trusted files into vf.derived
// and reports what the derivation lacked; a repetition missing part of
// its record becomes untrusted.
func (vf *verification) derive() {
	d, probs := assemble.Derive(vf.m, vf.trusted, vf.lim)
	for _, p := range probs {
		if vf.untrusted[p.Path] {
			continue // already reported as missing or changed
		}
		c := ClassEvidenceMissing
		if isSequenceProblem(p) {
			c = ClassSequenceShape
		}
		// A repetition missing part of its record derives no verdict.
		if n, ok := repetitionOf(p.Path); ok {
			vf.untrusted[n] = true
		}
		vf.rep.add(Finding{Class: c, Field: p.Path, Clause: p.Clause, Message: p.Detail})
	}
	vf.derived = d
}

func (vf *verification) describe() {
	subject := vf.m.Subject
	vf.rep.Package = &subject
	vf.rep.Fingerprint = vf.m.Fingerprint
	vf.rep.Standards = vf.m.Standards
	vf.rep.TestDate = vf.m.TestDate
	vf.rep.Baseline = vf.m.Baseline
	vf.rep.Dynamic = vf.m.Dynamic
	vf.rep.ClaimedVerdict = vf.m.Claimed.Verdict
	vf.rep.DeviationRecords = append([]manifest.Deviation{}, vf.m.Deviations...)
	for _, d := range vf.m.Deviations {
		vf.rep.Deviations = append(vf.rep.Deviations, fmt.Sprintf("%s: %s → %s (%s)", d.What, d.Standard, d.ChangedTo, d.Why))
	}
}

// readBuffers keeps the 64 KiB read buffers of finished verifications:
// allocating and clearing one per bundle was a tenth of the time of
// verifying a small or a damaged bundle (verify/verifyfuzz).
var readBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

func getReadBuffer(r io.Reader) *bufio.Reader {
	br := readBuffers.Get().(*bufio.Reader)
	br.Reset(r)
	return br
}

func putReadBuffer(br *bufio.Reader) {
	br.Reset(nil)
	readBuffers.Put(br)
}

// readErrors remembers the first error, other than io.EOF, of a reader:
// failing to read the file makes it unreadable, not unsafe.
type readErrors struct {
	r   io.Reader
	err error
}

func (e *readErrors) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && e.err == nil {
		e.err = err
	}
	return n, err
}
