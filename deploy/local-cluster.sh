#!/usr/bin/env bash
# A local poolgraph cluster from Debian packages, on ports of its own:
#   Postgres, one of two kinds (the third argument of start, default streaming):
#     streaming: a primary (CLUSTER_PG_PORT) and a streaming standby made by pg_basebackup -R
#       (CLUSTER_PG_PORT + 1), no failover: tests of read routing and standby outages.
#     failover: a pair under pg_auto_failover (Debian: postgresql-15-auto-failover,
#       pg-auto-failover-cli): two data nodes (CLUSTER_PG_PORT, + 1) committing synchronously
#       to each other and a monitor (CLUSTER_PG_PORT + 2) that promotes the standby when the
#       primary dies. The replicas get connection strings naming both nodes.
#   Redis (CLUSTER_REDIS_PORT), one devchain, N replicas (CLUSTER_APP_PORT, +1, ...) and HAProxy
#   (CLUSTER_HTTP_PORT) in front of them.
#
#   deploy/local-cluster.sh start [N] [streaming|failover]   start everything (N replicas, default 4); prints the env
#   deploy/local-cluster.sh stop        stop everything this script started (by the pids it wrote)
#   deploy/local-cluster.sh kill-replica I [SIGNAL]   stop replica I (SIGKILL by default)
#   deploy/local-cluster.sh start-replica I           start replica I again
#   deploy/local-cluster.sh postgres [streaming|failover]   start only Postgres (tests of read routing, of failover)
#   deploy/local-cluster.sh stop-standby / start-standby   stop or start the standby (streaming: a standby outage)
#   deploy/local-cluster.sh kill-primary    failover: kill -9 the node that is primary now (its keeper and Postgres); prints NODE= and KILLED_AT= (epoch ms)
#   deploy/local-cluster.sh start-node NODE failover: start a killed node again; it rejoins as the standby
#   deploy/local-cluster.sh state           failover: the monitor's view of the nodes
#
# Everything lives under CLUSTER_DIR (default: a directory of the user's own under $TMPDIR or
# /tmp). Ports not given in the environment are chosen free at start and kept in
# CLUSTER_DIR/ports.env for the later commands, so two users (or two runs) never collide.
# Run as root, the Postgres clusters belong to the postgres user (initdb refuses root); run as
# another user, to that user.
set -euo pipefail
cd "$(dirname "$0")/.."

DIR="${CLUSTER_DIR:-${TMPDIR:-/tmp}/poolgraph-cluster-$(id -un)}"
PG_BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}"
T0=$SECONDS
# Progress on stderr (a step at a time, with the seconds since start); stdout carries the env lines.
step() { echo "local-cluster [$((SECONDS - T0))s] $*" >&2; }

# From /: the postgres user may not enter the working directory (a checkout under a private
# temporary directory), and its tools complain of it at every call.
if [ "$(id -u)" = 0 ]; then
  PG_USER=postgres
  as_postgres() { (cd / && runuser -u postgres -- env "${PGAF_ENV[@]}" "$@"); }
else
  PG_USER=$(id -un)
  as_postgres() { (cd / && env "${PGAF_ENV[@]}" "$@"); }
fi
# pg_autoctl keeps its configuration and state under the XDG directories: the cluster's own.
PGAF_ENV=(XDG_CONFIG_HOME="$DIR/pgaf/config" XDG_DATA_HOME="$DIR/pgaf/data" XDG_RUNTIME_DIR="$DIR/pgaf/run" PATH="$PG_BIN:/usr/bin:/bin")

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# A base port below Linux's ephemeral range (32768-60999) with `span` free ports from it.
free_base() { # span
  local base i
  for _ in $(seq 1 50); do
    base=$((20000 + RANDOM % 12000))
    for ((i = 0; i < $1; i++)); do port_free $((base + i)) || continue 2; done
    echo "$base"; return
  done
  echo "no free ports found" >&2; exit 1
}
# The ports: from the environment, else those chosen at start (ports.env), else chosen now.
load_ports() {
  if [ -f "$DIR/ports.env" ]; then . "$DIR/ports.env"; fi
  PG_PORT="${CLUSTER_PG_PORT:-${PG_PORT:-$(free_base 3)}}"
  REDIS_PORT="${CLUSTER_REDIS_PORT:-${REDIS_PORT:-$(free_base 1)}}"
  CHAIN_PORT="${CLUSTER_CHAIN_PORT:-${CHAIN_PORT:-$(free_base 1)}}"
  HTTP_PORT="${CLUSTER_HTTP_PORT:-${HTTP_PORT:-$(free_base 1)}}"
  APP_PORT="${CLUSTER_APP_PORT:-${APP_PORT:-$(free_base 16)}}"
  STANDBY_PORT=$((PG_PORT + 1))
  MONITOR_PORT=$((PG_PORT + 2))
  KIND="${KIND:-streaming}"
}
save_ports() {
  printf 'PG_PORT=%s\nREDIS_PORT=%s\nCHAIN_PORT=%s\nHTTP_PORT=%s\nAPP_PORT=%s\nKIND=%s\n' \
    "$PG_PORT" "$REDIS_PORT" "$CHAIN_PORT" "$HTTP_PORT" "$APP_PORT" "$KIND" >"$DIR/ports.env"
}
new_dir() {
  [ -e "$DIR/ports.env" ] && { echo "$DIR exists: run '$0 stop' first" >&2; exit 1; }
  mkdir -p "$DIR"; chmod 700 "$DIR"; chown "$PG_USER" "$DIR"
  save_ports
}

need_haproxy() {
  command -v haproxy >/dev/null 2>&1 && return
  step "installing haproxy"
  (timeout 300 apt-get update -qq && timeout 600 apt-get install -y -qq haproxy) >/dev/null
}

wait_for() { # what, seconds, command...
  local what=$1 deadline=$((SECONDS + $2)); shift 2
  until "$@" >/dev/null 2>&1; do [ "$SECONDS" -lt "$deadline" ] || break; sleep 0.2; done
  "$@" >/dev/null 2>&1 && return 0
  echo "gave up waiting for $what" >&2; return 1
}

start_postgres() {
  step "Postgres: a primary on $PG_PORT and a streaming standby on $STANDBY_PORT"
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

# ---- pg_auto_failover: a monitor and two data nodes ---------------------------------------
need_autoctl() {
  command -v pg_autoctl >/dev/null 2>&1 && return
  step "installing pg_auto_failover (postgresql-15-auto-failover, pg-auto-failover-cli)"
  (timeout 300 apt-get update -qq && timeout 600 apt-get install -y -qq postgresql-15-auto-failover pg-auto-failover-cli) >/dev/null
}
MONITOR_URI() { echo "postgres://autoctl_node@127.0.0.1:$MONITOR_PORT/pg_auto_failover?sslmode=disable"; }
NODES=(node1 node2)
node_port() { [ "$1" = node1 ] && echo "$PG_PORT" || echo "$STANDBY_PORT"; }

# pg_autoctl (`create ... --run`, or `run`) for a node, as a process group of its own
# (setsid): killing the group with -9 is the machine dying, keeper and Postgres at once (the
# keeper alone would restart its Postgres).
run_node() { # name, pg_autoctl arguments...
  local name=$1; shift
  touch "$DIR/$name.log"; chown "$PG_USER" "$DIR/$name.log"
  as_postgres bash -c 'log=$1; shift; setsid nohup pg_autoctl "$@" >>"$log" 2>&1 </dev/null & echo $!' _ "$DIR/$name.log" "$@" >"$DIR/$name.pid"
}
monitor_sql() { as_postgres "$PG_BIN/psql" -q -h 127.0.0.1 -p "$MONITOR_PORT" -U "$PG_USER" -d pg_auto_failover -Atc "$1"; }
node_state() { monitor_sql "select reportedstate from pgautofailover.node where nodename = '$1'"; }

start_failover() {
  need_autoctl
  # initdb here rather than by pg_autoctl, without its fsync (-N): seconds less for a throwaway
  # cluster. pg_autoctl takes over an initialised data directory as it is.
  step "pg_auto_failover: initdb of the monitor and of node1"
  local pids=()
  for name in monitor node1; do
    as_postgres "$PG_BIN/initdb" -D "$DIR/$name" -U "$PG_USER" --auth=trust -N >/dev/null &
    pids+=($!)
  done
  wait "${pids[@]}"
  step "pg_auto_failover: the monitor on $MONITOR_PORT"
  run_node monitor create monitor --pgdata "$DIR/monitor" --pgport "$MONITOR_PORT" --hostname 127.0.0.1 --auth trust --no-ssl --run
  wait_for monitor 60 monitor_sql "select 1 from pgautofailover.formation" || { tail -n 20 "$DIR/monitor.log" >&2; exit 1; }
  # Seconds, not the defaults' half minute: a node is unhealthy after 1 missed check and 4 s
  # without a report, and a primary that cannot be reached is waited for 8 s (past the data
  # nodes' network_partition_timeout of 5 s, when an isolated primary demotes itself; with
  # synchronous commit it cannot commit alone anyway) before its standby is promoted.
  for setting in health_check_period=1000 health_check_timeout=1000 health_check_max_retries=1 health_check_retry_delay=500 \
    node_considered_unhealthy_timeout=4000 primary_demote_timeout=8000; do
    monitor_sql "ALTER SYSTEM SET pgautofailover.${setting%=*} = ${setting#*=}"
  done
  monitor_sql "SELECT pg_reload_conf()" >/dev/null
  for node in "${NODES[@]}"; do
    # node2 is made from node1 by pg_basebackup, then follows it.
    step "pg_auto_failover: data node $node on $(node_port "$node")$([ "$node" = node2 ] && echo ', a copy of node1 (pg_basebackup)')"
    run_node "$node" create postgres --pgdata "$DIR/$node" --pgport "$(node_port "$node")" --hostname 127.0.0.1 \
      --listen 127.0.0.1 --name "$node" --dbname poolgraph --monitor "$(MONITOR_URI)" --auth trust --no-ssl --run
    wait_for "$node" 300 node_registered "$node" || { tail -n 20 "$DIR/$node.log" >&2; exit 1; }
    as_postgres pg_autoctl config set --pgdata "$DIR/$node" timeout.network_partition_timeout 5 >/dev/null
  done
  step "pg_auto_failover: waiting for node1 primary and node2 secondary, committing synchronously"
  wait_for "a primary and a secondary" 120 pair_ready || { as_postgres pg_autoctl show state --pgdata "$DIR/monitor" >&2; exit 1; }
}
# node1 has become the only node (single), node2 a standby that has caught up (secondary or beyond).
# pg_autoctl's pg_basebackup waits for a spread checkpoint (minutes on a busy machine): one
# asked for while it waits ends it at once.
node_registered() {
  [ "$1" = node2 ] && [ "$("$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d poolgraph -Atc \
    "select count(*) from pg_stat_progress_basebackup where phase = 'waiting for checkpoint to finish'" 2>/dev/null)" = 1 ] &&
    "$PG_BIN/psql" -q -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d poolgraph -c CHECKPOINT >/dev/null 2>&1
  case "$1:$(node_state "$1")" in node1:single | node1:wait_primary | node1:primary | node2:secondary) return 0 ;; *) return 1 ;; esac
}

# The node that is primary now, by asking each (the monitor may be the one that is down).
primary_node() {
  for node in "${NODES[@]}"; do
    [ "$("$PG_BIN/psql" -h 127.0.0.1 -p "$(node_port "$node")" -U "$PG_USER" -d poolgraph -Atc 'select pg_is_in_recovery()' 2>/dev/null)" = f ] && { echo "$node"; return; }
  done
  return 1
}
# One primary and one secondary, in the monitor's view, the primary committing synchronously.
pair_ready() {
  local states
  states=$(monitor_sql "select string_agg(reportedstate::text || '/' || goalstate::text, ',' order by reportedstate) from pgautofailover.node")
  [ "$states" = "primary/primary,secondary/secondary" ] || return 1
  [ -n "$("$PG_BIN/psql" -h 127.0.0.1 -p "$(node_port "$(primary_node)")" -U "$PG_USER" -d poolgraph -Atc 'show synchronous_standby_names')" ]
}
# The connection strings: every node, and the role wanted of the one connected to.
pair_url() { echo "postgres://$PG_USER@127.0.0.1:$PG_PORT,127.0.0.1:$STANDBY_PORT/poolgraph?target_session_attrs=$1"; }

start_redis() {
  step "Redis on $REDIS_PORT"
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --pidfile "$DIR/redis.pid" --logfile "$DIR/redis.log"
  wait_for redis 20 redis-cli -p "$REDIS_PORT" ping
}

# Started first, while Postgres is made; waited for after.
launch_devchain() {
  step "the devchain on $CHAIN_PORT, starting meanwhile"
  DEVCHAIN_PORT=$CHAIN_PORT DEVCHAIN_DATA_DIR=memory nohup node --import tsx src/devchain/main.ts >"$DIR/devchain.log" 2>&1 &
  echo $! >"$DIR/devchain.pid"
}
start_devchain() {
  step "waiting for the devchain"
  wait_for devchain 300 grep -q 'stake mint' "$DIR/devchain.log" || { tail -n 20 "$DIR/devchain.log" >&2; exit 1; }
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
DATABASE_URL=$([ "$KIND" = failover ] && pair_url read-write || echo "postgres://postgres@127.0.0.1:$PG_PORT/poolgraph")
DATABASE_READ_URL=$([ "$KIND" = failover ] && pair_url standby || echo "postgres://postgres@127.0.0.1:$STANDBY_PORT/poolgraph")
REDIS_URL=redis://127.0.0.1:$REDIS_PORT
SOLANA_RPC_URL=http://127.0.0.1:$CHAIN_PORT
# A fresh secret per cluster: the replicas share it through this file, and nothing fixed signs sessions.
AUTH_SECRET=$(node -e 'console.log(require("node:crypto").randomBytes(32).toString("hex"))')
AUTH_DOMAIN=127.0.0.1:$HTTP_PORT
TRUST_PROXY=loopback
SEED_DEMO_DATA=false
RATE_LIMIT_QUERIES_PER_MINUTE=${CLUSTER_QUERIES_PER_MINUTE:-600}
RATE_LIMIT_MUTATIONS_PER_MINUTE=${CLUSTER_MUTATIONS_PER_MINUTE:-60}
ENV
}

start_replica() { # index
  local i=$1
  # Appended: a replica started again keeps what the one before wrote.
  (set -a; . "$DIR/replica.env"; set +a; PORT=$((APP_PORT + i)) exec node --import tsx src/main.ts) >>"$DIR/replica-$i.log" 2>&1 &
  echo $! >"$DIR/replica-$i.pid"
}

# Waits for replica I to answer /readyz. One that exits meanwhile is started again, as a
# supervisor would, up to 3 times: on a loaded machine a start can fail on a dependency slow to
# answer (the chain's first call has 5 s), and waiting out the deadline for a dead process helps no one.
wait_replica() { # index, seconds
  local i=$1 deadline=$((SECONDS + $2)) starts=1
  until curl -sf "http://127.0.0.1:$((APP_PORT + i))/readyz" >/dev/null 2>&1; do
    if ! kill -0 "$(cat "$DIR/replica-$i.pid")" 2>/dev/null; then
      [ "$starts" -le 3 ] || return 1
      step "replica $i exited ($(grep -E '^[A-Za-z]*Error' "$DIR/replica-$i.log" | tail -n 1 | cut -c1-160)); starting it again"
      start_replica "$i"
      starts=$((starts + 1))
    fi
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

# A replica that never became ready: what it wrote, so the failure says why.
replica_failed() { # index
  echo "replica $1 wrote:" >&2
  tail -n 40 "$DIR/replica-$1.log" >&2 || true
  exit 1
}

start_haproxy() {
  step "HAProxy on $HTTP_PORT"
  local servers=""
  for i in $(seq 0 $(($1 - 1))); do servers+="    server replica$i 127.0.0.1:$((APP_PORT + i)) check"$'\n'; done
  for i in $(seq 0 $(($1 - 1))); do servers+="    server replica$i-unready 127.0.0.1:$((APP_PORT + i)) backup"$'\n'; done
  sed -e "s/@HAPROXY_PORT@/$HTTP_PORT/" deploy/haproxy.cfg.template | awk -v servers="$servers" '{ if ($0 == "@SERVERS@") printf "%s", servers; else print }' >"$DIR/haproxy.cfg"
  haproxy -f "$DIR/haproxy.cfg" -D -p "$DIR/haproxy.pid"
}

stop_pid() { [ -f "$1" ] && kill "${2:--TERM}" "$(cat "$1")" 2>/dev/null || true; rm -f "$1"; }

print_postgres_env() {
  if [ "$KIND" = failover ]; then
    echo "CLUSTER_DATABASE_URL=$(pair_url read-write)"
    echo "CLUSTER_DATABASE_READ_URL=$(pair_url standby)"
    echo "CLUSTER_MONITOR_URL=postgres://$PG_USER@127.0.0.1:$MONITOR_PORT/pg_auto_failover"
  fi
  echo "CLUSTER_PRIMARY_URL=postgres://$PG_USER@127.0.0.1:$PG_PORT/poolgraph"
  echo "CLUSTER_STANDBY_URL=postgres://$PG_USER@127.0.0.1:$STANDBY_PORT/poolgraph"
}
start_database() {
  if [ "$KIND" = failover ]; then start_failover; else start_postgres; fi
}

cmd="${1:-}"
case "$cmd" in
  start) KIND="${3:-streaming}" ;;
  postgres) KIND="${2:-streaming}" ;;
esac
case "${KIND:-streaming}" in streaming | failover) ;; *) echo "unknown kind of Postgres: $KIND (streaming or failover)" >&2; exit 2 ;; esac
load_ports

case "$cmd" in
  start)
    n="${2:-4}"
    new_dir
    step "starting in $DIR: Postgres ($KIND), Redis, a devchain, $n replicas, HAProxy"
    need_haproxy
    launch_devchain
    start_database
    start_redis
    start_devchain
    replica_env >"$DIR/replica.env"
    echo "$n" >"$DIR/replicas"
    step "$n replicas on $APP_PORT-$((APP_PORT + n - 1)) (the first applies the migrations; about 20 s)"
    for i in $(seq 0 $((n - 1))); do start_replica "$i"; done
    for i in $(seq 0 $((n - 1))); do
      wait_replica "$i" 600 || replica_failed "$i"
      step "replica $i ready"
    done
    start_haproxy "$n"
    wait_for haproxy 20 curl -sf "http://127.0.0.1:$HTTP_PORT/readyz"
    step "ready"
    echo "CLUSTER_DIR=$DIR"
    echo "CLUSTER_URL=http://127.0.0.1:$HTTP_PORT/graphql"
    print_postgres_env
    echo "CLUSTER_REDIS_PORT=$REDIS_PORT"
    ;;
  stop)
    [ -d "$DIR" ] || exit 0
    step "stopping what runs in $DIR"
    stop_pid "$DIR/haproxy.pid"
    for pidfile in "$DIR"/replica-*.pid; do stop_pid "$pidfile"; done
    stop_pid "$DIR/devchain.pid"
    stop_pid "$DIR/redis.pid"
    for cluster in standby primary; do
      [ -d "$DIR/$cluster" ] && as_postgres "$PG_BIN/pg_ctl" -D "$DIR/$cluster" -m fast -w stop >/dev/null 2>&1 || true
    done
    # pg_auto_failover: each node's process group (keeper and Postgres), the monitor last.
    for node in node1 node2 monitor; do
      [ -f "$DIR/$node.pid" ] || continue
      kill -TERM -- "-$(cat "$DIR/$node.pid")" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 -- "-$(cat "$DIR/$node.pid")" 2>/dev/null || break; sleep 0.2; done
      kill -KILL -- "-$(cat "$DIR/$node.pid")" 2>/dev/null || true
    done
    rm -rf "$DIR"
    ;;
  postgres)
    new_dir
    start_database
    print_postgres_env
    ;;
  stop-standby) as_postgres "$PG_BIN/pg_ctl" -D "$DIR/standby" -m fast -w stop >/dev/null ;;
  start-standby) as_postgres "$PG_BIN/pg_ctl" -D "$DIR/standby" -l "$DIR/standby.log" -w start >/dev/null ;;
  kill-primary)
    node=$(primary_node) || { echo "no node is primary now" >&2; exit 1; }
    step "kill -9 of $node (port $(node_port "$node")): its keeper and its Postgres"
    kill -KILL -- "-$(cat "$DIR/$node.pid")"
    echo "NODE=$node"
    echo "KILLED_AT=$(date +%s%3N)"
    ;;
  start-node)
    step "starting $2 again: it rejoins as the standby (pg_rewind, or a new copy)"
    run_node "$2" run --pgdata "$DIR/$2"
    ;;
  state) as_postgres pg_autoctl show state --pgdata "$DIR/monitor" ;;
  kill-replica) stop_pid "$DIR/replica-$2.pid" "-${3:-KILL}" ;;
  start-replica) start_replica "$2"; wait_replica "$2" 300 || replica_failed "$2" ;;
  *) sed -n '2,30p' "$0"; exit 2 ;;
esac
