#!/usr/bin/env bash
# Start a throwaway PostgreSQL and Redis on loopback for the scaled-out tests, installing them from
# Debian's packages when they are missing. Prints the environment to use:
#   eval "$(scripts/test-services.sh start)"   then   scripts/test-services.sh stop
set -euo pipefail
DIR=${SHASHKI_SERVICES_DIR:-}
PG_PORT=${SHASHKI_PG_PORT:-55432}
REDIS_PORT=${SHASHKI_REDIS_PORT:-56379}

install_missing() {
  local need=()
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
  command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
  if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
      echo "missing ${need[*]}: install them (apt-get install ${need[*]})" >&2
      return 1
    fi
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
}

start() {
  install_missing
  [ -n "$DIR" ] || DIR=$(mktemp -d /tmp/shashki-services.XXXXXX)
  local bin
  bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)")
  mkdir -p "$DIR"
  if [ ! -f "$DIR/pg/PG_VERSION" ]; then
    mkdir -p "$DIR/pg"
    chown -R postgres "$DIR" 2>/dev/null || true
    runas "$bin/initdb -D $DIR/pg -U shashki --auth=trust -E UTF8" >/dev/null
  fi
  runas "$bin/pg_ctl -D $DIR/pg -o '-p $PG_PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off' -l $DIR/pg.log -w start" >/dev/null
  runas "$bin/psql -h 127.0.0.1 -p $PG_PORT -U shashki -d postgres -tAc \"SELECT 1 FROM pg_database WHERE datname='shashki_test'\"" | grep -q 1 \
    || runas "$bin/createdb -h 127.0.0.1 -p $PG_PORT -U shashki shashki_test"
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no \
    --pidfile "$DIR/redis.pid" --logfile "$DIR/redis.log"
  echo "export SHASHKI_SERVICES_DIR=$DIR"
  echo "export SHASHKI_TEST_DATABASE_URL=postgresql+asyncpg://shashki@127.0.0.1:$PG_PORT/shashki_test"
  echo "export SHASHKI_TEST_REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0"
}

stop() {
  [ -n "$DIR" ] || { echo "SHASHKI_SERVICES_DIR is not set: nothing to stop" >&2; return 0; }
  local bin
  bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1)")
  [ -f "$DIR/pg/postmaster.pid" ] && runas "$bin/pg_ctl -D $DIR/pg -m fast stop" >/dev/null || true
  [ -f "$DIR/redis.pid" ] && kill "$(cat "$DIR/redis.pid")" 2>/dev/null || true
  rm -rf "$DIR"
}

runas() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- bash -c "$1"; else bash -c "$1"; fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
