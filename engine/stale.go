package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/dshaudit/dshaudit/internal/owner"
)

// The prefixes of the temporary directories this package makes in the
// system temp directory (owner.MkdirTemp names them), which
// owner.SweepDirs takes.
const (
	TempPrefixPidfile    = "dshaudit-engine-"
	TempPrefixOCI        = "dshaudit-oci-"
	TempPrefixStage      = "dshaudit-stage-"
	TempPrefixDockerLoad = "dshaudit-docker-load-"
)

// TempPrefixes are all of them.
var TempPrefixes = []string{TempPrefixPidfile, TempPrefixOCI, TempPrefixStage, TempPrefixDockerLoad}

// Leftover is a container a sweep found whose owner is not running.
type Leftover struct {
	Name  string
	Owner owner.Owner
	// Removed is set when the container (and its anonymous volumes) is
	// gone; Err says why not.
	Removed bool
	Err     error
}

// RemoveStale force-removes every container labelled owner.Label whose
// owner is certainly not running (owner.Dead: same host, and its pid
// and start time name no process, or the host has booted since). A
// container without the label, with a malformed one, or of a live or
// unknown owner (another host sharing a docker daemon) is never touched.
// DESIGN.md "Leftovers of a killed run".
func (c *CLI) RemoveStale(ctx context.Context) ([]Leftover, error) {
	format := "{{.Names}}\t{{index .Labels \"" + owner.Label + "\"}}"
	if !c.podman {
		format = "{{.Names}}\t{{.Label \"" + owner.Label + "\"}}"
	}
	out, err := c.output(ctx, "ps", "--all", "--filter", "label="+owner.Label, "--format", format)
	if err != nil {
		return nil, fmt.Errorf("%w: list containers: %v", ErrEngine, err)
	}
	var left []Leftover
	for _, line := range strings.Split(string(out), "\n") {
		name, label, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if !ok || name == "" {
			continue
		}
		o, err := owner.Parse(strings.TrimSpace(label))
		if err != nil || o.State() != owner.Dead {
			continue
		}
		l := Leftover{Name: name, Owner: o}
		if err := c.remove(name); err != nil {
			l.Err = err
		} else {
			l.Removed = true
		}
		left = append(left, l)
	}
	return left, nil
}
