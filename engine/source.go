package engine

import "fmt"

// SourceKind says where EnsureImage gets an image from.
type SourceKind int

// Source kinds.
const (
	// SourceStore: the image must already be in the engine's store.
	SourceStore SourceKind = iota
	// SourceRegistry: pull NAME@sha256:… from its registry.
	SourceRegistry
	// SourceOCIArchive: load an OCI image archive (a tar of a layout).
	SourceOCIArchive
	// SourceOCILayout: load an OCI image layout directory.
	SourceOCILayout
)

func (k SourceKind) String() string {
	switch k {
	case SourceStore:
		return "engine store"
	case SourceRegistry:
		return "registry"
	case SourceOCIArchive:
		return "oci archive"
	case SourceOCILayout:
		return "oci layout"
	}
	return fmt.Sprintf("source kind %d", int(k))
}

// Source is where an image comes from. Build it with FromStore,
// FromRegistry, FromOCIArchive or FromOCILayout.
type Source struct {
	Kind SourceKind
	// Path is the archive file or layout directory.
	Path string
	// InsecureLoopback allows plain HTTP / unverified TLS for a registry
	// whose host is a loopback address; it is refused for any other host.
	InsecureLoopback bool
}

// FromStore uses an image already in the engine's store.
func FromStore() Source { return Source{Kind: SourceStore} }

// FromRegistry pulls by digest; insecureLoopback permits a plain-HTTP
// registry on 127.0.0.0/8, ::1 or localhost only.
func FromRegistry(insecureLoopback bool) Source {
	return Source{Kind: SourceRegistry, InsecureLoopback: insecureLoopback}
}

// FromOCIArchive loads the OCI archive file at path.
func FromOCIArchive(path string) Source { return Source{Kind: SourceOCIArchive, Path: path} }

// FromOCILayout loads the OCI layout directory at dir.
func FromOCILayout(dir string) Source { return Source{Kind: SourceOCILayout, Path: dir} }
