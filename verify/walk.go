package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dshaudit/dshaudit/manifest"
)

// ErrSkipped: a walked directory holds entries that are not verified
// (symbolic links, special files, unreadable entries), returned by Expand.
var ErrSkipped = errors.New("entries under the directory are not verified")

// Walk turns files and directories into the sorted list of bundle paths,
// by these rules (SPEC.md "Many bundles"):
//
//   - a path given is followed as the operating system follows it (a
//     symbolic link given by name is its target), and a file given is a
//     bundle whatever its name;
//   - a directory given is walked without following symbolic links:
//     every regular file whose name ends in manifest.BundleSuffix is a bundle, and
//     other regular files and directories are passed over;
//   - every other entry under it — a symbolic link (whatever its name or
//     target), a named pipe, socket or device, or a file or directory
//     that cannot be read — is not verified and is returned in skipped,
//     an Item with Skipped set and Error saying what it is.
//
// err is set only when a path given cannot be read at all.
func Walk(paths []string) (bundles []string, skipped []Item, err error) {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			bundles = append(bundles, p)
			continue
		}
		root := p
		if lst, err := os.Lstat(p); err == nil && lst.Mode()&fs.ModeSymlink != 0 && !strings.HasSuffix(p, string(filepath.Separator)) {
			root = p + string(filepath.Separator) // WalkDir then follows the link given
		}
		werr := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			return walkEntry(path, d, err, &bundles, &skipped)
		})
		if werr != nil {
			return nil, nil, werr
		}
	}
	sort.Strings(bundles)
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return bundles, skipped, nil
}

// walkEntry is Walk's rule for one entry of a walked directory.
func walkEntry(path string, d fs.DirEntry, err error, bundles *[]string, skipped *[]Item) error {
	if err != nil {
		// The directory (or entry) could not be read; its siblings are
		// walked on.
		*skipped = append(*skipped, skippedItem(path, "cannot be read: "+err.Error()))
		if d != nil && d.IsDir() {
			return fs.SkipDir
		}
		return nil
	}
	switch t := d.Type(); {
	case t.IsDir():
	case t.IsRegular():
		if strings.HasSuffix(d.Name(), manifest.BundleSuffix) {
			*bundles = append(*bundles, path)
		}
	case t&fs.ModeSymlink != 0:
		what := "a symbolic link"
		if target, rerr := os.Readlink(path); rerr == nil {
			what = fmt.Sprintf("a symbolic link to %q", target)
		}
		*skipped = append(*skipped, skippedItem(path, what+", not followed under a directory"))
	default:
		*skipped = append(*skipped, skippedItem(path, describeMode(t)+", not a regular file"))
	}
	return nil
}

func skippedItem(path, why string) Item {
	return Item{Path: path, Error: "not verified: " + why, Skipped: true}
}

// describeMode names a file type other than a directory, a regular file
// or a symbolic link.
func describeMode(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	}
	return fmt.Sprintf("a file of type %v", t)
}

// Expand is Walk for callers that verify nothing unless everything under
// the paths is a bundle or passed over (report DIR, batch): anything Walk
// would skip is an error wrapping ErrSkipped, naming each entry.
func Expand(paths []string) ([]string, error) {
	bundles, skipped, err := Walk(paths)
	if err != nil {
		return nil, err
	}
	if len(skipped) > 0 {
		var b strings.Builder
		for i, it := range skipped {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%q: %s", it.Path, it.Error)
		}
		return nil, fmt.Errorf("%w: %s", ErrSkipped, b.String())
	}
	return bundles, nil
}
