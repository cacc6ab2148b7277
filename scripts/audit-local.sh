#!/usr/bin/env bash
# Runs the steps of the reusable audit workflow (.github/workflows/audit.yml)
# on this machine, with the environment GitHub Actions gives a called
# workflow's job: the GITHUB_* variables of the caller (a plugin's
# release), RUNNER_TEMP, a step-summary and an output file, and
# ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN pointing at the emulation of
# the token request by scripts/setup-sigstore.sh's OIDC issuer, whose
# claims name this checkout as dshaudit/dshaudit's audit workflow at tag
# $AUDIT_LOCAL_TAG (default v0.0.0-local) and commit HEAD.
#
#   scripts/audit-local.sh OUTDIR self   only the first step, read from
#                                        audit.yml: its outputs must name
#                                        this repository and commit (seconds)
#   INPUT_PACKAGE=SPEC AUDIT_IMAGE=REF scripts/audit-local.sh OUTDIR
#                                        every step: build, run --keyless,
#                                        verify under the runner policy,
#                                        summary and report (minutes;
#                                        AUDIT_IMAGE an image built from
#                                        this checkout's lock)
#   INPUT_PACKAGE=SPEC AUDIT_IMAGE_ARCHIVE=FILE scripts/audit-local.sh OUTDIR
#                                        the same with image-archive: true,
#                                        FILE standing for the archive the
#                                        release publishes (checked against
#                                        image/sandbox.ref)
#
# The checkout step is this working tree (its HEAD is the commit the
# token names); the upload step is a check of the files it would upload.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
out=${1:?usage: scripts/audit-local.sh OUTDIR [self]}
mode=${2:-all}
mkdir -p "$out"
out=$(realpath "$out")
rm -rf "${out:?}"/*
fail() {
	echo "audit-local: $*" >&2
	exit 1
}
cache=${DSHAUDIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshaudit}
env=$cache/sigstore/run/sigstore.env
[[ -f $env ]] || fail "$env is missing (scripts/setup-sigstore.sh start)"
for k in OIDC_ISSUER ACTIONS_URL ACTIONS_TOKEN TRUSTED_ROOT SIGNING_CONFIG; do
	v=$(sed -n "s/^DSHAUDIT_SIGSTORE_$k=//p" "$env")
	[[ -n $v ]] || fail "$env has no DSHAUDIT_SIGSTORE_$k"
	printf -v "DSHAUDIT_SIGSTORE_$k" '%s' "$v"
done

tag=${AUDIT_LOCAL_TAG:-v0.0.0-local}
sha=$(git rev-parse HEAD)
wfref=dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/$tag
caller=acme/hello-dsh-plugin/.github/workflows/release.yml@refs/tags/v1.0.0
export GITHUB_ACTIONS=true CI=true RUNNER_OS=Linux RUNNER_ARCH=X64
export GITHUB_WORKSPACE=$out/workspace GITHUB_REPOSITORY=acme/hello-dsh-plugin
export GITHUB_SERVER_URL=https://github.com GITHUB_EVENT_NAME=release
export GITHUB_REF=refs/tags/v1.0.0 GITHUB_REF_NAME=v1.0.0 GITHUB_REF_TYPE=tag
export GITHUB_RUN_ID=1 GITHUB_RUN_ATTEMPT=1 GITHUB_ACTOR=acme GITHUB_WORKFLOW_REF=$caller
export RUNNER_TEMP=$out/runner-temp GITHUB_STEP_SUMMARY=$out/step-summary.md GITHUB_OUTPUT=$out/output
mkdir -p "$GITHUB_WORKSPACE" "$RUNNER_TEMP"
: >"$GITHUB_STEP_SUMMARY"
: >"$GITHUB_OUTPUT"
# What GitHub sets for the called workflow's job with id-token: write:
# workflow_ref is the caller's, job_workflow_ref this workflow's.
export ACTIONS_ID_TOKEN_REQUEST_URL="$DSHAUDIT_SIGSTORE_ACTIONS_URL&repository=$GITHUB_REPOSITORY&repository_owner=acme&workflow_ref=$caller&job_workflow_ref=$wfref&job_workflow_sha=$sha&event_name=release&run_id=$GITHUB_RUN_ID&runner_environment=github-hosted&sub=repo:$GITHUB_REPOSITORY:ref:$GITHUB_REF"
export ACTIONS_ID_TOKEN_REQUEST_TOKEN=$DSHAUDIT_SIGSTORE_ACTIONS_TOKEN
unset SIGSTORE_ID_TOKEN

# Step "Find this workflow's repository and commit", as audit.yml has it:
# the run block after "id: self", its indentation removed.
awk '/^ +id: self$/ {f=1; next} f && /^ +run: \|$/ {r=1; match($0, /^ +/); ind=RLENGTH + 2; next}
	r && /^ +- name:/ {exit} r {print substr($0, ind + 1)}' .github/workflows/audit.yml >"$out/self.sh"
[[ -s $out/self.sh ]] || fail "no run block after id: self in .github/workflows/audit.yml"
bash "$out/self.sh" || fail "the step \"Find this workflow's repository and commit\" failed"
self() { sed -n "s/^$1=//p" "$GITHUB_OUTPUT" | tail -n 1; }
[[ $(self repository) == dshaudit/dshaudit && $(self sha) == "$sha" && $(self version) == "$tag" &&
	$(self workflow) == "https://github.com/$wfref" ]] || fail "step outputs $(tr '\n' ' ' <"$GITHUB_OUTPUT"), want dshaudit/dshaudit at $sha, $tag"
echo "audit-local: self: $(tr '\n' ' ' <"$GITHUB_OUTPUT")"
[[ $mode == self ]] && { echo "audit-local: ok"; exit 0; }

# Step "Build dshaudit", in this checkout.
go build -trimpath -ldflags "-X main.version=$(self version)" -o "$RUNNER_TEMP/bin/dshaudit" ./cmd/dshaudit
# Step "Test, verify, summarise", with the emulation's Sigstore.
: "${INPUT_PACKAGE:?the full emulation needs INPUT_PACKAGE (NAME@VERSION)}"
if [[ -n ${AUDIT_IMAGE_ARCHIVE:-} ]]; then
	# image-archive: true, the release's archive a local copy.
	export INPUT_IMAGE_ARCHIVE=true AUDIT_IMAGE_ARCHIVE AUDIT_IMAGE=""
else
	: "${AUDIT_IMAGE:?the full emulation needs AUDIT_IMAGE (an image built from this checkout: dshaudit image build --load) or AUDIT_IMAGE_ARCHIVE}"
	export INPUT_IMAGE_ARCHIVE=false AUDIT_IMAGE
fi
export DSHAUDIT=$RUNNER_TEMP/bin/dshaudit INPUT_PACKAGE
export INPUT_T1_WORKSPACE_ROOT=true INPUT_VERIFIER_ID=https://github.com/acme/hello-dsh-plugin/actions
export AUDIT_WORKFLOW=$(self workflow) AUDIT_TRUSTED_ROOT=$DSHAUDIT_SIGSTORE_TRUSTED_ROOT
export AUDIT_SIGNING_CONFIG=$DSHAUDIT_SIGSTORE_SIGNING_CONFIG AUDIT_OIDC_ISSUER=$DSHAUDIT_SIGSTORE_OIDC_ISSUER
bash scripts/audit-workflow.sh || fail "the step \"Test, verify, summarise\" failed"
cat "$GITHUB_STEP_SUMMARY"
[[ $(self verified) == true ]] || fail "verify under the runner policy did not pass"
# Step "Upload the evidence": the four files, and a third party's checks.
files=$RUNNER_TEMP/dshaudit-out
bundle=$(ls "$files"/*.dshaudit.tar.zst)
[[ $(ls "$files" | wc -l) == 4 ]] || fail "$(ls "$files" | wc -l) files to upload, want 4"
policy=(--trusted-root "$DSHAUDIT_SIGSTORE_TRUSTED_ROOT" --certificate-audit-workflow "$AUDIT_WORKFLOW" --certificate-oidc-issuer "$DSHAUDIT_SIGSTORE_OIDC_ISSUER")
# Read whole before the search: grep -q stopping at the match would cut
# verify off with SIGPIPE, a failure under pipefail.
said=$("$DSHAUDIT" verify "$bundle" "${policy[@]}") || fail "verify under the runner policy exited $?"
grep -q "^produced by:  the audit workflow $AUDIT_WORKFLOW" <<<"$said" || fail "verify does not say the audit workflow produced it"
"$DSHAUDIT" verify-summary "$files"/*.vsa.sigstore.json "${policy[@]}" --artifact "$bundle" \
	--verifier-id "$INPUT_VERIFIER_ID" --level DSHIO_AUDIT_WORKFLOW >/dev/null || fail "the summary does not verify under the runner policy"
echo "audit-local: ok"
