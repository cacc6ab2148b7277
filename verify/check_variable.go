package verify

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// The variable conditions (SPEC.md "Recorded conditions", DSHIO/T 21
// 3.2) are a closed set of names, each with the form of its value: the
// conditions a run is allowed to vary and records item by item. A name
// outside the set, a name recorded twice or a value not of its name's
// form is input-invalid, so that nothing that says the run was not the
// standard's (a tarball rebuilt from git, a container shared by every
// command) stands beside a usable result as free text.

var (
	urlWord        = `https?://[^\s()]+`
	reEngine       = lazyregexp.New(`^[a-z][a-z0-9-]* v?[0-9][0-9A-Za-z.+~_-]*( --runtime [a-z][a-z0-9-]*)?$`)
	reKernel       = lazyregexp.New(`^[0-9][0-9A-Za-z._+~-]*$`)
	reCPUs         = lazyregexp.New(`^[1-9][0-9]{0,5}$`)
	reLoad         = lazyregexp.New(`^[0-9]+\.[0-9]+ [0-9]+\.[0-9]+ [0-9]+\.[0-9]+$`)
	reT1Registry   = lazyregexp.New(`^` + urlWord + ` \(npm_config_registry, the registry T0 used\)$`)
	reRegistry     = lazyregexp.New(`^` + urlWord + ` \(from (--registry|npm default|npm default \(npm not installed\)|environment npm_config_registry|npm config)\)$`)
	reTarballURL   = lazyregexp.New(`^` + urlWord + ` \(dist\.tarball ` + urlWord + ` rewritten to the configured registry, as npm's replace-registry-host=npmjs does\)$`)
	reLocalTarball = lazyregexp.New(`^tarball (\S(?:.*\S)?(?i:\.(?:tgz|tar\.gz|tar)))$`)
	reLocalDir     = lazyregexp.New(`^directory (\S(?:.*\S)?) packed with npm pack --ignore-scripts \(npm [0-9][0-9A-Za-z.+-]*\)$`)
	rePatchURL     = lazyregexp.New(`^` + urlWord + `$`)
	rePatchTarball = lazyregexp.New(`^tarball \((local source: not published, so on no CDN|no CDN configured|no CDN served the file: .+|no CDN reachable: .+)\)$`)
	reSHA256Ref    = lazyregexp.New(`^sha256:[0-9a-f]{64}$`)
	reConverted    = lazyregexp.New(`^\S+ capture, converted by \S+$`)
	reTruncated    = lazyregexp.New(`^repetition ([1-9][0-9]*) (T[1-4]) output truncated$`)
	quoted         = `"(?:[^"\\]|\\.)*"`
	reCleanPath    = lazyregexp.New(`^\S(?:.*\S)?$`)
)

// Variable-condition names: the runner's (runner/conditions.go,
// runner/runner.go, runner/sequence.go), T0's (pkgsource/fetch.go,
// runner/resolve.go), replay's (replay/compare, TestReplayConditionNames)
// and the capture note of the vectors (tools/vectorgen).
const (
	varSpecGiven        = "package spec given"
	varPackageSource    = "package source"
	varEngine           = "container engine"
	varKernel           = "host kernel"
	varCPUs             = "host CPUs"
	varLoadStart        = "host load average (1, 5, 15 min) at start"
	varLoadEnd          = "host load average (1, 5, 15 min) at end"
	varT1Registry       = "T1 registry"
	varT1CA             = "T1 extra CA bundle"
	varRegistry         = "registry"
	varResolution       = "version_resolution"
	varMetadataSource   = "metadata_source"
	varTarballURL       = "tarball_url"
	varLocalSource      = "local_source"
	varPatchSource      = "patch_source"
	varReplayOf         = "replay_of"
	varReplayOfStatus   = "replay_of_unverified_bundle"
	varCapture          = "source"
	t1RegistryInImage   = "pnpm's default in the image (for the local package's dependencies)"
	metadataFromTarball = "package.json inside the tarball (local source; a registry adds fields to its version object)"
)

// checkVariableConditions holds each variable condition to its name's
// form (SPEC.md "Recorded conditions").
func (vf *verification) checkVariableConditions() {
	seen := map[string]bool{}
	for i, c := range vf.m.Conditions.Variable {
		ptr := fmt.Sprintf("/conditions/variable/%d", i)
		if seen[c.Name] {
			vf.rep.addf(ClassInputInvalid, ptr+"/name", inputClause, "%q is recorded twice; a variable condition is one item", c.Name)
			continue
		}
		seen[c.Name] = true
		known, why := vf.variableProblem(c.Name, c.Value)
		switch {
		case !known:
			vf.rep.addf(ClassInputInvalid, ptr+"/name", inputClause, "%q is not a variable condition SPEC.md \"Recorded conditions\" names; a condition of the run other than the standard's is recorded as a deviation", c.Name)
		case why != "":
			vf.rep.addf(ClassInputInvalid, ptr+"/value", inputClause, "%s %q: %s", c.Name, clipText(c.Value), why)
		}
	}
}

// variableProblem reports whether name is a variable condition, and
// what is wrong with its value ("" when nothing is).
func (vf *verification) variableProblem(name, v string) (known bool, why string) {
	m := vf.m
	form := func(ok bool, what string) (bool, string) {
		if ok {
			return true, ""
		}
		return true, "not " + what
	}
	switch name {
	case varSpecGiven:
		return form(reCleanPath.MatchString(v), "a package spec (not empty, no white space around it)")
	case varPackageSource:
		if !slices.Contains([]string{"registry", "github", "local-tarball", "local-dir"}, v) {
			return true, "not registry, github, local-tarball or local-dir"
		}
		if m.Subject.Source != "" && v != m.Subject.Source {
			return true, fmt.Sprintf("subject.source is %q", m.Subject.Source)
		}
		return true, ""
	case varEngine:
		return form(reEngine.MatchString(v), "an engine and its version (podman 5.4.2, docker 27.3.1, with an optional --runtime NAME)")
	case varKernel:
		return form(v == "unknown" || reKernel.MatchString(v), "a kernel release (6.1.0-28-amd64) or unknown")
	case varCPUs:
		return form(reCPUs.MatchString(v), "a positive count")
	case varLoadStart, varLoadEnd:
		return form(v == "unknown" || reLoad.MatchString(v), "three load averages (0.52 0.61 0.70) or unknown")
	case varT1Registry:
		return form(v == t1RegistryInImage || reT1Registry.MatchString(v), "a registry URL followed by (npm_config_registry, the registry T0 used), or "+strconv.Quote(t1RegistryInImage))
	case varT1CA:
		return form(reCleanPath.MatchString(v), "a path")
	case varRegistry:
		return form(reRegistry.MatchString(v), "a registry URL followed by where its setting came from ((from --registry), (from npm config), …)")
	case varResolution:
		ver := regexp.QuoteMeta(strconv.Quote(m.Subject.Version))
		bare := regexp.QuoteMeta(m.Subject.Version)
		re := regexp.MustCompile(`^(no "latest" dist-tag; )?(exact version ` + ver + `|dist-tag ` + quoted + ` → ` + bare + `|range ` + quoted + ` → ` + bare + ` \((the "latest" dist-tag satisfies it|highest satisfying)\))$`)
		return form(re.MatchString(v), "how "+m.Subject.Version+" was resolved (exact version, dist-tag or range → the subject's version)")
	case varMetadataSource:
		return form(v == "registry version object versions["+m.Subject.Version+"], raw bytes" || v == metadataFromTarball,
			"the registry's version object of the subject's version, or the tarball's package.json")
	case varTarballURL:
		return form(reTarballURL.MatchString(v), "the tarball URL and the dist.tarball it rewrote")
	case varLocalSource:
		switch {
		case reLocalTarball.MatchString(v):
			if m.Subject.Source != "local-tarball" {
				return true, fmt.Sprintf("a local tarball, but subject.source is %q", m.Subject.Source)
			}
		case reLocalDir.MatchString(v):
			if m.Subject.Source != "local-dir" {
				return true, fmt.Sprintf("a local directory, but subject.source is %q", m.Subject.Source)
			}
		default:
			return true, "a local tarball (tarball PATH.tgz) or a directory packed with npm pack (directory PATH packed with npm pack --ignore-scripts (npm VERSION))"
		}
		return true, ""
	case varPatchSource:
		return form(rePatchURL.MatchString(v) || rePatchTarball.MatchString(v), "the URL the patch was fetched from, or tarball (why no CDN served it)")
	case varReplayOf:
		return form(reSHA256Ref.MatchString(v), "sha256:<64 lowercase hex digits>")
	case varReplayOfStatus:
		return form(slices.Contains(Statuses, Status(v)) && Status(v) != StatusVerified, "a verification status other than verified")
	case varCapture:
		return form(reConverted.MatchString(v), "PATH capture, converted by PROGRAM")
	}
	if sm := reTruncated.FindStringSubmatch(name); sm != nil {
		n, _ := strconv.Atoi(sm[1])
		if n > len(m.Repetitions) {
			return true, fmt.Sprintf("names repetition %d of %d", n, len(m.Repetitions))
		}
		re := regexp.MustCompile(`^repetition ` + sm[1] + ` ` + sm[2] + `: output beyond the capture limit was dropped \(stdout (true|false), stderr (true|false)\)$`)
		sub := re.FindStringSubmatch(v)
		if sub == nil || sub[1] == "false" && sub[2] == "false" {
			return true, "not which of the stage's streams lost output (repetition N TS: output beyond the capture limit was dropped (stdout BOOL, stderr BOOL))"
		}
		return true, ""
	}
	return false, ""
}
