#!/usr/bin/env bash
# Local infrastructure without Docker: NATS JetStream, Redis and FerretDB (MongoDB wire protocol on SQLite).
#   infra.sh up      install what is missing, start what is not already running, wait until reachable
#   infra.sh down    stop what this script started (pid files); data stays in $LINGUA_DATA_DIR
#   infra.sh status  show what answers on each port
# Each part is skipped when something already answers on its port, so a machine's own NATS or Redis is reused.
# Set MONGO_URL to use an existing MongoDB instead of FerretDB.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA_DIR="${LINGUA_DATA_DIR:-$ROOT/.data}"
TOOLS_DIR="${LINGUA_TOOLS_DIR:-$HOME/.cache/lingua-tools}"
NATS_PORT="${NATS_PORT:-4222}"
REDIS_PORT="${REDIS_PORT:-6379}"
FERRETDB_PORT="${FERRETDB_PORT:-27017}"
FERRETDB_VERSION="v1.24.2"
FERRETDB_BIN="$TOOLS_DIR/ferretdb-$FERRETDB_VERSION"
RUN_DIR="$DATA_DIR/run"
LOG_DIR="$DATA_DIR/log"

log() { printf '[infra] %s\n' "$*" >&2; }

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() { # name port seconds
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    listening "$2" && return 0
    sleep 0.1
  done
  log "$1 did not start on port $2; see $LOG_DIR/$1.log"
  tail -n 20 "$LOG_DIR/$1.log" >&2 || true
  return 1
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_install() { # package...
  log "installing Debian packages: $*"
  if [ ! -f "$DATA_DIR/.apt-updated" ]; then
    as_root apt-get update -qq
    touch "$DATA_DIR/.apt-updated"
  fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

find_bin() { command -v "$1" 2>/dev/null || { [ -x "/usr/sbin/$1" ] && echo "/usr/sbin/$1"; } || { [ -x "/usr/bin/$1" ] && echo "/usr/bin/$1"; } || true; }

ensure_nats() {
  listening "$NATS_PORT" && { log "nats: already running on $NATS_PORT"; return; }
  [ -n "$(find_bin nats-server)" ] || apt_install nats-server
  mkdir -p "$DATA_DIR/nats"
  "$(find_bin nats-server)" -a 127.0.0.1 -p "$NATS_PORT" -js -sd "$DATA_DIR/nats" >"$LOG_DIR/nats.log" 2>&1 &
  echo $! >"$RUN_DIR/nats.pid"
  wait_port nats "$NATS_PORT" 15
  log "nats: started on $NATS_PORT (JetStream store $DATA_DIR/nats)"
}

ensure_redis() {
  listening "$REDIS_PORT" && { log "redis: already running on $REDIS_PORT"; return; }
  [ -n "$(find_bin redis-server)" ] || apt_install redis-server
  mkdir -p "$DATA_DIR/redis"
  # append-only file, so blacklisted tokens and rate-limit windows survive a restart
  "$(find_bin redis-server)" --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$DATA_DIR/redis" \
    --appendonly yes --save '' --daemonize no >"$LOG_DIR/redis.log" 2>&1 &
  echo $! >"$RUN_DIR/redis.pid"
  wait_port redis "$REDIS_PORT" 15
  log "redis: started on $REDIS_PORT"
}

go_bin() {
  command -v go 2>/dev/null && return
  [ -x /usr/local/go/bin/go ] && { echo /usr/local/go/bin/go; return; }
  log "Go is needed once to build FerretDB; install Go >= 1.22 or set MONGO_URL"
  return 1
}

# FerretDB is built from its Go module at a pinned version. `go install ...@v1.24.2` is refused by this
# network's module proxy (its deprecation look-up is forbidden), so build from a scratch module instead,
# and supply build/version/version.txt, which the published module leaves out.
build_ferretdb() {
  local go work modsrc
  go="$(go_bin)"
  work="$(mktemp -d)"
  log "building FerretDB $FERRETDB_VERSION (first run only, a few minutes)"
  (
    cd "$work"
    printf 'module lingua/ferretdb-build\n\ngo 1.24\n\nrequire github.com/FerretDB/FerretDB %s\n' "$FERRETDB_VERSION" >go.mod
    GOFLAGS=-mod=mod "$go" get "github.com/FerretDB/FerretDB/cmd/ferretdb@$FERRETDB_VERSION"
    modsrc="$("$go" list -m -f '{{.Dir}}' github.com/FerretDB/FerretDB)"
    cp -r "$modsrc" src && chmod -R u+w src
    echo "$FERRETDB_VERSION" >src/build/version/version.txt
    "$go" mod edit -replace github.com/FerretDB/FerretDB=./src
    mkdir -p "$TOOLS_DIR"
    GOFLAGS=-mod=mod "$go" build -o "$FERRETDB_BIN.tmp" github.com/FerretDB/FerretDB/cmd/ferretdb
    mv "$FERRETDB_BIN.tmp" "$FERRETDB_BIN"
  )
  rm -rf "$work"
}

ensure_ferretdb() {
  if [ -n "${MONGO_URL:-}" ]; then log "mongo: MONGO_URL is set, FerretDB not started"; return; fi
  listening "$FERRETDB_PORT" && { log "ferretdb: already running on $FERRETDB_PORT"; return; }
  [ -x "$FERRETDB_BIN" ] || build_ferretdb
  mkdir -p "$DATA_DIR/ferretdb"
  "$FERRETDB_BIN" --handler=sqlite --sqlite-url="file:$DATA_DIR/ferretdb/" --state-dir="$DATA_DIR/ferretdb" \
    --listen-addr="127.0.0.1:$FERRETDB_PORT" --debug-addr= --telemetry=disable --log-level=warn \
    >"$LOG_DIR/ferretdb.log" 2>&1 &
  echo $! >"$RUN_DIR/ferretdb.pid"
  wait_port ferretdb "$FERRETDB_PORT" 30
  log "ferretdb: started on $FERRETDB_PORT (SQLite files in $DATA_DIR/ferretdb)"
}

stop_one() {
  local pidfile="$RUN_DIR/$1.pid" pid i
  [ -f "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    log "$1: stopped"
  fi
  rm -f "$pidfile"
}

case "${1:-up}" in
  up)
    mkdir -p "$RUN_DIR" "$LOG_DIR"
    ensure_nats
    ensure_redis
    ensure_ferretdb
    ;;
  down)
    # `down` stops what infra.sh started; `down ferretdb redis` only those parts
    parts=("${@:2}")
    [ ${#parts[@]} -gt 0 ] || parts=(ferretdb redis nats)
    for part in "${parts[@]}"; do stop_one "$part"; done
    ;;
  status)
    for pair in "nats:$NATS_PORT" "redis:$REDIS_PORT" "ferretdb:$FERRETDB_PORT"; do
      if listening "${pair#*:}"; then echo "${pair%%:*}: up on ${pair#*:}"; else echo "${pair%%:*}: down"; fi
    done
    ;;
  *)
    echo "usage: $0 up|down|status" >&2
    exit 2
    ;;
esac
