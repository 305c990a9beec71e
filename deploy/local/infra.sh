#!/usr/bin/env bash
# Local infrastructure without Docker: NATS JetStream, Redis, and the MongoDB-compatible database:
# FerretDB 2 on a private PostgreSQL 15 cluster with the DocumentDB extension.
#   infra.sh up [--test-tools]  install what is missing, start what is not already running, wait until
#                               reachable; --test-tools also installs what the test suite drives (Chromium,
#                               nginx, Prometheus)
#   infra.sh down [part...]     stop what this script started; data stays in $LINGUA_DATA_DIR
#   infra.sh status             show what answers on each port
# Each part is skipped when something already answers on its port, so a machine's own NATS or Redis is reused.
# Set MONGO_URL to use an existing MongoDB instead. The embedded database is FerretDB 2 on PostgreSQL
# + DocumentDB, built once from vendor/; when it cannot be built, `up` fails and says why (there is no
# other engine: the FerretDB v1 ones could lose concurrent updates, ADR 0010).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA_DIR="${LINGUA_DATA_DIR:-$ROOT/.data}"
TOOLS_DIR="${LINGUA_TOOLS_DIR:-$HOME/.cache/lingua-tools}"
VENDOR_DIR="${LINGUA_VENDOR_DIR:-$ROOT/vendor}"
NATS_PORT="${NATS_PORT:-4222}"
REDIS_PORT="${REDIS_PORT:-6379}"
FERRETDB_PORT="${FERRETDB_PORT:-27017}"
PG_PORT="${LINGUA_PG_PORT:-55432}"
# the database runs below the gateway's priority, as the services do in start-stack.js (LINGUA_BACKEND_NICE)
DB_NICE="${LINGUA_BACKEND_NICE:-5}"
FERRETDB2_VERSION="v2.7.0"
PG_MAJOR=15
PG_BIN="/usr/lib/postgresql/$PG_MAJOR/bin"
# the two extensions no registry here serves: archive, sha256 (see vendor/README.md)
DOCUMENTDB_ARCHIVE="documentdb-ferretdb-3f80da90.tar.gz"
DOCUMENTDB_SHA256="27dbd69c3b3044c0381f4c3e5dd2e83332ac2838c7a12a403dab8f2a67d8e03e"
PGVECTOR_ARCHIVE="pgvector-0.8.0.tar.gz"
PGVECTOR_SHA256="6e1dcc706cc6634847ba2888c6631c7844e2dded7f10b9041da05ef8490682dc"
RUN_DIR="$DATA_DIR/run"
LOG_DIR="$DATA_DIR/log"

STARTED=$(date +%s)
# seconds since this run began: a fresh machine's log reads as the breakdown of its set-up
log() { printf '[infra] %4ss %s\n' "$(($(date +%s) - STARTED))" "$*" >&2; }
loud() { printf '\n[infra] !!! %s\n\n' "$*" >&2; }

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() { # name port seconds [logfile]
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    listening "$2" && return 0
    sleep 0.1
  done
  log "$1 did not start on port $2; see ${4:-$LOG_DIR/$1.log}"
  tail -n 20 "${4:-$LOG_DIR/$1.log}" >&2 || true
  return 1
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_install() { # package...
  log "installing Debian packages: $*"
  if [ ! -f "$DATA_DIR/.apt-updated" ]; then
    as_root apt-get update -qq
    touch "$DATA_DIR/.apt-updated"
  fi
  # wait for another apt-get on a shared machine instead of failing on its lock
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -o DPkg::Lock::Timeout=300 -y -qq \
    --no-install-recommends "$@" >/dev/null
}

find_bin() { command -v "$1" 2>/dev/null || { [ -x "/usr/sbin/$1" ] && echo "/usr/sbin/$1"; } || { [ -x "/usr/bin/$1" ] && echo "/usr/bin/$1"; } || true; }

# What each part needs from Debian and lacks, one name per line: `up` installs them all in one
# apt-get run (one resolution, one dpkg pass) before any part starts; each part installs what is
# still missing itself, so a failed combined install only costs a retry part by part.
server_packages() {
  listening "$NATS_PORT" || [ -n "$(find_bin nats-server)" ] || echo nats-server
  # Sentinels watch the primary and its replicas in `npm run start:cluster` and the Sentinel tests
  [ -n "$(find_bin redis-sentinel)" ] || echo redis-sentinel
  listening "$REDIS_PORT" || [ -n "$(find_bin redis-server)" ] || echo redis-server
}

install_missing() { # function printing the missing packages
  local pkgs
  mapfile -t pkgs < <("$1")
  [ ${#pkgs[@]} -eq 0 ] || apt_install "${pkgs[@]}"
}

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
  [ -n "$(find_bin redis-sentinel)" ] || apt_install redis-sentinel
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

# What the test suite drives besides the servers: Debian's Chromium for the docs browser test
# (a test tool's own browser download is impossible here), openssl for the App Store certificate
# chain, nginx as the ingress in front of the gateway (trusted-proxy tests), Prometheus (prometheus
# and promtool) for the metrics, rules and alert tests, docker-compose to render docker-compose.yml
# and the deployment contract check built from deploy/contract (Go; its modules come from the Go
# module proxy once, here, so the test itself downloads nothing). The release digest test
# (test/platform/release-digests.test.ts) pushes tiny images with podman to Debian's docker-registry:
# podman and its helpers are installed the way the containers test installs them (base-images.sh).
test_tool_packages() {
  [ -x /usr/bin/chromium ] || echo chromium
  [ -n "$(find_bin openssl)" ] || echo openssl
  [ -n "$(find_bin nginx)" ] || echo nginx-light
  # the local cluster's Services (deploy/local/start-cluster.js): L4, health-checked, no reloads
  [ -n "$(find_bin haproxy)" ] || echo haproxy
  { [ -n "$(find_bin prometheus)" ] && [ -n "$(find_bin promtool)" ]; } || echo prometheus
  [ -n "$(find_bin docker-compose)" ] || echo docker-compose
  [ -x /usr/bin/docker-registry ] || echo docker-registry
  bash "$ROOT/deploy/containers/base-images.sh" --missing-packages
}

# Set by `up` when docker-registry was missing before its installs (the combined one installs it
# before ensure_test_tools runs, so that cannot tell any more).
REGISTRY_NEW=0

ensure_test_tools() {
  [ -x /usr/bin/docker-registry ] || REGISTRY_NEW=1
  install_missing test_tool_packages
  # the package enables a registry service on :5000, all interfaces; the test starts its own on loopback
  if [ "$REGISTRY_NEW" = 1 ] && [ -d /run/systemd/system ]; then
    as_root systemctl disable --now docker-registry >/dev/null 2>&1 || true
  fi
  bash "$ROOT/deploy/containers/base-images.sh" --packages
}

# The deployment contract check: a Go build, started in the background (start_go_builds) while
# apt-get runs, joined last (`up`): the database's builds run meanwhile.
build_contract_check() {
  local go started
  go="$(go_bin)" || return 1
  started=$(date +%s)
  PATH="$(dirname "$go"):$PATH" LINGUA_TOOLS_DIR="$TOOLS_DIR" bash "$ROOT/deploy/contract/build.sh" >/dev/null
  log "deployment contract check: ready ($(($(date +%s) - started)) s)"
}

# The AI service's offline language data (WordNet, FreeDict dictionaries): Debian packages listed
# once in services/ai/debian-packages.txt, which the container image installs too. Files only, no
# daemon. A failed install does not stop the infrastructure (the service degrades and says so in
# /health/ready), but it is reported loudly: the ai tests read the real files.
# the packages named that are not installed (a removed package keeps its dpkg record until purged):
# one dpkg-query for all of them, not one per package
not_installed() { # package...
  local installed
  [ $# -gt 0 ] || return 0
  # dpkg-query exits 1 when a name has never been installed: not a failure here
  installed="$(dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null | awk '$4 == "installed" { print $1 }')" || true
  printf '%s\n' "$@" | grep -vxF -f <(printf '%s\n' "$installed") || true
}

language_packages() {
  local list="$ROOT/services/ai/debian-packages.txt" pkgs
  [ -f "$list" ] || return 0
  mapfile -t pkgs < <(grep -v -e '^#' -e '^[[:space:]]*$' "$list")
  not_installed "${pkgs[@]}"
}

ensure_language_data() {
  local missing
  mapfile -t missing < <(language_packages)
  [ ${#missing[@]} -eq 0 ] && return 0
  apt_install "${missing[@]}" || loud "language data not installed (${missing[*]}): the ai service's local provider will report it unavailable"
}

go_bin() {
  command -v go 2>/dev/null && return
  [ -x /usr/local/go/bin/go ] && { echo /usr/local/go/bin/go; return; }
  apt_install golang-go >/dev/null 2>&1 && command -v go && return
  log "Go is needed once to build FerretDB; install Go >= 1.24 or set MONGO_URL"
  return 1
}

# ---- PostgreSQL with DocumentDB ------------------------------------------------------------------

# what DocumentDB's and pgvector's build compiles against, and the extensions DocumentDB's own
# CREATE EXTENSION requires at run time (installed beside the build: it does not read them)
DOCUMENTDB_BUILD_DEPS=(postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR libbson-dev libpcre2-dev
  libintelrdfpmath-dev libkrb5-dev pkg-config build-essential)
DOCUMENTDB_RUNTIME_DEPS=(postgresql-$PG_MAJOR-cron postgresql-$PG_MAJOR-postgis-3 postgresql-$PG_MAJOR-rum)

# Debian packages the embedded database needs to be built and lacks (none when MONGO_URL names
# another database, or when it is built); database_runtime_packages: those it needs to run
database_packages() {
  database_needed || return 0
  [ -x "$PG_BIN/postgres" ] || echo "postgresql-$PG_MAJOR"
  documentdb_installed 2>/dev/null || not_installed "${DOCUMENTDB_BUILD_DEPS[@]}"
}

database_runtime_packages() {
  database_needed || return 0
  not_installed "${DOCUMENTDB_RUNTIME_DEPS[@]}"
}

database_needed() { [ -z "${MONGO_URL:-}" ] && ! listening "$FERRETDB_PORT"; }

ensure_postgres_server() {
  [ -x "$PG_BIN/postgres" ] || apt_install "postgresql-$PG_MAJOR"
}

pkglibdir() { "$PG_BIN/pg_config" --pkglibdir; }

documentdb_installed() {
  local stamp="$TOOLS_DIR/documentdb.installed"
  [ -f "$(pkglibdir)/pg_documentdb.so" ] && [ -f "$(pkglibdir)/pg_documentdb_core.so" ] &&
    [ -f "$(pkglibdir)/vector.so" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$DOCUMENTDB_SHA256 $PGVECTOR_SHA256" ]
}

verified_archive() { # name sha256 -> path, or fails
  local file="$VENDOR_DIR/$1"
  [ -f "$file" ] || { log "missing $file (the repository's vendor/ folder; LINGUA_VENDOR_DIR overrides)"; return 1; }
  echo "$2  $file" | sha256sum -c --quiet - >&2 || { log "sha256 mismatch for $file"; return 1; }
  echo "$file"
}

# Builds DocumentDB and pgvector once into this machine's PostgreSQL 15 (its extension folders are
# system-wide, so this step runs as root). Recipe and its reasons: ../shared/research/ferretdb2-documentdb.md
build_documentdb() {
  local ddb vec work started
  ddb="$(verified_archive "$DOCUMENTDB_ARCHIVE" "$DOCUMENTDB_SHA256")" || return 1
  vec="$(verified_archive "$PGVECTOR_ARCHIVE" "$PGVECTOR_SHA256")" || return 1
  local need
  mapfile -t need < <(not_installed "${DOCUMENTDB_BUILD_DEPS[@]}")
  [ ${#need[@]} -eq 0 ] || apt_install "${need[@]}" || return 1
  started=$(date +%s)
  log "building DocumentDB and pgvector (first run only, about a minute)"
  work="$(mktemp -d)"
  (
    set -e
    cd "$work"
    mkdir documentdb pgvector pkgconfig
    tar -xzf "$ddb" -C documentdb
    tar -xzf "$vec" -C pgvector
    # Debian's Intel decimal library has no pkg-config file; the 000 variant matches DocumentDB's
    # CALL_BY_REF=0 GLOBAL_RND=0 GLOBAL_FLAGS=0
    printf 'Name: intelmathlib\nDescription: Intel decimal floating point\nVersion: 2.0\nLibs: -L/usr/lib/%s -lbidgcc000\nCflags: -I/usr/include\n' \
      "$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)" >pkgconfig/intelmathlib.pc
    export PKG_CONFIG_PATH="$work/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" PG_CONFIG="$PG_BIN/pg_config"
    # libbson 1.23 lacks BSON_SUBTYPE_SENSITIVE; the clang bitcode pass ignores COPT, hence with_llvm=no
    local part
    for part in pg_documentdb_core pg_documentdb; do
      make -s -C "documentdb/$part" -j"$(nproc)" with_llvm=no COPT='-DBSON_SUBTYPE_SENSITIVE=8 -Wno-error=switch' >build.log 2>&1 ||
        { tail -n 30 build.log >&2; exit 1; }
      as_root env PKG_CONFIG_PATH="$PKG_CONFIG_PATH" make -s -C "documentdb/$part" with_llvm=no \
        COPT='-DBSON_SUBTYPE_SENSITIVE=8 -Wno-error=switch' PG_CONFIG="$PG_CONFIG" install >>build.log 2>&1
    done
    make -s -C pgvector with_llvm=no OPTFLAGS="" >>build.log 2>&1 || { tail -n 30 build.log >&2; exit 1; }
    as_root make -s -C pgvector with_llvm=no OPTFLAGS="" PG_CONFIG="$PG_CONFIG" install >>build.log 2>&1
  ) || { rm -rf "$work"; return 1; }
  rm -rf "$work"
  mkdir -p "$TOOLS_DIR"
  echo "$DOCUMENTDB_SHA256 $PGVECTOR_SHA256" >"$TOOLS_DIR/documentdb.installed"
  log "DocumentDB and pgvector built in $(($(date +%s) - started)) s"
}

# PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` system user.
pg_user() { if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

pg_dir() {
  # the cluster lives under the data folder unless its owner cannot reach it (a checkout under /root)
  if [ "$(id -u)" != 0 ] || as_pg test -x "$DATA_DIR" 2>/dev/null; then
    echo "$DATA_DIR/postgres"
  else
    echo "/var/tmp/lingua-postgres-$(printf '%s' "$DATA_DIR" | sha256sum | cut -c1-12)"
  fi
}

pg_url() { echo "postgres://lingua@127.0.0.1:$PG_PORT/${1:-lingua}"; }

pg_conf() { # socket dir -> settings this script owns, rewritten at each start
  cat <<CONF
# written by deploy/local/infra.sh at each start; edit postgresql.conf for your own settings
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$1'
max_connections = 200
# a development database: a crash of the machine may lose the last moments of writes, never corrupt
synchronous_commit = off
# no JIT: DocumentDB's row estimates for an index condition are about an eighth of the collection,
# so on a large collection a one-user \$group costs past jit_above_cost and spent 100 ms compiling
# to read 144 rows in 0.4 ms (ADR 0017)
jit = off
shared_preload_libraries = 'pg_cron,pg_documentdb_core,pg_documentdb'
cron.database_name = 'lingua'
# Debian's pg_cron 1.4 rejects schedules in seconds
documentdb.indexBuildScheduleInSec = 60
# composite indexes serve equality-and-range filters (the due query: 1 ms instead of 6-9); rows
# still come back unordered, the extended RUM that could order them is not used (ADR 0017)
documentdb.defaultUseCompositeOpClass = on
documentdb.enableIndexOrderbyPushdown = on
# DocumentDB's packaging defaults
documentdb.enableCompact = true
documentdb.enableLetAndCollationForQueryMatch = true
documentdb.enableNowSystemVariable = true
documentdb.enableSortbyIdPushDownToPrimaryKey = true
documentdb.enableSchemaValidation = true
documentdb.enableBypassDocumentValidation = true
documentdb.enableUserCrud = true
documentdb.maxUserLimit = 100
CONF
}

ensure_postgres() {
  local dir socket
  ensure_postgres_server
  dir="$(pg_dir)"
  socket="$dir/socket"
  if listening "$PG_PORT"; then log "postgres: already running on $PG_PORT"; return; fi
  if [ ! -f "$dir/PG_VERSION" ]; then
    log "postgres: new cluster in $dir"
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown "$(pg_user)" "$dir"
    as_pg "$PG_BIN/initdb" -D "$dir" -U lingua --auth=trust -E UTF8 --no-locale >"$LOG_DIR/postgres-initdb.log" 2>&1 ||
      { tail -n 20 "$LOG_DIR/postgres-initdb.log" >&2; return 1; }
    echo "include_if_exists = 'lingua.conf'" | as_pg tee -a "$dir/postgresql.conf" >/dev/null
  fi
  as_pg mkdir -p "$socket"
  pg_conf "$socket" | as_pg tee "$dir/lingua.conf" >/dev/null
  as_pg nice -n "$DB_NICE" "$PG_BIN/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start >/dev/null ||
    { tail -n 20 "$dir/server.log" >&2; return 1; }
  echo "$dir" >"$RUN_DIR/postgres.dir"
  ln -sf "$dir/server.log" "$LOG_DIR/postgres.log"
  log "postgres: started on $PG_PORT (cluster $dir)"
}

psql_lingua() { # database sql
  PGOPTIONS="-c client_min_messages=warning" "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U lingua -d "$1" -c "$2"
}

ensure_database() { # name [extension]
  if [ -z "$("$PG_BIN/psql" -X -At -h 127.0.0.1 -p "$PG_PORT" -U lingua -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$1'")" ]; then
    psql_lingua postgres "CREATE DATABASE $1" >/dev/null
  fi
  [ -z "${2:-}" ] || psql_lingua "$1" "CREATE EXTENSION IF NOT EXISTS $2 CASCADE" >/dev/null
}

stop_postgres() {
  local dir
  [ -f "$RUN_DIR/postgres.dir" ] || return 0
  dir="$(cat "$RUN_DIR/postgres.dir")"
  as_pg "$PG_BIN/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 && log "postgres: stopped"
  rm -f "$RUN_DIR/postgres.dir"
}

# ---- FerretDB ------------------------------------------------------------------------------------

ferretdb2_bin() { echo "$TOOLS_DIR/ferretdb-$FERRETDB2_VERSION"; }

build_ferretdb2() {
  local go work
  go="$(go_bin)" || return 1
  work="$(mktemp -d)"
  log "building FerretDB $FERRETDB2_VERSION (first run only, about a minute)"
  mkdir -p "$TOOLS_DIR"
  # the checksum database has no entry for its FerretDB/wire dependency, hence GONOSUMDB
  (cd "$work" && GONOSUMDB=github.com/FerretDB GOBIN="$work" GOFLAGS=-mod=mod \
    "$go" install "github.com/FerretDB/FerretDB/v2/cmd/ferretdb@$FERRETDB2_VERSION") || { rm -rf "$work"; return 1; }
  mv "$work/ferretdb" "$(ferretdb2_bin)"
  rm -rf "$work"
}

start_ferretdb() { # description binary args...
  local what="$1"
  shift
  mkdir -p "$DATA_DIR/ferretdb"
  nice -n "$DB_NICE" "$@" --state-dir="$DATA_DIR/ferretdb" --listen-addr="127.0.0.1:$FERRETDB_PORT" --telemetry=disable \
    --log-level=warn >"$LOG_DIR/ferretdb.log" 2>&1 &
  echo $! >"$RUN_DIR/ferretdb.pid"
  echo "$what" >"$RUN_DIR/ferretdb.engine"
  wait_port ferretdb "$FERRETDB_PORT" 30
  log "ferretdb: started on $FERRETDB_PORT ($what)"
}

ensure_database_server() {
  if [ -n "${MONGO_URL:-}" ]; then log "mongo: MONGO_URL is set, FerretDB not started"; return; fi
  listening "$FERRETDB_PORT" && { log "ferretdb: already running on $FERRETDB_PORT"; return; }
  if [ -n "${LINGUA_DB_ENGINE:-}" ] && [ "$LINGUA_DB_ENGINE" != documentdb ]; then
    log "LINGUA_DB_ENGINE=$LINGUA_DB_ENGINE: the FerretDB v1 engines are gone (ADR 0010); unset it"
    return 1
  fi
  documentdb_installed || joined documentdb || build_documentdb || {
    loud "DocumentDB could not be built from $VENDOR_DIR (the build's output is above). The database is not started: fix the build, or set MONGO_URL to a MongoDB you run."
    return 1
  }
  [ -x "$(ferretdb2_bin)" ] || joined ferretdb || build_ferretdb2 || {
    loud "FerretDB $FERRETDB2_VERSION could not be built (the Go output is above). The database is not started: fix the build, or set MONGO_URL to a MongoDB you run."
    return 1
  }
  install_missing database_runtime_packages
  ensure_postgres
  ensure_database lingua documentdb
  # local development and tests: no MongoDB users (production MongoDB has them, see deploy/)
  start_ferretdb "FerretDB $FERRETDB2_VERSION on PostgreSQL $PG_MAJOR + DocumentDB, port $PG_PORT" \
    "$(ferretdb2_bin)" --postgresql-url="$(pg_url lingua)" --no-auth --debug-addr=
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

# ---- Builds in the background ------------------------------------------------------------------
# The Go builds (FerretDB, the contract check) download modules and compile while apt-get installs,
# and DocumentDB's C build runs while apt-get installs the packages that are not its own: on a fresh
# machine they overlap instead of adding up. Each part joins its build when it needs it.
declare -A BG_JOBS=()

in_background() { # name function: runs it in a process group of its own, its output in $LOG_DIR/name-build.log
  # a process group of its own (set -m), so that a failed or interrupted `up` stops the build's
  # processes too (stop_builds), not only the shell that runs them
  set -m
  "$2" >"$LOG_DIR/$1-build.log" 2>&1 &
  BG_JOBS[$1]=$!
  set +m
}

start_go_builds() { # test-tools (0|1)
  command -v go >/dev/null 2>&1 || [ -x /usr/local/go/bin/go ] || return 0 # built in the foreground later
  [ "$1" = 0 ] || in_background contract build_contract_check
  if database_needed && [ ! -x "$(ferretdb2_bin)" ]; then in_background ferretdb build_ferretdb2; fi
}

stop_builds() {
  local pid
  for pid in "${BG_JOBS[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
}

joined() { # name: waits for its background build; fails when none ran or it failed (built again, in the foreground)
  local pid="${BG_JOBS[$1]:-}"
  [ -n "$pid" ] || return 1
  unset "BG_JOBS[$1]"
  if wait "$pid"; then
    grep '^\[infra\]' "$LOG_DIR/$1-build.log" >&2 || true
    return 0
  fi
  log "$1: the background build failed (its log: $LOG_DIR/$1-build.log); building again in the foreground"
  return 1
}

case "${1:-up}" in
  up)
    mkdir -p "$RUN_DIR" "$LOG_DIR"
    tools=0
    [ "${2:-}" != --test-tools ] || tools=1
    start_go_builds "$tools"
    trap stop_builds EXIT
    trap 'exit 143' TERM
    trap 'exit 130' INT
    [ "$tools" = 0 ] || [ -x /usr/bin/docker-registry ] || REGISTRY_NEW=1
    # first what DocumentDB's build needs, then its build beside the install of everything else
    mapfile -t packages < <({ server_packages; database_packages; } | sort -u)
    [ ${#packages[@]} -eq 0 ] || apt_install "${packages[@]}" || log "the servers' install failed: each part installs its own"
    if database_needed && ! documentdb_installed 2>/dev/null && [ -z "$(not_installed "${DOCUMENTDB_BUILD_DEPS[@]}")" ]; then
      in_background documentdb build_documentdb
    fi
    mapfile -t packages < <({ [ "$tools" = 0 ] || test_tool_packages; language_packages; database_runtime_packages; } | sort -u)
    [ ${#packages[@]} -eq 0 ] || apt_install "${packages[@]}" || log "the combined install failed: each part installs its own"
    [ "$tools" = 0 ] || ensure_test_tools
    ensure_language_data
    ensure_nats
    ensure_redis
    ensure_database_server
    [ "$tools" = 0 ] || joined contract || build_contract_check
    ;;
  down)
    # `down` stops what infra.sh started; `down ferretdb redis` only those parts
    parts=("${@:2}")
    [ ${#parts[@]} -gt 0 ] || parts=(ferretdb postgres redis nats)
    for part in "${parts[@]}"; do
      if [ "$part" = postgres ]; then stop_postgres; else stop_one "$part"; fi
    done
    ;;
  status)
    for pair in "nats:$NATS_PORT" "redis:$REDIS_PORT" "ferretdb:$FERRETDB_PORT" "postgres:$PG_PORT"; do
      if listening "${pair#*:}"; then echo "${pair%%:*}: up on ${pair#*:}"; else echo "${pair%%:*}: down"; fi
    done
    [ ! -f "$RUN_DIR/ferretdb.engine" ] || echo "database engine: $(cat "$RUN_DIR/ferretdb.engine")"
    ;;
  pg-url)
    # for tests that run a FerretDB of their own in front of the same cluster
    pg_url lingua
    ;;
  *)
    echo "usage: $0 up [--test-tools] | down [part...] | status | pg-url" >&2
    exit 2
    ;;
esac
