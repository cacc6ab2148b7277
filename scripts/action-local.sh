#!/usr/bin/env bash
# Runs the steps of the GitHub Action (action.yml) on this machine, with
# the environment GitHub Actions gives a release job: the GITHUB_*
# variables, a release event, RUNNER_TEMP, a step-summary file and an
# output file. `gh release upload` is replaced by a recorder that checks
# what would have been uploaded. Key-signed (testdata/vectors/keys), or
# keyless with ACTION_LOCAL_KEYLESS=1: the Sigstore services of
# scripts/setup-sigstore.sh start sign, ACTIONS_ID_TOKEN_REQUEST_URL and
# _TOKEN pointing at its OIDC issuer's emulation of the GitHub Actions
# token request, whose claims name this job's workflow.
#
#   scripts/action-local.sh OUTDIR          publish the pass vector's bundle
#                                           (no container: seconds; keyless,
#                                           the summary is signed keylessly)
#   INPUT_PACKAGE=SPEC INPUT_IMAGE=REF scripts/action-local.sh OUTDIR
#                                           the full run of SPEC (1–2 min)
#   ACTION_LOCAL_AUDIT_EVIDENCE=DIR scripts/action-local.sh OUTDIR
#                                           attach the reusable audit
#                                           workflow's evidence (DIR, the
#                                           files scripts/audit-local.sh
#                                           uploads), checked under the
#                                           runner policy (its workflow
#                                           ACTION_LOCAL_AUDIT_WORKFLOW,
#                                           default audit-local.sh's)
#
# It first lints action.yml, examples/release.yml and the reusable audit
# workflow (.github/workflows/audit.yml) with actionlint
# ($ACTIONLINT, default the one scripts/setup-anchors.sh builds; the
# example using this checkout's action as ./). It prints the job summary
# and exits non-zero if a step fails or the upload is not what it must be.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
out=${1:?usage: scripts/action-local.sh OUTDIR}
mkdir -p "$out"
out=$(realpath "$out")
rm -rf "${out:?}"/*

fail() {
	echo "action-local: $*" >&2
	exit 1
}
cache=${DSHAUDIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshaudit}
actionlint=${ACTIONLINT:-$cache/tools/actionlint-v1.7.12/actionlint}
[[ -x $actionlint ]] || fail "$actionlint is missing (scripts/setup-anchors.sh builds it; or set ACTIONLINT)"

# Lint: action.yml is checked through a workflow that uses it as ./.
lint=$out/lint
mkdir -p "$lint/.github/workflows"
cp action.yml "$lint/"
for ex in release release-own-run; do
	sed 's|uses: dshaudit/dshaudit@v[0-9]*$|uses: ./|' "examples/$ex.yml" >"$lint/.github/workflows/$ex.yml"
	grep -q 'uses: ./$' "$lint/.github/workflows/$ex.yml" || fail "examples/$ex.yml does not use dshaudit/dshaudit@vN"
	"$actionlint" "examples/$ex.yml" || fail "actionlint found problems in examples/$ex.yml"
done
(cd "$lint" && git init -q . && "$actionlint") || fail "actionlint found problems"
"$actionlint" .github/workflows/audit.yml || fail "actionlint found problems in .github/workflows/audit.yml"

# The environment of a release job.
export GITHUB_ACTIONS=true CI=true RUNNER_OS=Linux RUNNER_ARCH=X64
export GITHUB_WORKSPACE=$out/workspace GITHUB_REPOSITORY=acme/hello-dsh-plugin
export GITHUB_SERVER_URL=https://github.com GITHUB_EVENT_NAME=release
export GITHUB_REF=refs/tags/v1.0.0 GITHUB_REF_NAME=v1.0.0 GITHUB_REF_TYPE=tag
export GITHUB_RUN_ID=1 GITHUB_RUN_ATTEMPT=1 GITHUB_ACTOR=acme GITHUB_WORKFLOW="dshaudit evidence"
export GITHUB_WORKFLOW_REF=acme/hello-dsh-plugin/.github/workflows/release.yml@refs/tags/v1.0.0
export GITHUB_ACTION_PATH=$repo GITHUB_ACTION_REF=local
export RUNNER_TEMP=$out/runner-temp GITHUB_STEP_SUMMARY=$out/step-summary.md GITHUB_OUTPUT=$out/output
export GITHUB_EVENT_PATH=$out/event.json
mkdir -p "$GITHUB_WORKSPACE" "$RUNNER_TEMP"
: >"$GITHUB_STEP_SUMMARY"
: >"$GITHUB_OUTPUT"
echo '{"action":"published","release":{"tag_name":"v1.0.0","name":"v1.0.0"}}' >"$GITHUB_EVENT_PATH"

# The recorder in place of gh.
recorded=$out/uploaded
mkdir -p "$out/bin" "$recorded"
cat >"$out/bin/gh" <<REC
#!/usr/bin/env bash
set -euo pipefail
echo "\$*" >>"$out/gh-calls"
[[ \$1 == release && \$2 == upload && \$3 == v1.0.0 ]] || { echo "gh recorder: unexpected call: \$*" >&2; exit 1; }
shift 3
for f in "\$@"; do
	[[ \$f == --clobber ]] && continue
	[[ -s \$f ]] || { echo "gh recorder: \$f is missing or empty" >&2; exit 1; }
	cp "\$f" "$recorded/"
done
REC
chmod +x "$out/bin/gh"
export PATH=$out/bin:$PATH

# Step "Install dshaudit" (action.yml), from this checkout.
(cd "$GITHUB_ACTION_PATH" && go build -trimpath -ldflags "-X main.version=${GITHUB_ACTION_REF}" -o "$RUNNER_TEMP/bin/dshaudit" ./cmd/dshaudit)
"$RUNNER_TEMP/bin/dshaudit" --version

# Step "Test, verify, summarise and upload", with the inputs as
# action.yml maps them.
export DSHAUDIT=$RUNNER_TEMP/bin/dshaudit GH_TOKEN=recorder
export INPUT_SIGNING_KEY INPUT_PUBLIC_KEY INPUT_KEYLESS INPUT_VERIFIER_ID=https://github.com/acme/hello-dsh-plugin/actions
export INPUT_AUDIT_EVIDENCE="" INPUT_AUDIT_WORKFLOW=""
level=DSHIO_DYNAMIC_PASS
if [[ ${ACTION_LOCAL_KEYLESS:-} == 1 || -n ${ACTION_LOCAL_AUDIT_EVIDENCE:-} ]]; then
	env=$cache/sigstore/run/sigstore.env
	[[ -f $env ]] || fail "keyless: $env is missing (scripts/setup-sigstore.sh start)"
	# Its values are read, not sourced (one holds spaces unquoted).
	for k in OIDC_ISSUER ACTIONS_URL ACTIONS_TOKEN TRUSTED_ROOT SIGNING_CONFIG; do
		v=$(sed -n "s/^DSHAUDIT_SIGSTORE_$k=//p" "$env")
		[[ -n $v ]] || fail "keyless: $env has no DSHAUDIT_SIGSTORE_$k"
		printf -v "DSHAUDIT_SIGSTORE_$k" '%s' "$v"
	done
	curl -fsS -o /dev/null "$DSHAUDIT_SIGSTORE_OIDC_ISSUER/.well-known/openid-configuration" ||
		fail "keyless: the OIDC issuer $DSHAUDIT_SIGSTORE_OIDC_ISSUER is not answering (scripts/setup-sigstore.sh start)"
fi
if [[ -n ${ACTION_LOCAL_AUDIT_EVIDENCE:-} ]]; then
	# The release job after the audit job: it attaches the audit
	# workflow's artifact and signs nothing.
	INPUT_AUDIT_EVIDENCE=$(realpath "$ACTION_LOCAL_AUDIT_EVIDENCE")
	INPUT_AUDIT_WORKFLOW=${ACTION_LOCAL_AUDIT_WORKFLOW:-https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v0.0.0-local}
	INPUT_SIGNING_KEY="" INPUT_PUBLIC_KEY="" INPUT_KEYLESS=false
	export INPUT_TRUSTED_ROOT=$DSHAUDIT_SIGSTORE_TRUSTED_ROOT INPUT_SIGNING_CONFIG=""
	export INPUT_CERTIFICATE_IDENTITY="" INPUT_CERTIFICATE_OIDC_ISSUER=$DSHAUDIT_SIGSTORE_OIDC_ISSUER
	summarytrust=(--trusted-root "$INPUT_TRUSTED_ROOT" --certificate-audit-workflow "$INPUT_AUDIT_WORKFLOW"
		--certificate-oidc-issuer "$INPUT_CERTIFICATE_OIDC_ISSUER")
	level=DSHIO_AUDIT_WORKFLOW
	# The audit workflow's verifier.id (scripts/audit-local.sh's).
	INPUT_VERIFIER_ID=${ACTION_LOCAL_AUDIT_VERIFIER_ID:-$INPUT_VERIFIER_ID}
elif [[ ${ACTION_LOCAL_KEYLESS:-} == 1 ]]; then
	# What GitHub sets with permissions: id-token: write; the claims
	# override the issuer's defaults so that the token names this job.
	wf=$GITHUB_WORKFLOW_REF
	export ACTIONS_ID_TOKEN_REQUEST_URL="$DSHAUDIT_SIGSTORE_ACTIONS_URL&repository=$GITHUB_REPOSITORY&repository_owner=acme&workflow_ref=$wf&job_workflow_ref=$wf&event_name=release&run_id=$GITHUB_RUN_ID&sub=repo:$GITHUB_REPOSITORY:ref:$GITHUB_REF"
	export ACTIONS_ID_TOKEN_REQUEST_TOKEN=$DSHAUDIT_SIGSTORE_ACTIONS_TOKEN
	unset SIGSTORE_ID_TOKEN
	INPUT_SIGNING_KEY="" INPUT_KEYLESS=true
	export INPUT_TRUSTED_ROOT=$DSHAUDIT_SIGSTORE_TRUSTED_ROOT INPUT_SIGNING_CONFIG=$DSHAUDIT_SIGSTORE_SIGNING_CONFIG
	export INPUT_CERTIFICATE_IDENTITY="" INPUT_CERTIFICATE_OIDC_ISSUER=$DSHAUDIT_SIGSTORE_OIDC_ISSUER
	# The pass vector is key-signed: its key verifies it; the summary is
	# signed keylessly.
	INPUT_PUBLIC_KEY=""
	[[ -n ${INPUT_PACKAGE:-} ]] || INPUT_PUBLIC_KEY=$repo/testdata/vectors/keys/signer.pub
	summarytrust=(--trusted-root "$INPUT_TRUSTED_ROOT" --certificate-identity "$GITHUB_SERVER_URL/$GITHUB_WORKFLOW_REF"
		--certificate-oidc-issuer "$INPUT_CERTIFICATE_OIDC_ISSUER")
else
	INPUT_SIGNING_KEY=$(cat testdata/vectors/keys/signer.key)
	INPUT_PUBLIC_KEY="" INPUT_KEYLESS=false
	summarytrust=(--key "$RUNNER_TEMP/dshaudit-out/dshaudit.pub")
fi
export INPUT_TAG=v1.0.0 INPUT_UPLOAD=true INPUT_IMAGE_ARCHIVE=${INPUT_IMAGE_ARCHIVE:-}
export INPUT_IMAGE=${INPUT_IMAGE:-} INPUT_PACKAGE=${INPUT_PACKAGE:-}
if [[ -n $INPUT_AUDIT_EVIDENCE ]]; then
	export INPUT_BUNDLE=""
elif [[ -z $INPUT_PACKAGE ]]; then
	export INPUT_BUNDLE=$repo/testdata/vectors/pass.dshaudit.tar.zst
else
	command -v podman >/dev/null || fail "the full run needs podman (scripts/setup.sh)"
	export INPUT_BUNDLE=""
fi
set +e
bash "$GITHUB_ACTION_PATH/scripts/action-release.sh"
rc=$?
set -e

echo "== job summary ($GITHUB_STEP_SUMMARY)"
cat "$GITHUB_STEP_SUMMARY"
echo "== outputs"
cat "$GITHUB_OUTPUT"
echo "== recorded upload"
cat "$out/gh-calls" 2>/dev/null || fail "nothing was uploaded"
ls -l "$recorded"
[[ $rc == 0 ]] || fail "the action's step exited $rc"

# What was uploaded: the bundle, the report, the summary and its envelope,
# and the summary checks against the uploaded bundle.
n=$(ls "$recorded" | wc -l)
[[ $n == 4 ]] || fail "uploaded $n files, want 4"
bundle=$(ls "$recorded"/*.dshaudit.tar.zst)
grep -q '<html' "$recorded"/*.report.html || fail "the report is not an HTML page"
"$DSHAUDIT" verify-summary "$recorded"/*.vsa.sigstore.json "${summarytrust[@]}" \
	--artifact "$bundle" --verifier-id "$INPUT_VERIFIER_ID" --level "$level" >/dev/null ||
	fail "the uploaded summary does not verify"
grep -q '^### dshaudit: ' "$GITHUB_STEP_SUMMARY" || fail "no job summary"
echo "action-local: ok"
