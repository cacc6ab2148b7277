#!/usr/bin/env bash
# The steps of the dshaudit GitHub Action (action.yml) after dshaudit is
# built: test the released package (or take a bundle made elsewhere),
# verify it, write the signed verification summary, the HTML report and
# a Markdown job summary, and upload bundle, report and summary as release
# assets. action.yml runs it with the inputs as INPUT_* variables;
# scripts/action-local.sh runs it on this machine with the variables
# GitHub Actions sets. docs/github-actions.md describes the inputs.
#
#   DSHAUDIT            the dshaudit binary
#   INPUT_PACKAGE       NAME@VERSION (default: package.json's, in $GITHUB_WORKSPACE)
#   INPUT_BUNDLE        publish this bundle instead of running the tests
#   INPUT_AUDIT_EVIDENCE the reusable audit workflow's artifact, a directory:
#                       check its bundle and summary under the runner
#                       policy and publish its four files as they are,
#                       instead of running, signing and summarising here
#   INPUT_AUDIT_WORKFLOW with it: the audit workflow the certificates must
#                       name (https://github.com/OWNER/REPO/.github/workflows/audit.yml@refs/tags/vX)
#   INPUT_IMAGE         sandbox image NAME@sha256:DIGEST (default: built here)
#   INPUT_IMAGE_ARCHIVE the image's OCI archive, a path or an https URL
#   INPUT_SIGNING_KEY   the private key, PEM (from a secret)
#   INPUT_PUBLIC_KEY    its public key file (default: derived with openssl)
#   INPUT_KEYLESS       "true": sign bundle and summary keylessly, with the
#                       job's OIDC token (permissions: id-token: write)
#   INPUT_SIGNING_CONFIG keyless: a Sigstore signing_config.json (default:
#                       the public-good instance)
#   INPUT_TRUSTED_ROOT  keyless: the trusted_root.json that verifies them
#                       (required; the public-good instance's is the one
#                       its TUF repository publishes)
#   INPUT_CERTIFICATE_IDENTITY keyless: the identity they must carry
#                       (default $GITHUB_SERVER_URL/$GITHUB_WORKFLOW_REF)
#   INPUT_CERTIFICATE_OIDC_ISSUER keyless: its issuer (default
#                       https://token.actions.githubusercontent.com)
#   INPUT_VERIFIER_ID   the summary's verifier.id
#   INPUT_TAG           the release tag (default: $GITHUB_REF_NAME)
#   INPUT_UPLOAD        "true": upload the three files with gh release upload
#   INPUT_RUN_ARGS      more arguments to dshaudit run (word-split)
#   INPUT_OUT_DIR       where the files go (default: $RUNNER_TEMP/dshaudit-out)
set -euo pipefail

die() {
	echo "::error::dshaudit action: $*" >&2
	exit "${2:-2}"
}
: "${DSHAUDIT:?DSHAUDIT must name the dshaudit binary}"
: "${RUNNER_TEMP:?RUNNER_TEMP is not set (not in GitHub Actions?)}"
: "${GITHUB_STEP_SUMMARY:?GITHUB_STEP_SUMMARY is not set}"
out=${INPUT_OUT_DIR:-$RUNNER_TEMP/dshaudit-out}
mkdir -p "$out"
tag=${INPUT_TAG:-${GITHUB_REF_NAME:-}}
[[ -n $tag ]] || die "no release tag: set the tag input or run on a release"

# The package: NAME@VERSION, by default the workspace's package.json.
pkg=${INPUT_PACKAGE:-}
audit=${INPUT_AUDIT_EVIDENCE:-}
if [[ -n $audit ]]; then
	# The audit workflow tested, signed and summarised: nothing of this
	# job's may replace or re-sign its evidence.
	[[ -z $pkg && -z ${INPUT_BUNDLE:-} && -z ${INPUT_SIGNING_KEY:-} && ${INPUT_KEYLESS:-false} != true ]] ||
		die "audit-evidence: give none of package, bundle, signing-key and keyless (the audit workflow ran and signed)"
elif [[ -z $pkg && -z ${INPUT_BUNDLE:-} ]]; then
	pj=${GITHUB_WORKSPACE:-.}/package.json
	[[ -f $pj ]] || die "no package input and no $pj"
	pkg=$(node -e 'const p=require(process.argv[1]); process.stdout.write(p.name+"@"+p.version)' "$pj")
fi

# Signing: a key from a secret, or keyless (OIDC, id-token: write).
# sign is run's signing, sumsign the summary's, trust how both verify;
# bundletrust verifies the bundle (a given bundle may be key-signed:
# public-key).
keyfile=$RUNNER_TEMP/dshaudit-signing.key
pub=${INPUT_PUBLIC_KEY:-}
if [[ -n $audit ]]; then
	# The runner policy (SPEC.md "Runner policy"): the audit workflow at a
	# release tag, on a GitHub-hosted runner, with that tag's dshaudit.
	wf=${INPUT_AUDIT_WORKFLOW:-}
	[[ $wf == */.github/workflows/audit.yml@refs/tags/* ]] ||
		die "audit-evidence: give the audit-workflow input, https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/vX; got '$wf'"
	root=${INPUT_TRUSTED_ROOT:-}
	[[ -f $root ]] || die "audit-evidence: give the trusted-root input (a Sigstore trusted_root.json that verifies the signatures)"
	issuer=${INPUT_CERTIFICATE_OIDC_ISSUER:-https://token.actions.githubusercontent.com}
	trust=(--trusted-root "$root" --certificate-audit-workflow "$wf" --certificate-oidc-issuer "$issuer")
	bundletrust=("${trust[@]}")
	check="--trusted-root trusted_root.json --certificate-audit-workflow '$wf' --certificate-oidc-issuer '$issuer'"
elif [[ ${INPUT_KEYLESS:-false} == true ]]; then
	[[ -z ${INPUT_SIGNING_KEY:-} ]] || die "give signing-key or keyless: true, not both"
	sign=(--keyless)
	[[ -n ${INPUT_SIGNING_CONFIG:-} ]] && sign+=(--signing-config "$INPUT_SIGNING_CONFIG")
	sumsign=("${sign[@]}")
	root=${INPUT_TRUSTED_ROOT:-}
	[[ -f $root ]] || die "keyless: give the trusted-root input (a Sigstore trusted_root.json that verifies the signatures)"
	issuer=${INPUT_CERTIFICATE_OIDC_ISSUER:-https://token.actions.githubusercontent.com}
	if [[ -z ${INPUT_CERTIFICATE_IDENTITY:-} ]]; then
		[[ -n ${GITHUB_WORKFLOW_REF:-} ]] || die "no certificate-identity input and no GITHUB_WORKFLOW_REF"
		INPUT_CERTIFICATE_IDENTITY=${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_WORKFLOW_REF
	fi
	trust=(--trusted-root "$root" --certificate-identity "$INPUT_CERTIFICATE_IDENTITY"
		--certificate-oidc-issuer "$issuer")
	bundletrust=("${trust[@]}")
	[[ -n $pub && -n ${INPUT_BUNDLE:-} ]] && bundletrust=(--key "$pub")
	check="--trusted-root trusted_root.json --certificate-identity '$INPUT_CERTIFICATE_IDENTITY' --certificate-oidc-issuer '$issuer'"
else
	[[ -n ${INPUT_SIGNING_KEY:-} ]] || die "give the signing-key input (a secret holding the PEM of dshaudit key generate) or keyless: true"
	(umask 077 && printf '%s\n' "$INPUT_SIGNING_KEY" >"$keyfile")
	sign=(--signing-key "$keyfile")
	sumsign=(--summary-key "$keyfile")
	if [[ -z $pub ]]; then
		pub=$out/dshaudit.pub
		openssl pkey -in "$keyfile" -pubout -out "$pub" || die "cannot derive the public key from signing-key"
	fi
	trust=(--key "$pub")
	bundletrust=("${trust[@]}")
	check="--key dshaudit.pub"
fi

# The tests, unless a bundle or the audit workflow's evidence was given.
if [[ -n $audit ]]; then
	bundles=("$audit"/*.dshaudit.tar.zst)
	[[ ${#bundles[@]} == 1 && -f ${bundles[0]} ]] || die "audit-evidence: want one *.dshaudit.tar.zst in $audit, found ${#bundles[@]}"
	name=$(basename "${bundles[0]}" .dshaudit.tar.zst)
	for f in "$name.dshaudit.tar.zst" "$name.report.html" "$name.vsa.sigstore.json" "$name.vsa.dsse.json"; do
		[[ -s $audit/$f ]] || die "audit-evidence: $audit has no $f (the audit workflow's artifact holds four files)"
		[[ $audit/$f -ef $out/$f ]] || cp "$audit/$f" "$out/$f"
	done
	bundle=$out/$name.dshaudit.tar.zst
elif [[ -n ${INPUT_BUNDLE:-} ]]; then
	bundle=$out/$(basename "$INPUT_BUNDLE")
	[[ $INPUT_BUNDLE -ef $bundle ]] || cp "$INPUT_BUNDLE" "$bundle"
else
	image=(--image "${INPUT_IMAGE:-}")
	archive=${INPUT_IMAGE_ARCHIVE:-}
	if [[ $archive == https://* ]]; then
		curl -fsSL --retry 3 -o "$RUNNER_TEMP/sandbox.oci.tar" "$archive" || die "cannot download $archive" 3
		archive=$RUNNER_TEMP/sandbox.oci.tar
	fi
	if [[ -z ${INPUT_IMAGE:-} ]]; then
		echo "dshaudit action: no image input: building the sandbox image" >&2
		image=(--image "$("$DSHAUDIT" image build --load)") || die "image build failed" 3
	fi
	[[ -n $archive ]] && image+=(--image-archive "$(realpath "$archive")")
	rm -f "$out"/*.dshaudit.tar.zst
	set +e
	# run names the bundle NAME-VERSION.dshaudit.tar.zst in its directory.
	read -r -a extra <<<"${INPUT_RUN_ARGS:-}"
	(cd "$out" && "$DSHAUDIT" run "$pkg" "${image[@]}" "${sign[@]}" --progress never "${extra[@]}")
	rc=$?
	set -e
	bundle=$(ls "$out"/*.dshaudit.tar.zst 2>/dev/null | head -n 1)
	[[ -n $bundle ]] || die "dshaudit run wrote no bundle (exit $rc)" "$rc"
	# 1 is a bundle whose verdict is not pass: still evidence to publish.
	[[ $rc == 0 || $rc == 1 ]] || die "dshaudit run failed (exit $rc)" "$rc"
fi

# Verify, with the summary and the job summary.
name=$(basename "$bundle" .dshaudit.tar.zst)
summary=$out/$name.vsa.sigstore.json
envelope=$out/$name.vsa.dsse.json
report=$out/$name.report.html
set +e
if [[ -n $audit ]]; then
	# The audit workflow's summary and report are published as it wrote
	# them; its summary must hold under the same policy.
	"$DSHAUDIT" verify "$bundle" "${bundletrust[@]}" --step-summary "$GITHUB_STEP_SUMMARY"
	verified=$?
	"$DSHAUDIT" verify-summary "$summary" "${trust[@]}" --artifact "$bundle" \
		--verifier-id "${INPUT_VERIFIER_ID:-https://dshaudit.dev/verifier}" --level DSHIO_AUDIT_WORKFLOW >/dev/null ||
		die "audit-evidence: $(basename "$summary") does not verify under the runner policy"
else
	"$DSHAUDIT" verify "$bundle" "${bundletrust[@]}" --summary "$summary" --summary-dsse "$envelope" \
		"${sumsign[@]}" --summary-verifier-id "${INPUT_VERIFIER_ID:-https://dshaudit.dev/verifier}" \
		--step-summary "$GITHUB_STEP_SUMMARY"
	verified=$?
fi
set -e
[[ $verified == 0 || $verified == 1 ]] || die "dshaudit verify could not run (exit $verified)" "$verified"
[[ -n $audit ]] || "$DSHAUDIT" report "$bundle" "${bundletrust[@]}" -o "$report" || [[ $? == 1 ]] || die "dshaudit report failed"

base=${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}/releases/download/$tag
{
	echo "#### Release assets"
	echo
	for f in "$bundle" "$report" "$summary" "$envelope"; do
		echo "- [$(basename "$f")]($base/$(basename "$f"))"
	done
	echo
	echo "Check the summary: \`dshaudit verify-summary $(basename "$summary") $check --artifact $(basename "$bundle")\`"
	echo
} >>"$GITHUB_STEP_SUMMARY"

if [[ -n ${GITHUB_OUTPUT:-} ]]; then
	{
		echo "bundle=$bundle"
		echo "report=$report"
		echo "summary=$summary"
		echo "verified=$([[ $verified == 0 ]] && echo true || echo false)"
	} >>"$GITHUB_OUTPUT"
fi

if [[ ${INPUT_UPLOAD:-true} == true ]]; then
	gh release upload "$tag" "$bundle" "$report" "$summary" "$envelope" --clobber
fi
rm -f "$keyfile"
exit "$verified"
