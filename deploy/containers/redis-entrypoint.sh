#!/bin/sh
# as the official image: without a config file redis-server would only answer on loopback
# (protected mode), which a compose network cannot reach
case "${1:-}" in -*) set -- redis-server "$@" ;; esac
[ "$1" = redis-server ] && set -- "$@" --protected-mode no
exec "$@"
