// Package pkgsource owns getting the DSHIO T0 inputs for a PACKAGE-SPEC
// (DSHIO/T 20 5.2–5.3): the raw registry metadata of one exact version
// (DSHIO/T 10 7.2), its tarball verified against the registry's sha512
// integrity, the patch file named by dsh.bundle.patch fetched from a
// public CDN or, when no CDN answers, from the same tarball (recorded as a
// variable condition), and the README. Sources are the npm registry, a
// local tarball or a local directory packed with npm pack; github: specs
// are parsed and refused as not fetchable here. Every size is bounded and
// tarballs are read as hostile input. DESIGN.md "T0 inputs".
package pkgsource
