#!/usr/bin/env bash
# Start or stop a private PostgreSQL cluster from the system's binaries.
#   scripts/pg.sh start DIR PORT   -> prints the connection URL on stdout
#   scripts/pg.sh stop DIR
#   scripts/pg.sh status DIR       -> exit 0 when the cluster is running
# initdb refuses to run as root, so as root the cluster is owned and run by
# the `postgres` user. The socket lives inside DIR; TCP is on 127.0.0.1:PORT.
set -euo pipefail

cmd=${1:?usage: pg.sh start|stop DIR [PORT]}
dir=${2:?usage: pg.sh start|stop DIR [PORT]}

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bindir" ]; then
  if command -v pg_ctl >/dev/null 2>&1; then bindir=$(dirname "$(command -v pg_ctl)"); else
    echo "pg.sh: no PostgreSQL server binaries found (install postgresql)" >&2; exit 1; fi
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then
    su postgres -s /bin/sh -c "$*"
  else
    sh -c "$*"
  fi
}

case "$cmd" in
start)
  port=${3:?usage: pg.sh start DIR PORT}
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" = 0 ]; then
    chown postgres:postgres "$dir"
    # postgres must be able to reach the folder through its parents.
    p=$dir; while [ "$p" != / ]; do p=$(dirname "$p"); chmod o+x "$p" 2>/dev/null || true; done
  fi
  if [ ! -f "$dir/db/PG_VERSION" ]; then
    as_owner "'$bindir/initdb' -D '$dir/db' -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >'$dir/initdb.log' 2>&1" \
      || { cat "$dir/initdb.log" >&2; exit 1; }
  fi
  if ! as_owner "'$bindir/pg_ctl' -D '$dir/db' status >/dev/null 2>&1"; then
    as_owner "'$bindir/pg_ctl' -D '$dir/db' -l '$dir/server.log' -w -t 60 start \
      -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c shared_buffers=1GB -c max_wal_size=8GB -c checkpoint_timeout=30min -c wal_level=minimal -c max_wal_senders=0 -c wal_buffers=64MB\" >/dev/null" \
      || { tail -n 30 "$dir/server.log" >&2; exit 1; }
  fi
  echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
  ;;
stop)
  if [ -f "$dir/db/PG_VERSION" ] && as_owner "'$bindir/pg_ctl' -D '$dir/db' status >/dev/null 2>&1"; then
    as_owner "'$bindir/pg_ctl' -D '$dir/db' -m fast -w stop >/dev/null 2>&1" || true
  fi
  ;;
status)
  [ -f "$dir/db/PG_VERSION" ] && as_owner "'$bindir/pg_ctl' -D '$dir/db' status >/dev/null 2>&1"
  ;;
*)
  echo "pg.sh: unknown command $cmd" >&2; exit 2 ;;
esac
