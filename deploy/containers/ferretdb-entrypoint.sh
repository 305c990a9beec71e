#!/bin/bash
# PostgreSQL (DocumentDB settings as deploy/local/infra.sh) in the background, FerretDB 2 in front on
# 27017 without authentication (a local stand-in; production MongoDB has users). Both stop on SIGTERM.
set -euo pipefail
PG_BIN=/usr/lib/postgresql/15/bin
if [ ! -f "$PGDATA/PG_VERSION" ]; then
  "$PG_BIN/initdb" -D "$PGDATA" -U lingua --auth=trust -E UTF8 --no-locale >/dev/null
  cat >>"$PGDATA/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
unix_socket_directories = '/tmp'
jit = off
shared_preload_libraries = 'pg_cron,pg_documentdb_core,pg_documentdb'
cron.database_name = 'lingua'
documentdb.indexBuildScheduleInSec = 60
documentdb.defaultUseCompositeOpClass = on
documentdb.enableIndexOrderbyPushdown = on
documentdb.enableCompact = true
documentdb.enableLetAndCollationForQueryMatch = true
documentdb.enableNowSystemVariable = true
documentdb.enableSortbyIdPushDownToPrimaryKey = true
documentdb.enableSchemaValidation = true
documentdb.enableBypassDocumentValidation = true
documentdb.enableUserCrud = true
documentdb.maxUserLimit = 100
CONF
fi
"$PG_BIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w -t 60 start >/dev/null || { tail -n 20 "$PGDATA/server.log"; exit 1; }
psql() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U lingua "$@"; }
[ -n "$(psql -At -d postgres -c "SELECT 1 FROM pg_database WHERE datname = 'lingua'")" ] ||
  psql -d postgres -c 'CREATE DATABASE lingua' >/dev/null
PGOPTIONS='-c client_min_messages=warning' psql -d lingua -c 'CREATE EXTENSION IF NOT EXISTS documentdb CASCADE' >/dev/null
/usr/local/bin/ferretdb --postgresql-url=postgres://lingua@127.0.0.1:5432/lingua --no-auth \
  --listen-addr=0.0.0.0:27017 --debug-addr=127.0.0.1:8088 --telemetry=disable --log-level=warn \
  --state-dir=/data/db &
ferret=$!
stop() { kill -TERM "$ferret" 2>/dev/null || true; }
trap stop TERM INT
wait "$ferret" || true
wait "$ferret" 2>/dev/null || true
"$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
