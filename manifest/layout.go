package manifest

import "strconv"

// Evidence roles and their file names (SPEC.md "Evidence file layout").
const (
	RoleStdout             = "stdout"
	RoleStderr             = "stderr"
	RoleMerged             = "merged"
	RoleProfilePackageJSON = "profile_package_json"

	RoleMetadata = "metadata"
	RolePatch    = "patch"
	RoleREADME   = "readme"
	RoleSchema   = "schema"
	// RoleEntryDeclaration is the TypeScript declaration of a patch
	// entry's options in the image's dsh (clause 5.1.6).
	RoleEntryDeclaration = "entry_declaration"
	// RoleTarball is the package tarball tested: the bytes T0 read and
	// T1 installed (a local source), or that the registry served and
	// T0 checked against dist.integrity (SPEC.md "The tested tarball").
	RoleTarball = "tarball"

	RoleDSHVersion  = "dsh_version"
	RoleNodeVersion = "node_version"
	RolePNPMVersion = "pnpm_version"
)

// StaticRoles are the roles a manifest's static.evidence may name, in
// layout order (SPEC.md "Evidence file layout"); writer and verifier
// both read this list.
var StaticRoles = []string{RoleMetadata, RolePatch, RoleREADME, RoleSchema, RoleEntryDeclaration, RoleTarball}

// EnvironmentRoles are the roles a manifest's environment.evidence may
// name (SPEC.md "Evidence file layout").
var EnvironmentRoles = []string{RoleDSHVersion, RoleNodeVersion, RolePNPMVersion}

// StageRoles are the roles an executed stage's evidence may name
// (SPEC.md "Evidence file layout"): every stage's streams, and T1's
// profile package.json. stage is a stage code ("T1"…"T4").
func StageRoles(stage string) []string {
	if stage == "T1" {
		return []string{RoleStdout, RoleStderr, RoleMerged, RoleProfilePackageJSON}
	}
	return []string{RoleStdout, RoleStderr, RoleMerged}
}

// StaticPath is where a T0 evidence file of the given role is stored.
func StaticPath(role string) string {
	switch role {
	case RoleMetadata:
		return "static/package.json"
	case RolePatch:
		return "static/patch.yml"
	case RoleREADME:
		return "static/README"
	case RoleSchema:
		return "static/entry-schema.json"
	case RoleEntryDeclaration:
		return "static/entry-options.d.ts"
	case RoleTarball:
		return "static/package.tgz"
	}
	return "static/" + role
}

// EnvironmentPath is where a version command's output is stored.
func EnvironmentPath(role string) string { return "environment/" + role + ".txt" }

// StagePath is where a stage's evidence file of the given role is stored;
// repetitions are numbered from 1, stage is a stage code ("T1"…"T4").
func StagePath(rep int, stage string, role string) string {
	name := role
	if role == RoleProfilePackageJSON {
		name = "profile-package.json"
	}
	return "repetitions/" + strconv.Itoa(rep) + "/" + stage + "/" + name
}
