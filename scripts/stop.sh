#!/usr/bin/env bash
# `make stop`: stops what `make run` started here: the server (SIGTERM, so
# it finishes its requests; it is given 30 s) and the private PostgreSQL
# under ./data/pg. Safe to run when nothing is running.
set -euo pipefail
cd "$(dirname "$0")/.."

pidfile=data/konvoj.pid
if [ -f "$pidfile" ]; then
  pid=$(cat "$pidfile")
  # Only a konvoj process: after a crash the number may belong to another.
  if [ "$(ps -p "$pid" -o comm= 2>/dev/null)" = konvoj ]; then
    echo "stop.sh: stopping the server (pid $pid)"
    kill -TERM "$pid"
    for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "stop.sh: the server did not stop within 30 s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$pidfile"
fi

if scripts/pg.sh status ./data/pg; then
  echo "stop.sh: stopping the private PostgreSQL in ./data/pg"
  scripts/pg.sh stop ./data/pg
fi
if scripts/pg.sh status ./data/pg; then
  echo "stop.sh: the private PostgreSQL in ./data/pg is still running" >&2
  exit 1
fi
echo "stop.sh: nothing of make run is running"
