#!/bin/sh
# as the official image: arguments starting with "-" are nats-server options
case "${1:-}" in -*) set -- nats-server "$@" ;; esac
exec "$@"
