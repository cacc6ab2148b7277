package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/internal/owner"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/pkgsource"
	"github.com/dshaudit/dshaudit/runner"
)

// CleanupMediaType is the media type of `dshaudit cleanup --json`.
const CleanupMediaType = "application/vnd.dshaudit.cleanup-result.v1+json"

// cleanupOptions are the flags of `dshaudit cleanup`.
type cleanupOptions struct {
	Engine  string
	TempDir string
	JSON    bool
}

// CleanupResult is what a sweep removed (schema/cleanup-result.schema.json).
type CleanupResult struct {
	MediaType     string             `json:"media_type"`
	SchemaVersion int                `json:"schema_version"`
	Engine        string             `json:"engine"`
	Containers    []CleanupContainer `json:"containers"`
	Directories   []CleanupDirectory `json:"directories"`
	// EngineError is set when the engine could not be asked; the
	// directories were still swept.
	EngineError string `json:"engine_error,omitempty"`
}

// CleanupContainer is one container of a dshaudit process that no longer runs.
type CleanupContainer struct {
	Name      string `json:"name"`
	OwnerHost string `json:"owner_host"`
	OwnerPID  int    `json:"owner_pid"`
	Removed   bool   `json:"removed"`
	Error     string `json:"error,omitempty"`
}

// CleanupDirectory is one temporary directory of such a process.
type CleanupDirectory struct {
	Path    string `json:"path"`
	Removed bool   `json:"removed"`
	Error   string `json:"error,omitempty"`
}

func (r *CleanupResult) failed() bool {
	if r.EngineError != "" {
		return true
	}
	for _, c := range r.Containers {
		if !c.Removed {
			return true
		}
	}
	for _, d := range r.Directories {
		if !d.Removed {
			return true
		}
	}
	return false
}

func newCleanupCmd(s *streams) *cobra.Command {
	o := &cleanupOptions{}
	c := &cobra.Command{
		Use:   "cleanup [--engine podman|docker|auto] [--temp-dir DIR] [--json]",
		Short: "Remove the containers and temporary directories of killed dshaudit runs",
		Long: `cleanup removes what a dshaudit process that was killed (SIGKILL, a lost
node, a power cut) could not remove itself: its containers, with their
anonymous volumes, and its temporary profile, package and image
directories (DESIGN.md "Leftovers of a killed run"). Every run and replay
does the same sweep before it starts; cleanup does it alone.

dshaudit labels every container it creates with the process that made it
(host, boot id, pid, start time) and names its temporary directories the
same way. Only what is so marked, and whose process is certainly no
longer running, is removed: never a container or directory of a live
dshaudit (a concurrent run), of another host sharing the engine, or one
without the mark, whatever its name.

Each removal is printed on stdout, or with --json the object
` + CleanupMediaType + `.

Exit codes:
  0  done (also when nothing was left)
  2  usage error
  3  could not run: the engine could not be asked, or a leftover could
     not be removed (named)`,
		Example: `  # after a run was killed with SIGKILL
  dshaudit cleanup

  # the docker engine, profiles made under --temp-dir /scratch
  dshaudit cleanup --engine docker --temp-dir /scratch --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCleanup(cmd.Context(), o, s)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Engine, "engine", "podman", "container engine: podman, docker or auto")
	f.StringVar(&o.TempDir, "temp-dir", "", "where the runs made their profile directories (default: the system temp directory)")
	f.BoolVar(&o.JSON, "json", false, "print the result object ("+CleanupMediaType+")")
	return c
}

func runCleanup(ctx context.Context, o *cleanupOptions, s *streams) error {
	eng, engErr := engine.Detect(ctx, o.Engine)
	if errors.Is(engErr, engine.ErrBadSpec) {
		return fmt.Errorf("%w: --engine: %w", ErrUsage, engErr)
	}
	if engErr != nil {
		eng = nil
	}
	res := sweep(ctx, eng, o.Engine, o.TempDir)
	if engErr != nil {
		res.EngineError = engErr.Error()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if o.JSON {
		if err := writeJSON(s.Out, res); err != nil {
			return err
		}
	} else {
		res.writeText(s.Out, s.Text.MaxText)
	}
	if res.failed() {
		return fmt.Errorf("%w: %s", ErrCouldNotRun, res.failure())
	}
	return nil
}

// sweep removes the stale containers of eng (nil: none asked) and the
// stale temporary directories in the system temp directory and tempDir.
func sweep(ctx context.Context, eng *engine.CLI, engineName, tempDir string) *CleanupResult {
	res := &CleanupResult{MediaType: CleanupMediaType, SchemaVersion: 1, Engine: engineName,
		Containers: []CleanupContainer{}, Directories: []CleanupDirectory{}}
	if eng != nil {
		res.Engine = eng.Name()
		left, err := eng.RemoveStale(ctx)
		if err != nil {
			res.EngineError = err.Error()
		}
		for _, l := range left {
			c := CleanupContainer{Name: l.Name, OwnerHost: l.Owner.Host, OwnerPID: l.Owner.PID, Removed: l.Removed}
			if l.Err != nil {
				c.Error = l.Err.Error()
			}
			res.Containers = append(res.Containers, c)
		}
	}
	prefixes := append([]string{runner.TempPrefixProfile, runner.TempPrefixPackage, pkgsource.TempPrefix}, engine.TempPrefixes...)
	dirs := []string{os.TempDir()}
	if tempDir != "" && tempDir != os.TempDir() {
		dirs = append(dirs, tempDir)
	}
	for _, d := range dirs {
		swept, err := owner.SweepDirs(d, prefixes...)
		if err != nil {
			res.Directories = append(res.Directories, CleanupDirectory{Path: d, Error: err.Error()})
		}
		for _, sw := range swept {
			cd := CleanupDirectory{Path: sw.Path, Removed: sw.Removed}
			if sw.Err != nil {
				cd.Error = sw.Err.Error()
			}
			res.Directories = append(res.Directories, cd)
		}
	}
	return res
}

func (r *CleanupResult) writeText(w io.Writer, maxText int) {
	for _, c := range r.Containers {
		if c.Removed {
			fmt.Fprintf(w, "removed container %s (made by dshaudit pid %d on %s, which no longer runs)\n", termtext.Field(c.Name, maxText), c.OwnerPID, termtext.Field(c.OwnerHost, maxText))
		}
	}
	for _, d := range r.Directories {
		if d.Removed {
			fmt.Fprintf(w, "removed directory %s\n", termtext.Field(d.Path, maxText))
		}
	}
	nc, nd := r.removed()
	fmt.Fprintf(w, "%d container(s), %d directory(ies) of killed dshaudit runs removed\n", nc, nd)
}

func (r *CleanupResult) removed() (int, int) {
	nc, nd := 0, 0
	for _, c := range r.Containers {
		if c.Removed {
			nc++
		}
	}
	for _, d := range r.Directories {
		if d.Removed {
			nd++
		}
	}
	return nc, nd
}

// failure says in one line what could not be cleaned and what to do.
func (r *CleanupResult) failure() string {
	var p []string
	if r.EngineError != "" {
		p = append(p, "the engine could not be asked: "+r.EngineError)
	}
	for _, c := range r.Containers {
		if !c.Removed {
			p = append(p, fmt.Sprintf("container %s: %s", c.Name, c.Error))
		}
	}
	for _, d := range r.Directories {
		if !d.Removed {
			p = append(p, fmt.Sprintf("directory %s: %s", d.Path, d.Error))
		}
	}
	return strings.Join(p, "; ") + " (run dshaudit cleanup again once the engine works, or remove them by hand)"
}

// sweepBeforeRun is the sweep every run and replay makes before it
// starts: what killed runs left is removed and said on stderr; a sweep
// that fails is a warning, never the run's failure.
func sweepBeforeRun(ctx context.Context, eng *engine.CLI, tempDir string, s *streams) {
	res := sweep(ctx, eng, eng.Name(), tempDir)
	if nc, nd := res.removed(); nc+nd > 0 {
		var items []string
		for _, c := range res.Containers {
			if c.Removed {
				items = append(items, fmt.Sprintf("container %s (pid %d)", c.Name, c.OwnerPID))
			}
		}
		for _, d := range res.Directories {
			if d.Removed {
				items = append(items, d.Path)
			}
		}
		fmt.Fprintf(s.ErrOut, "dshaudit: removed what killed dshaudit runs left: %s\n", termtext.Field(strings.Join(items, ", "), s.Text.MaxText))
	}
	if res.failed() {
		fmt.Fprintf(s.ErrOut, "dshaudit: warning: leftovers of killed runs not removed: %s\n", termtext.Field(res.failure(), s.Text.MaxText))
	}
}
