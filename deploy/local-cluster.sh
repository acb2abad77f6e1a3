#!/usr/bin/env bash
# A local poolgraph cluster from Debian packages, on ports of its own:
#   Postgres primary (CLUSTER_PG_PORT) and a streaming standby made by pg_basebackup -R
#   (CLUSTER_PG_PORT + 1), Redis (CLUSTER_REDIS_PORT), one devchain, N replicas
#   (CLUSTER_APP_PORT, +1, ...) and HAProxy (CLUSTER_HTTP_PORT) in front of them.
#
#   deploy/local-cluster.sh start [N]   start everything (N replicas, default 4); prints the env
#   deploy/local-cluster.sh stop        stop everything this script started (by the pids it wrote)
#   deploy/local-cluster.sh kill-replica I [SIGNAL]   stop replica I (SIGKILL by default)
#   deploy/local-cluster.sh start-replica I           start replica I again
#   deploy/local-cluster.sh postgres    start only the primary and its standby (tests of read routing)
#   deploy/local-cluster.sh stop-standby / start-standby   stop or start the standby (a standby outage)
#
# Everything lives under CLUSTER_DIR (default /tmp/poolgraph-cluster). Run as root: the
# Postgres clusters belong to the postgres user (initdb refuses root).
set -euo pipefail
cd "$(dirname "$0")/.."

DIR="${CLUSTER_DIR:-/tmp/poolgraph-cluster}"
PG_PORT="${CLUSTER_PG_PORT:-55432}"
STANDBY_PORT=$((PG_PORT + 1))
REDIS_PORT="${CLUSTER_REDIS_PORT:-56379}"
CHAIN_PORT="${CLUSTER_CHAIN_PORT:-58899}"
HTTP_PORT="${CLUSTER_HTTP_PORT:-58080}"
APP_PORT="${CLUSTER_APP_PORT:-54001}"
PG_BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}"
# From /: the postgres user may not enter the working directory (a checkout under a private
# temporary directory), and its tools complain of it at every call.
as_postgres() { (cd / && runuser -u postgres -- "$@"); }

need_haproxy() {
  command -v haproxy >/dev/null 2>&1 && return
  echo "installing haproxy"
  (timeout 300 apt-get update -qq && timeout 600 apt-get install -y -qq haproxy) >/dev/null
}

wait_for() { # what, seconds, command...
  local what=$1 deadline=$((SECONDS + $2)); shift 2
  until "$@" >/dev/null 2>&1; do [ "$SECONDS" -lt "$deadline" ] || break; sleep 0.2; done
  "$@" >/dev/null 2>&1 && return 0
  echo "gave up waiting for $what" >&2; return 1
}

start_postgres() {
  mkdir -p "$DIR"; chown postgres "$DIR"
  as_postgres "$PG_BIN/initdb" -D "$DIR/primary" -U postgres --auth=trust -N >/dev/null
  cat >>"$DIR/primary/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$DIR'
wal_level = replica
max_wal_senders = 5
hot_standby = on
CONF
  echo "host replication postgres 127.0.0.1/32 trust" >>"$DIR/primary/pg_hba.conf"
  as_postgres "$PG_BIN/pg_ctl" -D "$DIR/primary" -l "$DIR/primary.log" -w start >/dev/null
  as_postgres "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres poolgraph
  # The standby: a copy of the primary that replays its WAL as it streams (-R writes primary_conninfo).
  # -c fast: checkpoint at once rather than spread over minutes; -N: a throwaway cluster needs no fsync.
  as_postgres "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PG_PORT" -U postgres -D "$DIR/standby" -R -X stream -c fast -N
  sed -i "s/^port = .*/port = $STANDBY_PORT/" "$DIR/standby/postgresql.conf"
  as_postgres "$PG_BIN/pg_ctl" -D "$DIR/standby" -l "$DIR/standby.log" -w start >/dev/null
}

start_redis() {
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --pidfile "$DIR/redis.pid" --logfile "$DIR/redis.log"
  wait_for redis 20 redis-cli -p "$REDIS_PORT" ping
}

start_devchain() {
  DEVCHAIN_PORT=$CHAIN_PORT DEVCHAIN_DATA_DIR=memory nohup node --import tsx src/devchain/main.ts >"$DIR/devchain.log" 2>&1 &
  echo $! >"$DIR/devchain.pid"
  wait_for devchain 120 grep -q 'stake mint' "$DIR/devchain.log"
  # Service keys of the cluster, the relayer funded by the devchain's faucet.
  node --input-type=module -e '
    import { Keypair } from "@solana/web3.js";
    const [relayer, custody] = [Keypair.generate(), Keypair.generate()];
    const info = await (await fetch(process.argv[1], { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "devchain_info", params: [] }) })).json();
    await fetch(process.argv[1], { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "requestAirdrop", params: [relayer.publicKey.toBase58(), 10e9] }) });
    const key = (k) => JSON.stringify([...k.secretKey]);
    console.log(`RELAYER_SECRET_KEY=${key(relayer)}\nCUSTODY_SECRET_KEY=${key(custody)}\nSTAKE_MINT=${info.result.stakeMint}`);
  ' "http://127.0.0.1:$CHAIN_PORT" >"$DIR/chain.env"
}

replica_env() {
  cat "$DIR/chain.env"
  cat <<ENV
POOLGRAPH_MODE=production
HOST=127.0.0.1
DATABASE_URL=postgres://postgres@127.0.0.1:$PG_PORT/poolgraph
DATABASE_READ_URL=postgres://postgres@127.0.0.1:$STANDBY_PORT/poolgraph
REDIS_URL=redis://127.0.0.1:$REDIS_PORT
SOLANA_RPC_URL=http://127.0.0.1:$CHAIN_PORT
AUTH_SECRET=local-cluster-secret-0123456789abcdef
AUTH_DOMAIN=127.0.0.1:$HTTP_PORT
TRUST_PROXY=loopback
SEED_DEMO_DATA=false
RATE_LIMIT_QUERIES_PER_MINUTE=${CLUSTER_QUERIES_PER_MINUTE:-600}
ENV
}

start_replica() { # index
  local i=$1
  (set -a; . "$DIR/replica.env"; set +a; PORT=$((APP_PORT + i)) exec node --import tsx src/main.ts) >"$DIR/replica-$i.log" 2>&1 &
  echo $! >"$DIR/replica-$i.pid"
}

# A replica that never became ready: what it wrote, so the failure says why.
replica_failed() { # index
  echo "replica $1 wrote:" >&2
  tail -n 40 "$DIR/replica-$1.log" >&2 || true
  exit 1
}

start_haproxy() {
  local servers=""
  for i in $(seq 0 $(($1 - 1))); do servers+="    server replica$i 127.0.0.1:$((APP_PORT + i)) check"$'\n'; done
  sed -e "s/@HAPROXY_PORT@/$HTTP_PORT/" deploy/haproxy.cfg.template | awk -v servers="$servers" '{ if ($0 == "@SERVERS@") printf "%s", servers; else print }' >"$DIR/haproxy.cfg"
  haproxy -f "$DIR/haproxy.cfg" -D -p "$DIR/haproxy.pid"
}

stop_pid() { [ -f "$1" ] && kill "${2:--TERM}" "$(cat "$1")" 2>/dev/null || true; rm -f "$1"; }

case "${1:-}" in
  start)
    n="${2:-4}"
    [ -e "$DIR/primary" ] && { echo "$DIR exists: run '$0 stop' first" >&2; exit 1; }
    need_haproxy
    start_postgres
    start_redis
    start_devchain
    replica_env >"$DIR/replica.env"
    echo "$n" >"$DIR/replicas"
    for i in $(seq 0 $((n - 1))); do start_replica "$i"; done
    for i in $(seq 0 $((n - 1))); do wait_for "replica $i" 300 curl -sf "http://127.0.0.1:$((APP_PORT + i))/readyz" || replica_failed "$i"; done
    start_haproxy "$n"
    wait_for haproxy 20 curl -sf "http://127.0.0.1:$HTTP_PORT/readyz"
    echo "CLUSTER_URL=http://127.0.0.1:$HTTP_PORT/graphql"
    echo "CLUSTER_PRIMARY_URL=postgres://postgres@127.0.0.1:$PG_PORT/poolgraph"
    echo "CLUSTER_STANDBY_URL=postgres://postgres@127.0.0.1:$STANDBY_PORT/poolgraph"
    echo "CLUSTER_REDIS_PORT=$REDIS_PORT"
    ;;
  stop)
    stop_pid "$DIR/haproxy.pid"
    for pidfile in "$DIR"/replica-*.pid; do stop_pid "$pidfile"; done
    stop_pid "$DIR/devchain.pid"
    stop_pid "$DIR/redis.pid"
    for cluster in standby primary; do
      [ -d "$DIR/$cluster" ] && as_postgres "$PG_BIN/pg_ctl" -D "$DIR/$cluster" -m fast -w stop >/dev/null 2>&1 || true
    done
    rm -rf "$DIR"
    ;;
  postgres)
    [ -e "$DIR/primary" ] && { echo "$DIR exists: run '$0 stop' first" >&2; exit 1; }
    start_postgres
    echo "CLUSTER_PRIMARY_URL=postgres://postgres@127.0.0.1:$PG_PORT/poolgraph"
    echo "CLUSTER_STANDBY_URL=postgres://postgres@127.0.0.1:$STANDBY_PORT/poolgraph"
    ;;
  stop-standby) as_postgres "$PG_BIN/pg_ctl" -D "$DIR/standby" -m fast -w stop >/dev/null ;;
  start-standby) as_postgres "$PG_BIN/pg_ctl" -D "$DIR/standby" -l "$DIR/standby.log" -w start >/dev/null ;;
  kill-replica) stop_pid "$DIR/replica-$2.pid" "-${3:-KILL}" ;;
  start-replica) start_replica "$2"; wait_for "replica $2" 300 curl -sf "http://127.0.0.1:$((APP_PORT + $2))/readyz" || replica_failed "$2" ;;
  *) sed -n '2,15p' "$0"; exit 2 ;;
esac
