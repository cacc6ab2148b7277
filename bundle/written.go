package bundle

// Written describes a bundle file as written to disk by a run or a
// replay.
type Written struct {
	Path string `json:"path"`
	// SHA256 is "sha256:<hex>" of the bundle file as written.
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// Declaration is the DSHIO/T 10 8.1 declaration with the bundle's
	// digest, or "" when the result supports none.
	Declaration string `json:"declaration,omitempty"`
}
