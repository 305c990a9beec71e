#!/usr/bin/env bash
# The whole suite (the README's test command) run several times in a row while a busy loop per core
# takes CPU from it: a slow CI machine, on purpose. Prints each run's result and its failed tests,
# then the flake count (distinct tests that failed in some run).
#   bash bench/suite-under-load.sh            3 runs, one busy loop per core
#   RUNS=2 BUSY=1 bash bench/suite-under-load.sh
# The loops stop with the script (also on Ctrl-C); logs go to $LOG_DIR (default /tmp/suite-under-load).
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
BUSY=${BUSY:-$(nproc)}
LOG_DIR=${LOG_DIR:-/tmp/suite-under-load}
mkdir -p "$LOG_DIR"

loops=()
stop_loops() { [ ${#loops[@]} -eq 0 ] || kill "${loops[@]}" 2>/dev/null; }
trap stop_loops EXIT
for _ in $(seq "$BUSY"); do
  bash -c 'while :; do :; done' &
  loops+=($!)
done
echo "[under-load] $BUSY busy loops: ${loops[*]}; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

failures() { grep -E '^\s+● ' "$1" | grep -v '● Console' | sed -E 's/^\s+//' | sort -u; }

failed_runs=0
for run in $(seq "$RUNS"); do
  started=$(date +%s)
  npm test >"$LOG_DIR/run-$run.log" 2>&1
  rc=$?
  took=$(($(date +%s) - started))
  [ $rc -eq 0 ] || failed_runs=$((failed_runs + 1))
  echo "[under-load] run $run: exit $rc in ${took}s; $(grep -E '^Tests:' "$LOG_DIR/run-$run.log" | tr '\n' ' ')"
  # a failure's heading ("● suite › test"), printed by jest's default and verbose reporters alike
  failures "$LOG_DIR/run-$run.log" | sed 's/^/[under-load]   failed: /'
done
distinct=$(for run in $(seq "$RUNS"); do failures "$LOG_DIR/run-$run.log"; done | sort -u | wc -l)
echo "[under-load] $RUNS runs, $failed_runs failed; distinct tests that failed in some run (flakes): $distinct"
[ "$failed_runs" -eq 0 ]
