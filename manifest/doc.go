// Package manifest owns dshaudit's wire format: the types of
// manifest.json (SPEC.md "Manifest fields"), their canonical codec
// (SPEC.md "Canonical manifest encoding") and structural validation, the
// evidence roles and the paths they are stored at (SPEC.md "Evidence
// file layout"), the rules for evidence paths, and the suffix of a
// bundle's file name.
//
// It imports nothing else of dshaudit, so that the format is defined in
// one place: package bundle writes and reads the archive that carries a
// manifest, and package assemble converts rule results (rules,
// rules/static) to and from these types.
package manifest
