#!/usr/bin/env bash
# Real Sigstore services on loopback for the keyless end-to-end tests
# (SPEC.md "Signature"; README "Keyless signing"):
#
#   scripts/setup-sigstore.sh start   build (once, cached) and start Fulcio,
#                                     its CT log, the timestamp authority,
#                                     Rekor v2 and an OIDC issuer; write
#                                     trusted_root.json, signing_config.json
#                                     and sigstore.env
#   scripts/setup-sigstore.sh stop    stop what `start` started
#
# Everything is built from the Go module proxy at the versions pinned below
# (no container image) into $cache/sigstore/bin, so a second start builds
# nothing. The services run in a network namespace of their own
# (ip netns "dshaudit-sigstore", loopback only): Fulcio's and the
# timestamp authority's metrics listeners bind every interface with no
# setting for the host, so they are given a namespace with no interface
# but lo. tools/sigstore-e2e forwards the four service ports from this
# machine's 127.0.0.1 into it, and nothing else.
#
#   OIDC issuer  127.0.0.1:$base      tools/sigstore-e2e oidc (GitHub-Actions-shaped tokens)
#   Fulcio       127.0.0.1:$base+1    ephemeral CA, SCTs from the CT log below
#   CT log       (namespace only)     TesseraCT, POSIX storage, accepting Fulcio's CA
#   TSA          127.0.0.1:$base+3    in-memory signer and chain, NTP monitoring off
#   Rekor v2     127.0.0.1:$base+4    rekor-tiles, POSIX (local directory) storage
#
# $base is $DSHAUDIT_SIGSTORE_PORT_BASE (default 18500), the namespace
# $DSHAUDIT_SIGSTORE_NETNS (default dshaudit-sigstore), the cache
# $DSHAUDIT_CACHE as for scripts/setup.sh. The state (keys,
# logs, the log's tiles, the written files) is in $cache/sigstore/run and
# is made afresh by every start. Needs root (ip netns). Cold build of the
# five programs (cosign shared with scripts/setup-thirdparty.sh): about
# 13 min on the shared 2-core VM, 23 min from empty Go caches under heavy
# load (docs/measurements/2026-12-04-keyless.md); cached start: 2–4 s.
set -euo pipefail
cd "$(dirname "$0")/.."

FULCIO_VERSION=v1.8.8
# The newest timestamp-authority and rekor-tiles need Go 1.27; these are
# the newest that build with the Go of go.mod (1.26), and the versions
# sigstore-go's own dependencies name.
TSA_VERSION=v2.1.3
REKOR_VERSION=v2.3.0
# The cosign of scripts/setup-thirdparty.sh, shared (see install_all).
COSIGN_VERSION=v3.1.3
TESSERACT_VERSION=v0.1.1

cache=${DSHAUDIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshaudit}
bin=$cache/sigstore/bin
state=$cache/sigstore/run
ns=${DSHAUDIT_SIGSTORE_NETNS:-dshaudit-sigstore}
base=${DSHAUDIT_SIGSTORE_PORT_BASE:-18500}
oidc_port=$base
fulcio_port=$((base + 1))
fulcio_grpc=$((base + 2))
tsa_port=$((base + 3))
rekor_port=$((base + 4))
rekor_grpc=$((base + 5))
ct_port=$((base + 6))

log() { echo "setup-sigstore: $*" >&2; }
die() {
	echo "setup-sigstore: $*" >&2
	# A failed start leaves nothing running.
	[[ -n ${starting:-} ]] && stop
	exit 3
}

# install NAME MODULE/PACKAGE VERSION: go install into $bin/NAME-VERSION,
# once.
install() {
	local name=$1 pkg=$2 version=$3 out=$bin/$1-$3 tmp start
	[[ -x $out ]] && return
	tmp=$(mktemp -d)
	start=$(date +%s)
	log "building $pkg@$version (from the Go module proxy)"
	GOFLAGS=-mod=mod GOBIN=$tmp nice -n 10 go install "$pkg@$version" || {
		rm -rf "$tmp"
		die "go install $pkg@$version failed"
	}
	mv "$tmp/$(basename "$pkg")" "$out"
	rm -rf "$tmp"
	log "built $name $version in $(($(date +%s) - start)) s"
}

install_all() {
	command -v go >/dev/null || die "go is not on PATH (need Go 1.26.x; see go.mod)"
	if ! command -v ip >/dev/null; then
		log "installing iproute2 from Debian (ip netns)"
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -q iproute2 >&2 ||
			die "ip (iproute2) is missing and could not be installed"
	fi
	mkdir -p "$bin"
	install fulcio github.com/sigstore/fulcio "$FULCIO_VERSION"
	install timestamp-server github.com/sigstore/timestamp-authority/v2/cmd/timestamp-server "$TSA_VERSION"
	install rekor-server-posix github.com/sigstore/rekor-tiles/v2/cmd/rekor-server/posix "$REKOR_VERSION"
	install tesseract-posix github.com/transparency-dev/tesseract/cmd/tesseract/posix "$TESSERACT_VERSION"
	# cosign is the pinned build scripts/setup-thirdparty.sh makes in the
	# same place (scripts/test.sh runs it first); built here only when
	# missing, the same way, so one build serves both.
	local cosign_dir=$cache/tools/cosign-$COSIGN_VERSION
	if [[ ! -x $cosign_dir/cosign ]]; then
		local start
		start=$(date +%s)
		log "building github.com/sigstore/cosign/v3/cmd/cosign@$COSIGN_VERSION (from the Go module proxy)"
		rm -rf "$cosign_dir.partial"
		mkdir -p "$cosign_dir.partial"
		GOFLAGS=-mod=mod GOBIN=$cosign_dir.partial nice -n 10 go install "github.com/sigstore/cosign/v3/cmd/cosign@$COSIGN_VERSION" ||
			die "go install github.com/sigstore/cosign/v3/cmd/cosign@$COSIGN_VERSION failed"
		rm -rf "$cosign_dir"
		mv "$cosign_dir.partial" "$cosign_dir"
		log "built cosign $COSIGN_VERSION in $(($(date +%s) - start)) s"
	fi
	ln -sf "$cosign_dir/cosign" "$bin/cosign"
	go build -o "$bin/sigstore-e2e" ./tools/sigstore-e2e || die "go build ./tools/sigstore-e2e failed"
}

# run NAME CMD...: start CMD in the namespace with a clean environment
# (viper reads PORT, HOST … from the environment), log and pid in $state.
run_in_ns() {
	local name=$1
	shift
	ip netns exec "$ns" env -i PATH=/usr/bin:/bin HOME="$state/home" "$@" >"$state/$name.log" 2>&1 &
	echo $! >"$state/$name.pid"
}

stop() {
	local f pid
	for f in "$state"/*.pid; do
		[[ -e $f ]] || continue
		pid=$(cat "$f")
		kill "$pid" 2>/dev/null || true
		rm -f "$f"
	done
	sleep 0.5
	if ip netns list 2>/dev/null | grep -qw "^$ns"; then
		# Anything still in the namespace was started by us.
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
		ip netns delete "$ns" 2>/dev/null || true
	fi
}

start() {
	[[ $(id -u) == 0 ]] || die "run as root (ip netns)"
	local t0
	t0=$(date +%s)
	install_all
	stop
	starting=1
	rm -rf "$state"
	mkdir -p "$state/home" "$state/rekor" "$state/ct"
	ip netns add "$ns" || die "ip netns add $ns failed"
	ip -n "$ns" link set lo up

	local e2e=$bin/sigstore-e2e secret issuer
	secret=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	issuer=http://127.0.0.1:$oidc_port
	"$e2e" keygen -out "$state/rekor.key"
	"$e2e" keygen -sec1 -out "$state/ct.key"
	cat >"$state/fulcio.json" <<EOF
{"OIDCIssuers": {"$issuer": {"IssuerURL": "$issuer", "ClientID": "sigstore", "Type": "github-workflow"}}}
EOF
	: >"$state/tsa.yaml"

	"$e2e" forward -netns "/run/netns/$ns" "127.0.0.1:$oidc_port" "127.0.0.1:$fulcio_port" \
		"127.0.0.1:$tsa_port" "127.0.0.1:$rekor_port" >"$state/forward.log" 2>&1 &
	echo $! >"$state/forward.pid"
	run_in_ns oidc "$e2e" oidc -addr "127.0.0.1:$oidc_port" -actions-secret "$secret"
	"$e2e" wait -timeout 30s "$issuer/.well-known/openid-configuration" || die "the OIDC issuer did not start: $(tail -5 "$state/oidc.log")"
	run_in_ns fulcio "$bin/fulcio-$FULCIO_VERSION" serve --ca ephemeralca --config-path "$state/fulcio.json" \
		--ct-log-url "http://127.0.0.1:$ct_port" --ct-log-public-key-path "$state/ct.key.pub" --host 127.0.0.1 --port "$fulcio_port" --grpc-host 127.0.0.1 --grpc-port "$fulcio_grpc" \
		--metrics-port 2113 --legacy-unix-domain-socket "$state/fulcio-legacy.sock" --log_type prod
	run_in_ns tsa "$bin/timestamp-server-$TSA_VERSION" serve --config "$state/tsa.yaml" --host 127.0.0.1 --port "$tsa_port" \
		--timestamp-signer memory --disable-ntp-monitoring --log-type prod
	run_in_ns rekor "$bin/rekor-server-posix-$REKOR_VERSION" serve --http-address 127.0.0.1 --http-port "$rekor_port" \
		--grpc-address 127.0.0.1 --grpc-port "$rekor_grpc" --http-metrics-port 2114 --hostname 127.0.0.1 \
		--storage-dir "$state/rekor" --signer-filepath "$state/rekor.key" --checkpoint-interval 1s --log-level warn

	"$e2e" wait -timeout 60s "http://127.0.0.1:$fulcio_port/api/v2/trustBundle" || die "Fulcio did not start: $(tail -5 "$state/fulcio.log")"
	# The CT log accepts chains to Fulcio's CA, made when Fulcio started;
	# Fulcio submits to it only when it issues.
	"$e2e" config -fulcio "http://127.0.0.1:$fulcio_port" -fulcio-roots "$state/ct-roots.pem" || die "reading Fulcio's CA chain failed"
	run_in_ns ct "$bin/tesseract-posix-$TESSERACT_VERSION" --http_endpoint "127.0.0.1:$ct_port" --origin "127.0.0.1/dshaudit-e2e-ct" \
		--roots_pem_file "$state/ct-roots.pem" --private_key "$state/ct.key" --storage_dir "$state/ct" \
		--checkpoint_interval 500ms --v 0
	ip netns exec "$ns" "$e2e" wait -timeout 60s "http://127.0.0.1:$ct_port/ct/v1/get-roots" || die "the CT log did not start: $(tail -5 "$state/ct.log")"
	"$e2e" wait -timeout 60s "http://127.0.0.1:$tsa_port/ping" || die "the timestamp authority did not start: $(tail -5 "$state/tsa.log")"
	"$e2e" wait -timeout 60s "http://127.0.0.1:$rekor_port/healthz" || die "Rekor did not start: $(tail -5 "$state/rekor.log")"
	"$e2e" config -fulcio "http://127.0.0.1:$fulcio_port" -tsa "http://127.0.0.1:$tsa_port" \
		-rekor "http://127.0.0.1:$rekor_port" -rekor-key "$state/rekor.key.pub" -oidc "$issuer" \
		-ct "http://127.0.0.1:$ct_port" -ct-key "$state/ct.key.pub" -out "$state" ||
		die "writing trusted_root.json and signing_config.json failed"
	cat >"$state/sigstore.env" <<EOF
DSHAUDIT_SIGSTORE_OIDC_ISSUER=$issuer
DSHAUDIT_SIGSTORE_TOKEN_URL=$issuer/token
DSHAUDIT_SIGSTORE_ACTIONS_URL=$issuer/actions?api-version=2.0
DSHAUDIT_SIGSTORE_ACTIONS_TOKEN=$secret
DSHAUDIT_SIGSTORE_FULCIO_URL=http://127.0.0.1:$fulcio_port
DSHAUDIT_SIGSTORE_TSA_URL=http://127.0.0.1:$tsa_port/api/v1/timestamp
DSHAUDIT_SIGSTORE_REKOR_URL=http://127.0.0.1:$rekor_port
DSHAUDIT_SIGSTORE_TRUSTED_ROOT=$state/trusted_root.json
DSHAUDIT_SIGSTORE_SIGNING_CONFIG=$state/signing_config.json
DSHAUDIT_SIGSTORE_COSIGN=$bin/cosign
DSHAUDIT_SIGSTORE_VERSIONS=fulcio $FULCIO_VERSION, timestamp-authority $TSA_VERSION, rekor-tiles $REKOR_VERSION, tesseract $TESSERACT_VERSION, cosign $COSIGN_VERSION
EOF
	log "started in $(($(date +%s) - t0)) s: fulcio $FULCIO_VERSION, tesseract $TESSERACT_VERSION (CT), timestamp-authority $TSA_VERSION, rekor-tiles $REKOR_VERSION (POSIX), OIDC issuer $issuer; $state/sigstore.env"
}

case ${1:-} in
start) start ;;
stop) stop ;;
*)
	echo "usage: scripts/setup-sigstore.sh start|stop" >&2
	exit 2
	;;
esac
