#!/usr/bin/env bash
# Stops what deploy/cluster/start.sh [PORT] started: the temporal-server process (by its pid file) and its PostgreSQL.
# The data stays (CLUSTER_KEEP=1 start.sh PORT starts on it again). Same CLUSTER_DATA as start.sh.
set -uo pipefail
PORT="${1:-29233}"
DATA="${CLUSTER_DATA:-${TMPDIR:-/tmp}/hermes-temporal-cluster-$PORT}"
if [[ -f "$DATA/temporal.pid" ]]; then
  pid=$(cat "$DATA/temporal.pid"); kill "$pid" 2>/dev/null
  for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null; rm -f "$DATA/temporal.pid"
fi
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -n "$PGBIN" && -f "$DATA/pg/postmaster.pid" ]] && su postgres -s /bin/sh -c "$PGBIN/pg_ctl -D '$DATA/pg' -m fast stop" >/dev/null
exit 0
