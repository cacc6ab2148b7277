package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/manifest"
)

// inspectOptions are the flags of `dshaudit inspect`.
type inspectOptions struct {
	Bundle   string
	Manifest bool
	Stage    string
	Role     string
	File     string
	// Raw writes --manifest, --file and --stage bytes as stored instead
	// of escaped for a terminal.
	Raw bool
	// JSON prints the file listing as an inspect result object.
	JSON bool
}

func newInspectCmd(s *streams) *cobra.Command {
	o := &inspectOptions{}
	c := &cobra.Command{
		Use:   "inspect BUNDLE",
		Short: "List a bundle's files, print its manifest, or show one stage's evidence",
		Long: `inspect reads a bundle with the same hostile-input limits as verify, but
checks no signature and re-derives nothing: use verify for that.

Without flags it lists the files with their sizes and sha256 digests;
with --json, as one object (` + InspectMediaType + `): every file
with its role (manifest, signature, static/ROLE, environment/ROLE or
REPETITION/STAGE/ROLE, as --stage and --role name it), its size and
sha256 as listed, and whether the archive holds it with those bytes.

--manifest, --file and --stage print the bytes with every control
character, escape sequence and bidi control escaped (\x1b, \r, \u202e;
newlines and tabs kept), since a bundle's writer chose them; --raw writes
the bytes exactly as stored, for a pipe or a file.

Exit codes:
  0  printed
  2  usage error, unreadable bundle, or no such file or stage`,
		Example: `  dshaudit inspect b.tar.zst                       # list files
  dshaudit inspect b.tar.zst --json | jq -r '.files[] | select(.role == "1/T4/merged") | .path'
  dshaudit inspect b.tar.zst --manifest            # print manifest.json
  dshaudit inspect b.tar.zst --stage 1/T4          # T4 merged output of repetition 1
  dshaudit inspect b.tar.zst --stage 2/T1 --role stderr
  dshaudit inspect b.tar.zst --file static/patch.yml
  dshaudit inspect b.tar.zst --stage 1/T4 --raw > t4.merged`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Bundle = args[0]
			return runInspect(o, s)
		},
	}
	f := c.Flags()
	f.BoolVar(&o.Manifest, "manifest", false, "print manifest.json as stored")
	f.StringVar(&o.Stage, "stage", "", "show evidence of REPETITION/STAGE, e.g. 1/T3")
	f.StringVar(&o.Role, "role", "merged", "with --stage: stdout, stderr, merged or profile_package_json")
	f.StringVar(&o.File, "file", "", "print one file by its path in the bundle")
	f.BoolVar(&o.Raw, "raw", false, "with --manifest, --file or --stage: write the bytes as stored, unescaped")
	f.BoolVar(&o.JSON, "json", false, "list the files as one object ("+InspectMediaType+")")
	return c
}

func runInspect(o *inspectOptions, s *streams) error {
	if o.JSON && (o.Manifest || o.File != "" || o.Stage != "" || o.Raw) {
		return fmt.Errorf("%w: --json lists the files; it does not go with --manifest, --file, --stage or --raw", ErrUsage)
	}
	f, err := os.Open(o.Bundle)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	defer f.Close()
	arc, err := bundle.Read(f, bundle.DefaultLimits())
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrUsage, o.Bundle, err)
	}
	switch {
	case o.Manifest:
		return o.write(s, arc.RawManifest)
	case o.File != "":
		b, ok := arc.Files[o.File]
		if !ok {
			return fmt.Errorf("%w: no file %q in %s", ErrUsage, o.File, o.Bundle)
		}
		return o.write(s, b)
	case o.Stage != "":
		return inspectStage(o, arc, s)
	}
	m, err := manifest.Decode(arc.RawManifest)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrUsage, manifest.Path, err)
	}
	if o.JSON {
		return writeJSON(s.Out, inspectJSON(o.Bundle, arc, m))
	}
	fmt.Fprintf(s.Out, "%s (unverified: use dshaudit verify)\n", termtext.Escape(o.Bundle))
	fmt.Fprintf(s.Out, "%-10d %s\n", len(arc.RawManifest), manifest.Path)
	if arc.RawSignature != nil {
		fmt.Fprintf(s.Out, "%-10d %s\n", len(arc.RawSignature), manifest.SignaturePath)
	}
	for _, fl := range m.Files {
		fmt.Fprintf(s.Out, "%-10d %s  sha256:%s\n", fl.Size, termtext.Field(fl.Path, s.Text.MaxText), termtext.Field(fl.SHA256, s.Text.MaxText))
	}
	return nil
}

func inspectStage(o *inspectOptions, arc *bundle.Archive, s *streams) error {
	repStr, stage, ok := strings.Cut(o.Stage, "/")
	rep, err := strconv.Atoi(repStr)
	if !ok || err != nil {
		return fmt.Errorf("%w: --stage %q: want REPETITION/STAGE, e.g. 1/T3", ErrUsage, o.Stage)
	}
	m, err := manifest.Decode(arc.RawManifest)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrUsage, manifest.Path, err)
	}
	for _, rp := range m.Repetitions {
		if rp.Index != rep {
			continue
		}
		for _, st := range rp.Stages {
			if st.Stage != stage {
				continue
			}
			p, ok := st.Evidence[o.Role]
			if !ok {
				return fmt.Errorf("%w: repetition %d %s has no %q evidence (status %s)", ErrUsage, rep, stage, o.Role, st.Status)
			}
			b, ok := arc.Files[p]
			if !ok {
				return errors.New("evidence file " + strconv.Quote(p) + " is listed but absent")
			}
			return o.write(s, b)
		}
	}
	return fmt.Errorf("%w: no stage %q in repetition %d", ErrUsage, stage, rep)
}

// write prints bytes from the bundle: escaped for a terminal (newlines
// and tabs kept, SPEC.md "Output safety"), or as stored with --raw.
func (o *inspectOptions) write(s *streams, b []byte) error {
	if o.Raw {
		_, err := s.Out.Write(b)
		return err
	}
	_, err := io.WriteString(s.Out, termtext.Block(string(b)))
	return err
}
