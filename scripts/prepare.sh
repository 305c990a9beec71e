#!/usr/bin/env bash
# Before a test lane: start (and on a fresh machine install) the infrastructure and build the
# TypeScript at the same time. A fresh machine's set-up mostly waits on apt-get and the Go module
# proxy, so the compiler's minute runs beside it instead of after it.
#   bash scripts/prepare.sh [--test-tools]   the arguments go to deploy/local/infra.sh up
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/local/infra.sh up "$@" &
infra=$!
built=0
npm run --silent build || built=$?
wait "$infra" # its exit status, under set -e
exit "$built"
