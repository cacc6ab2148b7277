package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/image"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/rules/static"
)

// versionCommands are the commands whose raw output backs the
// fingerprint's versions (DSHIO/T 21 5.2), by evidence role.
var versionCommands = []struct {
	role string
	argv []string
}{
	{manifest.RoleDSHVersion, []string{"dsh", "--version"}},
	{manifest.RoleNodeVersion, []string{"node", "--version"}},
	{manifest.RolePNPMVersion, []string{"pnpm", "--version"}},
}

// observeVersions runs each version command in a fresh container of the
// image with no network and returns the raw stdout by role.
func (r *Runner) observeVersions(ctx context.Context, o Options, imageID string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, vc := range versionCommands {
		res, err := r.Engine.Run(ctx, engine.RunSpec{
			Image:   imageID,
			Argv:    vc.argv,
			Network: engine.NetworkNone,
			Env:     map[string]string{"DSH_HOME": ProfileMount, "npm_config_update_notifier": "false"},
			Limits:  o.Limits,
			Timeout: o.Timeouts.Version,
		})
		if err != nil {
			return nil, runErr(ctx, fmt.Sprintf("%s in the image", strings.Join(vc.argv, " ")), err)
		}
		if res.TimedOut || res.ExitCode != 0 {
			return nil, fmt.Errorf("%w: %s in image %s: exit code %d, timed out %v: %q", ErrEnvironment,
				strings.Join(vc.argv, " "), o.Image, res.ExitCode, res.TimedOut, firstLine(res.Merged))
		}
		out[vc.role] = res.Stdout
	}
	return out, nil
}

// entryDeclarationScript prints static.EntryDeclarationPath as installed
// beside the dsh of the sandbox image (image.ImageDshDir; pnpm puts a
// package's dependencies next to it).
const entryDeclarationScript = `d=$(readlink -f "$1/node_modules/@deepseek-ai/dsh") && exec cat "$d/../../$2"`

// observeEntryDeclaration reads the declaration of a patch entry's options
// (static.EntryDeclarationPath) from the dsh in the image, in a fresh
// container with no network, so that clause 5.1.6 can be checked and the
// verifier re-derives it from the same bytes. A dynamic bundle MUST
// record a declaration clause 5.1.6 can read, so an image without one is
// an environment failure, found before any stage runs. SPEC.md "5.1.6
// Optional entry fields".
func (r *Runner) observeEntryDeclaration(ctx context.Context, o Options, imageID string) ([]byte, error) {
	argv := []string{"sh", "-c", entryDeclarationScript, "sh", image.ImageDshDir, static.EntryDeclarationPath}
	res, err := r.Engine.Run(ctx, engine.RunSpec{
		Image: imageID, Argv: argv, Network: engine.NetworkNone,
		Limits: o.Limits, Timeout: o.Timeouts.Version,
	})
	switch {
	case err != nil:
		return nil, runErr(ctx, "reading the entry declaration in the image", err)
	case res.TimedOut || res.ExitCode != 0 || len(res.Stdout) == 0:
		return nil, fmt.Errorf("%w: %s not found beside dsh in image %s (exit code %d): %q", ErrEnvironment, static.EntryDeclarationPath, o.Image, res.ExitCode, firstLine(res.Merged))
	}
	if err := static.EntryDeclarationError(res.Stdout); err != nil {
		return nil, fmt.Errorf("%w: %s in image %s: %w", ErrEnvironment, static.EntryDeclarationPath, o.Image, err)
	}
	return res.Stdout, nil
}

// normaliseVersion is the bare version a version command printed: its
// first line, trimmed, without node's leading "v" (the verifier reads
// the same evidence the same way).
func normaliseVersion(b []byte) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return strings.TrimPrefix(strings.TrimSpace(line), "v")
}

// fingerprint builds the DSHIO/T 21 5.2 fingerprint from the observed
// versions, the image name and digest, and the limits applied; it must
// parse back as a fingerprint.
func fingerprint(versions map[string][]byte, pinned engine.PinnedRef, o Options) (rules.Fingerprint, error) {
	fp := rules.Fingerprint{
		DSH:         normaliseVersion(versions[manifest.RoleDSHVersion]),
		ImageName:   pinned.Repository,
		ImageDigest: pinned.Digest.String(),
		Node:        normaliseVersion(versions[manifest.RoleNodeVersion]),
		PNPM:        normaliseVersion(versions[manifest.RolePNPMVersion]),
		Mem:         o.Limits.Memory,
		CPU:         o.Limits.CPUs,
	}
	if pinned.Tag != "" {
		fp.ImageName = pinned.Repository + ":" + pinned.Tag
	}
	if err := fp.Validate(); err != nil {
		return rules.Fingerprint{}, fmt.Errorf("%w: the observed environment gives no valid fingerprint: %w", ErrEnvironment, err)
	}
	return fp, nil
}

// runErr classifies an engine error: cancellation stays cancellation,
// anything else is the environment's.
func runErr(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrEnvironment, what, err)
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
