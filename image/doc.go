// Package image owns the sandbox image: it builds the OCI image that holds
// real dsh (DSHIO/T 21 clauses 5.1.1 and 5.1.2) deterministically from
// pinned inputs — a base root filesystem identified by its own digest, Node
// and pnpm from npm tarballs identified by their integrity strings, and dsh
// installed with pnpm's time-based resolution — and writes it as an OCI
// layout, an OCI archive, to a registry, or into podman.
//
// Two builds from the same inputs give the same manifest digest: every layer
// is a tar this package writes itself (sorted entries, fixed times, numeric
// owners, no user or group names), the timestamps and host paths pnpm writes
// into the install are normalised, and the config carries a fixed creation
// time. The rules are described in DESIGN.md "Sandbox image".
package image
