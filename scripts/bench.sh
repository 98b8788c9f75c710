#!/usr/bin/env bash
# `make bench`: the load benchmark (cmd/loadbench) against the scale data set
# in a private PostgreSQL under ./data, then the Go benchmarks. The load
# table is written into README.md's performance section.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v pgbench >/dev/null 2>&1 || missing+=(postgresql-contrib)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "bench.sh: install ${missing[*]}" >&2; exit 1
  fi
fi

go build -o bin/konvoj ./cmd/konvoj
if [ -z "${BENCH_DATABASE_URL:-}" ]; then
  port=${KONVOJ_PG_PORT:-54329}
  admin=$(scripts/pg.sh start ./data/pg "$port")
  psql "$admin" -tAc "SELECT 1 FROM pg_database WHERE datname = 'konvoj_bench'" | grep -q 1 \
    || psql "$admin" -qc "CREATE DATABASE konvoj_bench" >/dev/null
  BENCH_DATABASE_URL="postgres://postgres@127.0.0.1:$port/konvoj_bench?sslmode=disable"
fi
export DATABASE_URL=$BENCH_DATABASE_URL
./bin/konvoj migrate

echo "== load benchmark"
go run ./cmd/loadbench -db "$DATABASE_URL" -bin ./bin/konvoj -duration "${BENCH_DURATION:-30s}" -readme README.md

echo "== Go benchmarks (per request, through the HTTP server, on generated data)"
scripts/test.sh -run '^$' -bench . -benchmem -benchtime "${BENCH_TIME:-20x}" ./internal/... ./web/...
