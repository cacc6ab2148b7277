package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
)

// Encode returns the canonical encoding of m (SPEC.md "Canonical
// manifest encoding"): encoding/json without HTML escaping, two-space
// indent, a trailing newline, Files sorted by path, nil lists and maps
// written as [] and {}. It refuses a manifest that Decode would
// refuse. m is not modified.
func Encode(m *Manifest) ([]byte, error) {
	var buf bytes.Buffer
	if err := EncodeTo(&buf, m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodeTo writes Encode's bytes to w as they are encoded, never held
// whole beside the manifest, for a caller that only hashes or compares
// them (the verifier's rebuild of a manifest of up to MaxSize). It
// refuses what Encode refuses, having written the bytes when the
// encoding is larger than MaxSize.
func EncodeTo(w io.Writer, m *Manifest) error {
	c, err := encodable(m)
	if err != nil {
		return err
	}
	cw := &countWriter{w: w}
	if err := marshalTo(cw, c); err != nil {
		return err
	}
	if cw.n > MaxSize {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, cw.n, MaxSize)
	}
	return nil
}

// encodable is the canonical form of m, checked as Decode would check
// it.
func encodable(m *Manifest) (*Manifest, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: nil manifest", ErrInvalid)
	}
	c := canonical(m)
	if err := checkHeader(c.MediaType, c.SchemaVersion); err != nil {
		return nil, err
	}
	if err := Validate(&c); err != nil {
		return nil, err
	}
	return &c, nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (w *countWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.n += int64(n)
	return n, err
}

func marshal(m *Manifest) ([]byte, error) {
	var buf bytes.Buffer
	if err := marshalTo(&buf, m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil // Encode ends the value with "\n"
}

// marshalTo writes m's encoding with the canonical settings to w.
func marshalTo(w io.Writer, m *Manifest) error {
	if err := newManifestEncoder(w).Encode(m); err != nil {
		return fmt.Errorf("%w: encode: %w", ErrInvalid, err)
	}
	return nil
}

// newManifestEncoder is the canonical encoding's settings: no HTML
// escaping, a two-space indent (indentWriter's, which holds no indented
// copy of the document).
func newManifestEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(&indentWriter{w: w})
	enc.SetEscapeHTML(false)
	return enc
}

// manifestEncoder is a canonical encoder that compares what it writes
// with the bytes it is given, kept in encoders between uses, so that
// neither it nor its indentWriter's chunk is allocated again, and the
// comparison needs no buffer of its own.
type manifestEncoder struct {
	cmp compareWriter
	enc *json.Encoder
}

// compareWriter compares the bytes written to it with want, in order.
type compareWriter struct {
	want []byte
	off  int
	same bool
}

func (w *compareWriter) Write(p []byte) (int, error) {
	if w.same && bytes.HasPrefix(w.want[w.off:], p) {
		w.off += len(p)
	} else {
		w.same = false
	}
	return len(p), nil
}

var encoders = sync.Pool{New: func() any {
	e := new(manifestEncoder)
	e.enc = newManifestEncoder(&e.cmp)
	return e
}}

// encodesTo reports whether m's canonical encoding is exactly raw.
func encodesTo(m *Manifest, raw []byte) bool {
	e := encoders.Get().(*manifestEncoder)
	e.cmp = compareWriter{want: raw, same: true}
	same := e.enc.Encode(m) == nil && e.cmp.same && e.cmp.off == len(raw)
	e.cmp.want = nil
	encoders.Put(e)
	return same
}

// canonical returns a copy of m with Files sorted by path and nil lists
// and maps that are always written replaced by empty ones, so that "none"
// has one encoding ([] or {}), never also null. Slices that are changed
// are copied first; m is not modified.
func canonical(m *Manifest) Manifest {
	c := *m
	c.Standards = nonNil(c.Standards)
	c.Conditions.Fixed = nonNil(c.Conditions.Fixed)
	c.Conditions.Variable = nonNil(c.Conditions.Variable)
	c.Deviations = nonNil(c.Deviations)
	if c.Settings.TimeoutsMS == nil {
		c.Settings.TimeoutsMS = map[string]int64{}
	}
	if c.Static.Evidence == nil {
		c.Static.Evidence = map[string]string{}
	}
	if c.Environment.Evidence == nil {
		c.Environment.Evidence = map[string]string{}
	}
	c.Static.Report.Clauses = nonNil(c.Static.Report.Clauses)
	c.Repetitions = slices.Clone(nonNil(c.Repetitions))
	for i := range c.Repetitions {
		c.Repetitions[i].Stages = nonNil(c.Repetitions[i].Stages)
	}
	c.Files = slices.Clone(nonNil(c.Files))
	slices.SortStableFunc(c.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return c
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Decode parses raw strictly and returns the manifest only if raw
// is exactly its canonical encoding (SPEC.md "Canonical manifest
// encoding"). Errors wrap ErrTooLarge, ErrMediaType,
// ErrSchema, ErrInvalid or ErrNotCanonical.
// Structural problems are all reported, joined.
func Decode(raw []byte) (*Manifest, error) {
	if len(raw) > MaxSize {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(raw), MaxSize)
	}
	if m := decodeCanonical(raw); m != nil {
		return m, nil
	}
	return decodeStrict(raw)
}

// decodeCanonical is Decode's fast path: the manifest when raw is
// the canonical encoding of a valid manifest, else nil. It accepts
// exactly what decodeStrict accepts (TestDecodeCanonicalAgrees, and
// FuzzDecodeManifest): an unknown field, a second value or a null where
// the encoding writes [] or {} cannot survive the re-encoding unchanged,
// so the byte comparison stands in for the strict decoder's checks. It
// differs in cost only: it decodes with encoding/json/v2's
// implementation (github.com/go-json-experiment/json, which Go 1.27's
// standard library adopts), 83 µs for the pass vector's manifest against
// encoding/json's 207 µs (2026-12-07, 8 % of verifying a typical bundle),
// and reads raw in place where a json.Decoder copies it into buffers of
// its own; its stricter reading (member names matched exactly, no
// duplicate names) refuses only what the re-encoding refuses too. The
// re-encoding reuses pooled buffers; with the reading in place that was
// 30 % of what verifying a typical bundle allocated (DESIGN.md "Reader").
func decodeCanonical(raw []byte) *Manifest {
	var m Manifest
	if jsonv2.Unmarshal(raw, &m) != nil || m.MediaType != MediaType || m.SchemaVersion != SchemaVersion {
		return nil
	}
	if Validate(&m) != nil {
		return nil
	}
	c := canonical(&m)
	if !encodesTo(&c, raw) {
		return nil
	}
	return &m
}

// decodeStrict is Decode's slow path, which names what is wrong.
func decodeStrict(raw []byte) (*Manifest, error) {
	// The strict decode first; only when it fails, or the header is not
	// this version's, is the header read again leniently, so that a
	// manifest of another kind or a later version is named as such rather
	// than by its first unknown field.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var m Manifest
	err := dec.Decode(&m)
	if err == nil {
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			err = errTrailingValue
		}
	}
	if err != nil || m.MediaType != MediaType || m.SchemaVersion != SchemaVersion {
		if herr := checkRawHeader(raw); herr != nil {
			return nil, herr
		}
		if err == errTrailingValue {
			return nil, fmt.Errorf("%w: more than one JSON value", ErrInvalid)
		}
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := Validate(&m); err != nil {
		return nil, err
	}
	// Re-encode through canonical, so that null where the encoding always
	// writes [] or {} is refused as a second byte form of "none".
	c := canonical(&m)
	again, err := marshal(&c)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(again, raw) {
		return nil, fmt.Errorf("%w: %s", ErrNotCanonical, firstDifference(raw, again))
	}
	return &m, nil
}

// errTrailingValue marks JSON after the manifest's one value.
var errTrailingValue = errors.New("more than one JSON value")

// checkRawHeader reads media_type and schema_version leniently and
// refuses a manifest of another kind or version, or without either.
func checkRawHeader(raw []byte) error {
	var probe struct {
		MediaType     *string          `json:"media_type"`
		SchemaVersion *json.RawMessage `json:"schema_version"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if probe.MediaType == nil {
		return fmt.Errorf("%w: no media_type", ErrMediaType)
	}
	if *probe.MediaType != MediaType {
		return fmt.Errorf("%w: %q, want %q", ErrMediaType, *probe.MediaType, MediaType)
	}
	if probe.SchemaVersion == nil {
		return fmt.Errorf("%w: no schema_version", ErrSchema)
	}
	if v := string(*probe.SchemaVersion); v != fmt.Sprint(SchemaVersion) {
		return fmt.Errorf("%w: %q, want %d", ErrSchema, v, SchemaVersion)
	}
	return nil
}

// checkHeader checks media_type and schema_version of a manifest about to
// be written.
func checkHeader(mediaType string, version int) error {
	if mediaType != MediaType {
		return fmt.Errorf("%w: %q, want %q", ErrMediaType, mediaType, MediaType)
	}
	if version != SchemaVersion {
		return fmt.Errorf("%w: %d, want %d", ErrSchema, version, SchemaVersion)
	}
	return nil
}

// firstDifference names where got departs from the canonical want, by
// line, for the error message.
func firstDifference(got, want []byte) string {
	line := 1
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			return fmt.Sprintf("line %d differs from the canonical encoding", line)
		}
		if got[i] == '\n' {
			line++
		}
	}
	if len(got) < len(want) {
		return fmt.Sprintf("ends early at line %d", line)
	}
	return fmt.Sprintf("%d bytes after the canonical encoding, from line %d", len(got)-len(want), line)
}
