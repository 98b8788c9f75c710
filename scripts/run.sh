#!/usr/bin/env bash
# `make run`: a private PostgreSQL under ./data (when DATABASE_URL is unset),
# migrations, demo data on first run, the server on HTTP_ADDR (:8080) with
# dev sign-in.
#
# Stopping: Ctrl-C here, or `make stop` (scripts/stop.sh) from anywhere in
# the repository, stops the server (gracefully) and then the private
# PostgreSQL this run started. The server's process id is in
# ./data/konvoj.pid while it runs.
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p data
pidfile=data/konvoj.pid
if [ -f "$pidfile" ] && [ "$(ps -p "$(cat "$pidfile")" -o comm= 2>/dev/null)" = konvoj ]; then
  echo "run.sh: konvoj is already running (pid $(cat "$pidfile")); \`make stop\` stops it" >&2
  exit 1
fi

started_pg=""
stop_pg() {
  if [ -n "$started_pg" ]; then
    echo "run.sh: stopping the private PostgreSQL in ./data/pg"
    scripts/pg.sh stop ./data/pg
    started_pg=""
  fi
}

if [ -z "${DATABASE_URL:-}" ]; then
  port=${KONVOJ_PG_PORT:-54329}
  # A cluster that was already running (make bench, an earlier run that was
  # killed) is left as it was; `make stop` stops it.
  scripts/pg.sh status ./data/pg || started_pg=yes
  echo "run.sh: starting the private PostgreSQL in ./data/pg (port $port)"
  trap stop_pg EXIT
  admin=$(scripts/pg.sh start ./data/pg "$port")
  if ! psql "$admin" -tAc "SELECT 1 FROM pg_database WHERE datname = 'konvoj'" | grep -q 1; then
    psql "$admin" -qc "CREATE DATABASE konvoj" >/dev/null
  fi
  export DATABASE_URL="postgres://postgres@127.0.0.1:$port/konvoj?sslmode=disable"
fi

export HTTP_ADDR=${HTTP_ADDR:-:8080}
# Links and the sign-in hints name the port the server really listens on.
export PUBLIC_URL=${PUBLIC_URL:-http://localhost:${HTTP_ADDR##*:}}
export JWT_ALG=${JWT_ALG:-HS256}
export JWT_SECRET=${JWT_SECRET:-konvoj-local-development-secret-change-me}
export AUTH_DEV_LOGIN=${AUTH_DEV_LOGIN:-true}
export STORAGE_LOCAL_DIR=${STORAGE_LOCAL_DIR:-./data/files}
export LOG_FORMAT=${LOG_FORMAT:-text}

./bin/konvoj migrate
# Creates the demo company on the first run; later runs change nothing and
# just print the sign-in hints and fresh demo tokens again.
./bin/konvoj seed-demo

# The server runs as a child so that this script can stop PostgreSQL after
# it. A background job of a script ignores Ctrl-C, so the signal is passed
# on as SIGTERM: the server finishes its requests and exits.
./bin/konvoj serve --no-migrate &
server=$!
echo "$server" >"$pidfile"
trap 'kill -TERM "$server" 2>/dev/null || true' INT TERM
echo "run.sh: serving on $PUBLIC_URL (sign in: $PUBLIC_URL/auth/dev); Ctrl-C or \`make stop\` stops it"
status=0
# wait returns early when a trapped signal arrives; wait again for the exit.
while kill -0 "$server" 2>/dev/null; do
  wait "$server" && status=0 || status=$?
done
rm -f "$pidfile"
trap - INT TERM
stop_pg
# 130/143 are the server stopped by a signal: a normal way to stop.
case $status in 130 | 143) status=0 ;; esac
exit "$status"
