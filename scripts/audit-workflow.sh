#!/usr/bin/env bash
# The steps of the reusable audit workflow (.github/workflows/audit.yml)
# after dshaudit is built from the workflow's own commit: build the
# sandbox image from this checkout's committed lock, test the package
# with `dshaudit run --keyless` (the job's OIDC token, whose
# job_workflow_ref is this workflow), verify the bundle under the runner
# policy (SPEC.md "Runner policy") while writing the keyless
# summary and the job summary, and write the HTML report, all into
# $RUNNER_TEMP/dshaudit-out for the upload step.
#
#   DSHAUDIT                  the dshaudit binary
#   INPUT_PACKAGE             NAME@VERSION, a published package (required)
#   INPUT_T1_WORKSPACE_ROOT   "true": run T1 with --t1-workspace-root
#                             (a recorded deviation)
#   INPUT_VERIFIER_ID         the summary's verifier.id
#   INPUT_IMAGE_ARCHIVE       "true": load the sandbox image from the OCI
#                             archive dshaudit's release at the workflow's
#                             tag publishes, checked against the digest
#                             image/sandbox.ref commits, instead of building it
#   AUDIT_WORKFLOW            https://github.com/OWNER/REPO/.github/workflows/audit.yml@REF,
#                             the job_workflow_ref the certificate will name
#
# Not workflow inputs, for scripts/audit-local.sh's emulation only (the
# loopback Sigstore of scripts/setup-sigstore.sh): AUDIT_TRUSTED_ROOT,
# AUDIT_SIGNING_CONFIG, AUDIT_OIDC_ISSUER, AUDIT_IMAGE (an image already
# built from this checkout's lock), AUDIT_IMAGE_ARCHIVE (with
# INPUT_IMAGE_ARCHIVE: a local copy of the release's archive).
set -euo pipefail

die() {
	echo "::error::dshaudit audit: $*" >&2
	exit "${2:-2}"
}
: "${DSHAUDIT:?DSHAUDIT must name the dshaudit binary}"
: "${RUNNER_TEMP:?RUNNER_TEMP is not set (not in GitHub Actions?)}"
: "${GITHUB_STEP_SUMMARY:?GITHUB_STEP_SUMMARY is not set}"
: "${AUDIT_WORKFLOW:?AUDIT_WORKFLOW is not set}"
pkg=${INPUT_PACKAGE:-}
# A registry package at an exact version: nothing the caller supplies
# runs outside the sandbox's stages.
[[ $pkg =~ ^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*@[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]*)?$ ]] ||
	die "package: want NAME@VERSION of a published package, an exact version; got '$pkg'"
out=$RUNNER_TEMP/dshaudit-out
rm -rf "$out"
mkdir -p "$out"

# Keyless, with this job's identity; verified against Sigstore's
# public-good trusted root (or the emulation's).
issuer=${AUDIT_OIDC_ISSUER:-https://token.actions.githubusercontent.com}
root=${AUDIT_TRUSTED_ROOT:-}
if [[ -z $root ]]; then
	root=$RUNNER_TEMP/trusted_root.json
	curl -fsSL --retry 3 -o "$root" https://raw.githubusercontent.com/sigstore/root-signing/main/targets/trusted_root.json ||
		die "cannot fetch Sigstore's public-good trusted root" 3
fi
sign=(--keyless)
[[ -n ${AUDIT_SIGNING_CONFIG:-} ]] && sign+=(--signing-config "$AUDIT_SIGNING_CONFIG")
if [[ $AUDIT_WORKFLOW == *@refs/tags/* ]]; then
	trust=(--trusted-root "$root" --certificate-audit-workflow "$AUDIT_WORKFLOW" --certificate-oidc-issuer "$issuer")
else
	echo "::warning::dshaudit audit: $AUDIT_WORKFLOW is not at a release tag: its evidence will not meet a runner policy" >&2
	trust=(--trusted-root "$root" --certificate-identity "$AUDIT_WORKFLOW" --certificate-oidc-issuer "$issuer")
fi

# The sandbox image, from this checkout's committed lock, or the archive
# of this tag's release checked against the digest the checkout commits
# (the caller chooses neither); run checks it by digest.
image=${AUDIT_IMAGE:-}
load=()
if [[ -z $image && ${INPUT_IMAGE_ARCHIVE:-false} == true ]]; then
	image=$(<image/sandbox.ref)
	archive=${AUDIT_IMAGE_ARCHIVE:-}
	if [[ -z $archive ]]; then
		[[ $AUDIT_WORKFLOW == *@refs/tags/* ]] || die "image-archive: $AUDIT_WORKFLOW is not at a release tag, which has no published archive" 3
		tagged=${image%@*}
		url=${AUDIT_WORKFLOW%%/.github/workflows/*}/releases/download/${AUDIT_WORKFLOW##*@refs/tags/}/$(basename "${tagged%:*}")-${tagged##*:}.oci.tar
		archive=$RUNNER_TEMP/sandbox.oci.tar
		curl -fsSL --retry 3 -o "$archive" "$url" || die "cannot download $url" 3
	fi
	load=(--image-archive "$(realpath "$archive")")
elif [[ -z $image ]]; then
	image=$("$DSHAUDIT" image build --load) || die "image build failed" 3
fi
[[ $image == *@sha256:* ]] || die "the image is not named by digest: $image" 3

args=()
[[ ${INPUT_T1_WORKSPACE_ROOT:-true} == true ]] && args+=(--t1-workspace-root)
set +e
# run names the bundle NAME-VERSION.dshaudit.tar.zst in its directory.
(cd "$out" && "$DSHAUDIT" run "$pkg" --image "$image" "${load[@]}" "${sign[@]}" --progress never "${args[@]}")
rc=$?
set -e
bundle=$(ls "$out"/*.dshaudit.tar.zst 2>/dev/null | head -n 1)
[[ -n $bundle ]] || die "dshaudit run wrote no bundle (exit $rc)" "$rc"
# 1 is a bundle whose verdict is not pass: still evidence.
[[ $rc == 0 || $rc == 1 ]] || die "dshaudit run failed (exit $rc)" "$rc"

name=$(basename "$bundle" .dshaudit.tar.zst)
set +e
"$DSHAUDIT" verify "$bundle" "${trust[@]}" --summary "$out/$name.vsa.sigstore.json" --summary-dsse "$out/$name.vsa.dsse.json" \
	"${sign[@]}" --summary-verifier-id "${INPUT_VERIFIER_ID:-https://dshaudit.dev/verifier}" --step-summary "$GITHUB_STEP_SUMMARY"
verified=$?
set -e
[[ $verified == 0 || $verified == 1 ]] || die "dshaudit verify could not run (exit $verified)" "$verified"
"$DSHAUDIT" report "$bundle" "${trust[@]}" -o "$out/$name.report.html" || [[ $? == 1 ]] || die "dshaudit report failed"
{
	echo
	echo "Check it: \`dshaudit verify $(basename "$bundle") --trusted-root trusted_root.json --certificate-audit-workflow '$AUDIT_WORKFLOW' --certificate-oidc-issuer '$issuer'\`"
} >>"$GITHUB_STEP_SUMMARY"
if [[ -n ${GITHUB_OUTPUT:-} ]]; then
	{
		echo "verified=$([[ $verified == 0 ]] && echo true || echo false)"
		echo "artifact=dshaudit-evidence-$name"
	} >>"$GITHUB_OUTPUT"
fi
