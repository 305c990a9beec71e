#!/usr/bin/env bash
# podman 4.3 schedules container health checks with systemd timers; where there is no systemd (CI,
# containers, these machines) nothing runs them and every container stays "starting", so
# docker-compose waits forever on `condition: service_healthy`. This loop is the timer: every
# INTERVAL seconds (default 10, the compose files' `interval`: a shorter one would spend their
# `retries` faster than intended) it runs the health check of each running container of PROJECT.
#   CONTAINERS_CONF=deploy/containers/containers.conf bash deploy/containers/health-timer.sh PROJECT [INTERVAL]
set -uo pipefail
project="$1"
interval="${2:-10}"
while :; do
  for c in $(podman ps -q --filter "label=com.docker.compose.project=$project" --filter health=starting \
    --filter health=healthy --filter health=unhealthy 2>/dev/null | sort -u); do
    podman healthcheck run "$c" >/dev/null 2>&1 &
  done
  wait
  sleep "$interval"
done
