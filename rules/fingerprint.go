package rules

import (
	"errors"
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/google/go-containerregistry/pkg/name"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// MaxFingerprintBytes bounds the input ParseFingerprint accepts.
const MaxFingerprintBytes = 4096

// Fingerprint is the DSHIO/T 21 5.2 test environment fingerprint, with the
// 6.3 model fields when present. All values are kept as the exact strings
// that appear in the fingerprint. SPEC.md "Fingerprint".
type Fingerprint struct {
	DSH         string // exact dsh version, e.g. 0.2.2-rc.1
	ImageName   string // image name as written before "@", e.g. dsh-sandbox:5.0
	ImageDigest string // sha256:<64 lowercase hex>
	Node        string // exact node version, no "v" prefix
	PNPM        string // exact pnpm version
	Mem         string // memory limit, e.g. 768m
	CPU         string // CPU limit, e.g. 1 or 0.5
	// The DSHIO/T 21 6.3 model-dependent fields: all four or none.
	Model  string
	Temp   string
	MaxTok string
	Tools  string
}

var fingerprintKeys = []string{"dsh", "img", "node", "pnpm", "mem", "cpu"}
var modelKeys = []string{"model", "temp", "maxtok", "tools"}

var (
	sha256Digest = lazyregexp.New(`^sha256:[0-9a-f]{64}$`)
	memValue     = lazyregexp.New(`^[1-9][0-9]*[kmg]$`)
	cpuValue     = lazyregexp.New(`^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$`)
	tempValue    = lazyregexp.New(`^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$`)
	countValue   = lazyregexp.New(`^(?:0|[1-9][0-9]*)$`)
	modelValue   = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$`)
)

// HasModel reports whether the fingerprint carries the 6.3 model fields.
func (f Fingerprint) HasModel() bool {
	return f.Model != "" || f.Temp != "" || f.MaxTok != "" || f.Tools != ""
}

// String renders the fingerprint in the standard's key order. For a
// fingerprint ParseFingerprint accepted, String returns the input exactly.
func (f Fingerprint) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dsh=%s;img=%s@%s;node=%s;pnpm=%s;mem=%s;cpu=%s",
		f.DSH, f.ImageName, f.ImageDigest, f.Node, f.PNPM, f.Mem, f.CPU)
	if f.HasModel() {
		fmt.Fprintf(&b, ";model=%s;temp=%s;maxtok=%s;tools=%s", f.Model, f.Temp, f.MaxTok, f.Tools)
	}
	return b.String()
}

// Validate checks every field and returns all problems joined; each wraps
// ErrNotFingerprint and, where it applies, ErrNoDigest or
// ErrNotExactVersion.
func (f Fingerprint) Validate() error {
	var errs []error
	bad := func(field, value string, kind error, what string) {
		if kind == nil {
			errs = append(errs, fmt.Errorf("%w: %s: %s: %q", ErrNotFingerprint, field, what, value))
		} else {
			errs = append(errs, fmt.Errorf("%w: %s: %w (%s): %q", ErrNotFingerprint, field, kind, what, value))
		}
	}
	for _, v := range []struct{ field, value string }{{"dsh", f.DSH}, {"node", f.Node}, {"pnpm", f.PNPM}} {
		if err := exactVersion(v.value); err != nil {
			bad(v.field, v.value, ErrNotExactVersion, err.Error())
		}
	}
	if f.ImageName == "" {
		bad("img", f.ImageName, nil, "image name is empty")
	} else if strings.ContainsAny(f.ImageName, "@;= \t") {
		bad("img", f.ImageName, nil, "image name contains '@', ';', '=' or a space")
	} else if _, err := name.NewTag(f.ImageName); err != nil {
		bad("img", f.ImageName, nil, "not an image name: "+err.Error())
	}
	if !sha256Digest.MatchString(f.ImageDigest) {
		bad("img", f.ImageDigest, ErrNoDigest, "want sha256: and 64 lowercase hex digits")
	}
	if !memValue.MatchString(f.Mem) {
		bad("mem", f.Mem, nil, "want a positive integer with unit k, m or g, e.g. 768m")
	}
	if !cpuValue.MatchString(f.CPU) || strings.Trim(f.CPU, "0.") == "" {
		bad("cpu", f.CPU, nil, "want a positive number, e.g. 1 or 0.5")
	}
	if f.HasModel() {
		if !modelValue.MatchString(f.Model) {
			bad("model", f.Model, nil, "want a model identifier")
		}
		if !tempValue.MatchString(f.Temp) {
			bad("temp", f.Temp, nil, "want a non-negative number")
		}
		if !countValue.MatchString(f.MaxTok) || f.MaxTok == "0" {
			bad("maxtok", f.MaxTok, nil, "want a positive integer")
		}
		if !countValue.MatchString(f.Tools) {
			bad("tools", f.Tools, nil, "want a non-negative integer")
		}
	}
	return errors.Join(errs...)
}

// ParseFingerprint parses a DSHIO/T 21 5.2 fingerprint, optionally followed
// by the 6.3 model fields, strictly: the keys in the standard's order, each
// once, the image pinned by a sha256 digest, exact versions (a range such as
// "0.2.x", "^0.2.2" or "the 0.2.2 series" is refused). All problems are
// reported, each wrapping ErrNotFingerprint. SPEC.md "Fingerprint".
func ParseFingerprint(s string) (Fingerprint, error) {
	if len(s) > MaxFingerprintBytes {
		return Fingerprint{}, fmt.Errorf("%w: %d bytes, at most %d", ErrNotFingerprint, len(s), MaxFingerprintBytes)
	}
	parts := strings.Split(s, ";")
	var keys []string
	switch len(parts) {
	case len(fingerprintKeys):
		keys = fingerprintKeys
	case len(fingerprintKeys) + len(modelKeys):
		keys = append(append([]string{}, fingerprintKeys...), modelKeys...)
	default:
		return Fingerprint{}, fmt.Errorf("%w: %d fields, want %d (DSHIO/T 21 5.2) or %d (6.3): %q",
			ErrNotFingerprint, len(parts), len(fingerprintKeys), len(fingerprintKeys)+len(modelKeys), s)
	}
	vals := map[string]string{}
	var errs []error
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k != keys[i] {
			errs = append(errs, fmt.Errorf("%w: field %d: want %s=<value>, got %q", ErrNotFingerprint, i+1, keys[i], p))
			continue
		}
		vals[k] = v
	}
	if len(errs) > 0 {
		return Fingerprint{}, errors.Join(errs...)
	}
	f := Fingerprint{DSH: vals["dsh"], Node: vals["node"], PNPM: vals["pnpm"], Mem: vals["mem"], CPU: vals["cpu"],
		Model: vals["model"], Temp: vals["temp"], MaxTok: vals["maxtok"], Tools: vals["tools"]}
	img := vals["img"]
	if at := strings.LastIndexByte(img, '@'); at >= 0 {
		f.ImageName, f.ImageDigest = img[:at], img[at+1:]
	} else {
		f.ImageName = img
	}
	if err := f.Validate(); err != nil {
		return Fingerprint{}, err
	}
	return f, nil
}

// exactVersion checks that v is one exact semantic version (no "v" prefix,
// no range), and says "a range" when it would parse as a constraint.
func exactVersion(v string) error {
	if _, err := semver.StrictNewVersion(v); err == nil {
		return nil
	}
	if v == "" {
		return errors.New("empty")
	}
	if _, err := semver.StrictNewVersion(strings.TrimPrefix(v, "v")); err == nil {
		return errors.New(`a "v" prefix; write the bare version`)
	}
	if _, err := semver.NewConstraint(v); err == nil || strings.ContainsAny(v, " *^~<>=|xX") {
		return errors.New("a version range, not one exact version")
	}
	return errors.New("not a semantic version MAJOR.MINOR.PATCH[-PRERELEASE]")
}
