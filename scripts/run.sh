#!/usr/bin/env bash
# `make run`: a private PostgreSQL under ./data (when DATABASE_URL is unset),
# migrations, demo data on first run, the server on :8080 with dev sign-in.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${DATABASE_URL:-}" ]; then
  port=${KONVOJ_PG_PORT:-54329}
  echo "run.sh: starting the private PostgreSQL in ./data/pg (port $port)"
  admin=$(scripts/pg.sh start ./data/pg "$port")
  if ! psql "$admin" -tAc "SELECT 1 FROM pg_database WHERE datname = 'konvoj'" | grep -q 1; then
    psql "$admin" -qc "CREATE DATABASE konvoj" >/dev/null
  fi
  export DATABASE_URL="postgres://postgres@127.0.0.1:$port/konvoj?sslmode=disable"
fi

export JWT_ALG=${JWT_ALG:-HS256}
export JWT_SECRET=${JWT_SECRET:-konvoj-local-development-secret-change-me}
export AUTH_DEV_LOGIN=${AUTH_DEV_LOGIN:-true}
export STORAGE_LOCAL_DIR=${STORAGE_LOCAL_DIR:-./data/files}
export LOG_FORMAT=${LOG_FORMAT:-text}

./bin/konvoj migrate
# Creates the demo company on the first run; later runs change nothing and
# just print the sign-in hints and fresh demo tokens again.
./bin/konvoj seed-demo
exec ./bin/konvoj serve --no-migrate
