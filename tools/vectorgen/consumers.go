package main

import (
	"fmt"
	"strings"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/verify"
)

// consumerLies are the lying vectors of SPEC.md "Consumers": evidence a
// dshaudit reader more lenient than the artifact's real consumer would
// read the writer's way.
func consumerLies() []lie {
	V := verify.ClassVerdictMismatch
	return []lie{
		{name: "profile_dependencies_repeated_empty", class: V, field: "repetitions[1].T1.status", verdict: "unstable",
			desc: "repetition 1's profile package.json has dependencies twice, the last one empty: JSON.parse, and so pnpm and dsh, see no dependency, and T1 is still recorded passed",
			edit: func(c *lieCtx) {
				c.replaceIn(c.stage(1, rules.T1).Evidence[manifest.RoleProfilePackageJSON], "\n  \"dsh\": {", "\n  \"dependencies\": {},\n  \"dsh\": {")
			}},
		{name: "profile_byte_order_mark", class: V, field: "repetitions[1].T1.status", verdict: "unstable",
			desc: "repetition 1's profile package.json starts with a byte order mark, which JSON.parse refuses and pnpm strips, and T1 is still recorded passed",
			edit: func(c *lieCtx) {
				p := c.stage(1, rules.T1).Evidence[manifest.RoleProfilePackageJSON]
				c.files[p] = append([]byte("\xef\xbb\xbf"), c.files[p]...)
			}},
		{name: "metadata_name_repeated", class: verify.ClassSubjectMismatch, field: "subject", also: []verify.Class{V}, verdict: "pass",
			desc: "static/package.json names the package twice, hello-dsh-plugin first and other-plugin last (JSON.parse, and so npm, reads the last), and T0 is still recorded conforming",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `"name": "hello-dsh-plugin",`, `"name": "hello-dsh-plugin", "name": "other-plugin",`)
			}},
		{name: "metadata_patch_lone_surrogate", class: V, field: "static.report.unresolvable", verdict: "pass",
			desc: "static/package.json's dsh.bundle.patch holds a lone surrogate, which JSON.parse keeps and a UTF-8 reader reads as U+FFFD, and T0 is still recorded conforming",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `"patch": "`, `"patch": "\ud800`)
			}},
		{name: "readme_exception_unclosed_comment", class: V, field: "static.report.clauses[15].status", verdict: "pass",
			desc: "package.json declares network and shell; the README's Permissions items sit in an HTML comment that is never closed, which no CommonMark renderer shows, and T0 is recorded as a reader that skips only closed comments derives it: 5.5.3 conforming",
			edit: func(c *lieCtx) {
				c.redLineWithREADME(exceptionREADME)
				reclaim(c.m, c.files)
				c.files[c.m.Static.Evidence[manifest.RoleREADME]] = []byte(strings.Replace(exceptionREADME, "## Permissions\n\n", "## Permissions\n\n<!--\n", 1))
			}},
		{name: "readme_exception_longer_fence", class: V, field: "static.report.clauses[15].status", verdict: "pass",
			desc: "the README's Permissions items sit inside a four-backtick fence that a three-backtick line does not close, and T0 is recorded as a reader closing it there derives it: 5.5.3 conforming",
			edit: func(c *lieCtx) {
				c.redLineWithREADME(exceptionREADME)
				reclaim(c.m, c.files)
				c.files[c.m.Static.Evidence[manifest.RoleREADME]] = []byte(strings.Replace(exceptionREADME, "## Permissions\n\n", "## Permissions\n\n````\n```\n", 1) + "````\n")
			}},
		{name: "dependency_relative_path", class: V, field: "static.report.clauses[11].status", verdict: "pass",
			desc: "package.json depends on ../kernel, which npm installs from the file system (npm-package-arg reads it as a directory), and 5.3.2 is still recorded conforming, as a reader of only file: and / derives it",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `"engines": {`, `"dependencies": {"my-kernel": "../kernel"},
  "engines": {`)
			}},
		{name: "dependency_workspace_protocol", class: V, field: "static.report.clauses[11].status", verdict: "pass",
			desc: "package.json depends on Workspace:^1.0.0, pnpm's local workspace protocol, and 5.3.2 is still recorded conforming",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `"engines": {`, `"dependencies": {"my-kernel": " Workspace:^1.0.0"},
  "engines": {`)
			}},
		{name: "permission_fullwidth_network", class: V, field: "static.report.clauses[15].status", verdict: "pass",
			desc: "dsh.permissions declares shell and network in full-width letters, which a consumer folding look-alikes reads as network, and 5.5.3 is still recorded conforming",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `"dsh": {"bundle"`, `"dsh": {"permissions": ["ｎｅｔｗｏｒｋ", "shell"], "bundle"`)
			}},
		{name: "files_patch_directory_only", class: V, field: "static.report.clauses[10].status", verdict: "pass",
			desc: "files lists cordis.patch.yml/ with a trailing slash, a directory-only pattern by which npm-packlist leaves the patch file out, and 5.3.1 is still recorded conforming",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `"cordis.patch.yml"]`, `"cordis.patch.yml/"]`)
			}},
		{name: "files_lib_prefix_only", class: V, field: "static.report.clauses[10].status", verdict: "pass",
			desc: "files lists library-notes.md, an item that merely starts with lib, instead of lib, so npm publishes no file of lib but the main entry, and 5.3.1 is still recorded conforming, as a reader of the criterion's \"an item starting with lib\" derives it",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `["lib", "cordis.patch.yml"]`, `["library-notes.md", "cordis.patch.yml"]`)
			}},
		{name: "files_lib_negated", class: V, field: "static.report.clauses[10].status", verdict: "pass",
			desc: "files lists lib and then !lib/**, which leaves lib's files out of what npm publishes, and 5.3.1 is still recorded conforming, as a reader ignoring negations of lib derives it",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `["lib", "cordis.patch.yml"]`, `["lib", "!lib/**", "cordis.patch.yml"]`)
			}},
	}
}

// exceptionREADME registers the red-line exception for network and shell
// (SPEC.md "README exception").
const exceptionREADME = "# hello-dsh-plugin\n\n## Permissions\n\n" +
	"- Why network: downloads release notes from the project's public API.\n" +
	"- Why shell: runs the local git binary to read the repository's tags.\n" +
	"- Data flow: from the project's API to the terminal; nothing local is uploaded.\n"

// redLineWithREADME declares network and shell in the metadata and adds
// readme as the bundle's README.
func (c *lieCtx) redLineWithREADME(readme string) {
	c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `"dsh": {"bundle"`, `"dsh": {"permissions": ["network", "shell"], "bundle"`)
	p := manifest.StaticPath(manifest.RoleREADME)
	c.m.Static.Evidence[manifest.RoleREADME] = p
	c.files[p] = []byte(readme)
}

// consumerVariants are the true variants of SPEC.md "Consumers": legal
// but unusual formatting that the consumer reads as the plain form, each
// honestly derived, which must verify.
var consumerVariants = []struct {
	name, desc, verdict string
	edit                func(c *lieCtx)
}{
	{"variant_profile_escaped_repeated", "valid: repetition 1's profile package.json spells dependencies with an escape and repeats its member with the same bytes, which JSON.parse reads as the plain form", "pass",
		func(c *lieCtx) {
			p := c.stage(1, rules.T1).Evidence[manifest.RoleProfilePackageJSON]
			c.replaceIn(p, `"dependencies": {`, `"d\u0065pendencies": {`)
			c.replaceIn(p, `"hello-dsh-plugin": "file:/pkgs/hello-dsh-plugin-1.0.0.tgz"`, `"hello-dsh-plugin": "file:/pkgs/hello-dsh-plugin-1.0.0.tgz", "hello-dsh-plugin": "file:/pkgs/hello-dsh-plugin-1.0.0.tgz"`)
		}},
	{"variant_readme_setext_escaped", "valid: package.json declares network and shell; the README opens its Permissions section with a setext heading, bolds its labels, spells a colon as a character reference and breaks a line with a lone CR, which a CommonMark renderer shows as the plain form", "pass",
		func(c *lieCtx) {
			c.redLineWithREADME(strings.NewReplacer("## Permissions\n", "Permissions\n===========\n", "- Why network:", "- **Why network:**", "- Why shell:", "- Why shell&#58;", "tags.\n- Data", "tags.\r- Data").Replace(exceptionREADME))
		}},
	{"variant_metadata_files_anchored", "valid: files lists /cordis.patch.yml, anchored at the package root, which npm-packlist reads as cordis.patch.yml", "pass",
		func(c *lieCtx) {
			c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `"cordis.patch.yml"]`, `"/cordis.patch.yml"]`)
		}},
	{"variant_metadata_files_lib_spelled", "valid: files publishes lib as lib/** and ./library-notes.md beside it, and negates only a file of lib that is not the entry, which npm-packlist reads as publishing lib, and 5.3.1 is conforming", "pass",
		func(c *lieCtx) {
			c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `["lib", "cordis.patch.yml"]`, `["./library-notes.md", "lib/**", "!lib/notes.txt", "cordis.patch.yml"]`)
		}},
	{"variant_metadata_dependency_scp_git", "valid: package.json depends on git@github.com:user/repo.git#v1.2.0, an scp-style git spec that npm-package-arg reads as a GitHub repository, not a local path, and 5.3.2 is conforming", "pass",
		func(c *lieCtx) {
			c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `"engines": {`, `"dependencies": {"my-kernel": "git@github.com:user/repo.git#v1.2.0"},
  "engines": {`)
		}},
	{"variant_metadata_repeated_same", "valid: static/package.json repeats its version with the same bytes and is written with tabs and CRLF line ends, which JSON.parse reads as the plain form", "pass",
		func(c *lieCtx) {
			p := c.m.Static.Evidence[manifest.RoleMetadata]
			c.replaceIn(p, `"version": "1.0.0",`, `"version": "1.0.0", "version": "1.0.0",`)
			c.replaceIn(p, "\n", "\r\n\t")
		}},
}

// variants writes the true variants.
func (g *gen) variants() error {
	for _, v := range consumerVariants {
		c, err := lieBase(g.pass)
		if err != nil {
			return err
		}
		v.edit(c)
		c.repack()
		reclaim(c.m, c.files)
		c.m.Files = bundle.FileList(c.files)
		sc, err := g.sign(c.m, c.files, g.signer)
		if err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
		if err := g.emit(v.name, v.desc, sc, "verified", nil, v.verdict); err != nil {
			return err
		}
	}
	return nil
}
