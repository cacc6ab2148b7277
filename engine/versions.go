package engine

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Versions are the tool versions observed inside an image, for the
// DSHIO/T 21 5.2 fingerprint: observed, never configured.
type Versions struct {
	DSH  string // `dsh --version`
	Node string // `node --version` without its leading "v" (v24.11.1 → 24.11.1)
	Pnpm string // `pnpm --version`
}

// versionTimeout bounds each version command.
const versionTimeout = 60 * time.Second

// ObserveVersions runs `dsh --version`, `node --version` and
// `pnpm --version` in fresh containers of image with the network off and
// the default limits, and returns their first output lines.
func ObserveVersions(ctx context.Context, e Engine, image string) (Versions, error) {
	var v Versions
	var problems []string
	for _, q := range []struct {
		tool string
		dst  *string
	}{{"dsh", &v.DSH}, {"node", &v.Node}, {"pnpm", &v.Pnpm}} {
		res, err := e.Run(ctx, RunSpec{Image: image, Argv: []string{q.tool, "--version"}, Network: NetworkNone, Limits: DefaultLimits(), Timeout: versionTimeout})
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s --version: %v", q.tool, err))
		case res.TimedOut || res.ExitCode != 0:
			problems = append(problems, fmt.Sprintf("%s --version: exit %d (timed out %v): %q", q.tool, res.ExitCode, res.TimedOut, lastLine(res.Merged)))
		default:
			s := firstLine(res.Stdout)
			if q.tool == "node" {
				s = strings.TrimPrefix(s, "v")
			}
			if s == "" {
				problems = append(problems, fmt.Sprintf("%s --version printed nothing on stdout", q.tool))
			}
			*q.dst = s
		}
	}
	if len(problems) > 0 {
		return v, fmt.Errorf("observe versions in %q: %s", image, strings.Join(problems, "; "))
	}
	return v, nil
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
