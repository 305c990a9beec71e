#!/usr/bin/env bash
# Builds the deployment contract check (main.go) once per source version and prints the binary's
# path. The binary is cached under $LINGUA_TOOLS_DIR (default ~/.cache/lingua-tools), named by a hash
# of go.mod, go.sum, main.go and this script (its build flags), so only a change to them rebuilds; modules come from the Go module
# proxy on the first build (go.sum pins them). `deploy/local/infra.sh up --test-tools` runs this
# before the tests, so the test itself downloads nothing.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TOOLS_DIR="${LINGUA_TOOLS_DIR:-$HOME/.cache/lingua-tools}"

go_bin() {
  command -v go 2>/dev/null && return
  [ -x /usr/local/go/bin/go ] && { echo /usr/local/go/bin/go; return; }
  echo "deploy/contract: Go >= 1.26 is needed to build the deployment check (apt-get install golang-go, or /usr/local/go)" >&2
  return 1
}

hash="$(cat "$HERE/go.mod" "$HERE/go.sum" "$HERE/main.go" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)"
bin="$TOOLS_DIR/deploy-contract-$hash"
if [ ! -x "$bin" ]; then
  go="$(go_bin)"
  mkdir -p "$TOOLS_DIR"
  # -mod=readonly: go.sum must already pin every module (a drifted go.mod fails instead of resolving anew)
  # built without optimisation or debug information: a check that runs for a fraction of a second
  # a few times per suite, whose compile (kustomize and the Kubernetes API types) was 107 CPU-seconds
  # of a fresh machine's set-up, 81 this way
  (cd "$HERE" && GOFLAGS="-mod=readonly -buildvcs=false" GOTOOLCHAIN=local "$go" build \
    -gcflags=all='-N -l' -ldflags='-s -w' -o "$bin.tmp.$$" .)
  mv "$bin.tmp.$$" "$bin"
fi
echo "$bin"
