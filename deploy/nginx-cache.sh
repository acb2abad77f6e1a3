#!/usr/bin/env bash
# A caching nginx (Debian's nginx package, with proxy_cache) in front of one poolgraph, on a
# port of its own, from deploy/nginx-cache.conf.template: what a CDN or a caching proxy does to
# the service, run here. docs/operations.md ("A cache in front") says what is kept and why.
#
#   deploy/nginx-cache.sh start UPSTREAM   start nginx in front of UPSTREAM (host:port of poolgraph,
#                                          e.g. 127.0.0.1:4000); prints NGINX_CACHE_URL=http://127.0.0.1:PORT
#   deploy/nginx-cache.sh stop             stop it (by the pid it wrote) and remove its directory
#   deploy/nginx-cache.sh purge            empty the cache (nginx keeps running)
#   deploy/nginx-cache.sh config UPSTREAM  print the configuration start would use, and do nothing else
#
# Environment: NGINX_CACHE_UPSTREAM (instead of the argument), NGINX_CACHE_PORT (default: a free
# port below Linux's ephemeral range, chosen at start), NGINX_CACHE_HOST (default 127.0.0.1;
# 0.0.0.0 to listen beyond this machine), NGINX_CACHE_DIR (default: a directory of the user's own
# under $TMPDIR or /tmp; the config, the cache, the logs and the pid file live there),
# NGINX_CACHE_USER (run as root: the user of nginx's workers, default www-data; they own the
# directory). Every answer carries X-Cache-Status: HIT, MISS, EXPIRED, BYPASS.
set -euo pipefail
cd "$(dirname "$0")/.."

DIR="${NGINX_CACHE_DIR:-${TMPDIR:-/tmp}/poolgraph-nginx-cache-$(id -un)}"
HOST="${NGINX_CACHE_HOST:-127.0.0.1}"
TEMPLATE=deploy/nginx-cache.conf.template
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

need_nginx() {
  [ -x "$NGINX" ] && return
  echo "nginx-cache: installing nginx" >&2
  (timeout 300 apt-get update -qq && timeout 600 apt-get install -y -qq nginx) >/dev/null
  NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
  # Debian's package starts its own nginx on port 80 where it can; this script never uses it.
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# A port below Linux's ephemeral range (32768-60999), where no outgoing connection takes it.
free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 12000))
    port_free "$port" && { echo "$port"; return; }
  done
  echo "nginx-cache: no free port found" >&2; exit 1
}

upstream_of() { # the argument or NGINX_CACHE_UPSTREAM: host:port
  local upstream="${1:-${NGINX_CACHE_UPSTREAM:-}}"
  upstream="${upstream#http://}"; upstream="${upstream%/}"
  [[ "$upstream" =~ ^[^[:space:]/]+:[0-9]+$ ]] || { echo "nginx-cache: give poolgraph's address as host:port (got '${upstream}')" >&2; exit 2; }
  echo "$upstream"
}

render() { # upstream, port
  local user=""
  # The master process binds the port; as root it runs its workers as another user (who
  # must own the directory), as anyone else it runs them as itself.
  [ "$(id -u)" = 0 ] && user="user ${NGINX_CACHE_USER:-www-data};"
  sed -e "s|@USER@|$user|" -e "s|@DIR@|$DIR|g" -e "s|@UPSTREAM@|$1|g" -e "s|@LISTEN@|$HOST:$2|g" "$TEMPLATE"
}

running() { [ -f "$DIR/nginx.pid" ] && kill -0 "$(cat "$DIR/nginx.pid")" 2>/dev/null; }

start() {
  local upstream port given_port attempt
  upstream="$(upstream_of "${1:-}")"
  need_nginx
  if running; then echo "nginx-cache: already running in $DIR (pid $(cat "$DIR/nginx.pid")): '$0 stop' first" >&2; exit 1; fi
  mkdir -p "$DIR/cache" "$DIR/temp"
  chmod 700 "$DIR"
  if [ "$(id -u)" = 0 ]; then chown -R "${NGINX_CACHE_USER:-www-data}" "$DIR"; fi
  given_port="${NGINX_CACHE_PORT:-}"
  for attempt in 1 2 3; do
    port="${given_port:-$(free_port)}"
    render "$upstream" "$port" >"$DIR/nginx.conf"
    "$NGINX" -t -q -p "$DIR" -c "$DIR/nginx.conf" -e "$DIR/error.log"
    # nginx daemonizes itself once its port is bound and writes the pid of its master process.
    if "$NGINX" -p "$DIR" -c "$DIR/nginx.conf" -e "$DIR/error.log" 2>>"$DIR/start.log"; then
      for _ in $(seq 1 50); do running && ! port_free "$port" && break; sleep 0.1; done
      if running && ! port_free "$port"; then
        echo "$port" >"$DIR/port"
        echo "nginx-cache: nginx $("$NGINX" -v 2>&1 | sed 's|.*/||') on $HOST:$port in front of $upstream, in $DIR" >&2
        echo "NGINX_CACHE_URL=http://$HOST:$port"
        return
      fi
    fi
    # The port chosen was taken between the check and the bind: choose another.
    [ -z "$given_port" ] && grep -q "Address already in use" "$DIR/start.log" 2>/dev/null && continue
    break
  done
  echo "nginx-cache: nginx did not start:" >&2
  cat "$DIR/start.log" "$DIR/error.log" 2>/dev/null | tail -n 20 >&2
  exit 1
}

stop() {
  if running; then
    local pid
    pid="$(cat "$DIR/nginx.pid")"
    kill -QUIT "$pid" # graceful: requests in flight finish
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -TERM "$pid"
  fi
  # Only a directory this script made (its config is there).
  if [ -f "$DIR/nginx.conf" ]; then rm -rf "$DIR"; fi
}

purge() {
  [ -d "$DIR/cache" ] || { echo "nginx-cache: no cache in $DIR" >&2; exit 1; }
  find "$DIR/cache" -mindepth 1 -delete
}

case "${1:-}" in
  start) start "${2:-}" ;;
  stop) stop ;;
  purge) purge ;;
  config)
    upstream="$(upstream_of "${2:-}")"
    render "$upstream" "${NGINX_CACHE_PORT:-8080}"
    ;;
  *) usage ;;
esac
