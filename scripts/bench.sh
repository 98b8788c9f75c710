#!/usr/bin/env bash
# `make bench`: the load benchmark (cmd/loadbench) against the scale data set
# in a private PostgreSQL under ./data, then the Go benchmarks. The load
# tables are written into docs/performance.md ("Load tables of the last
# `make bench`").
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
# Each data set gets a database of its own on this server (loadbench
# creates, migrates and seeds it), so BENCH_DATABASE_URL must be allowed
# to CREATE DATABASE; without it a private PostgreSQL under ./data is used.
if [ -z "${BENCH_DATABASE_URL:-}" ]; then
  # The private cluster's shared memory in 2 MB pages, as docs/operations.md
  # asks of a production server: on these virtual machines a new session's
  # first touch of each 4 kB page costs microseconds, half a second of the
  # first company rating on a new session (docs/performance.md, "A new
  # database session"). As root only; BENCH_HUGEPAGES=0 leaves the kernel
  # alone, and a cluster already running keeps the pages it started with.
  if [ "$(id -u)" = 0 ] && [ "${BENCH_HUGEPAGES:-1}" != 0 ] && [ "$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)" -lt 600 ]; then
    sysctl -q -w vm.nr_hugepages=600 || echo "bench.sh: could not reserve huge pages; PostgreSQL uses 4 kB pages" >&2
  fi
  port=${KONVOJ_PG_PORT:-54329}
  BENCH_DATABASE_URL=$(scripts/pg.sh start ./data/pg "$port")
fi

# Knobs (docs/performance.md): BENCH_SETS, BENCH_CONNS, BENCH_DURATION,
# BENCH_MIX_DURATION, BENCH_REQUESTS, BENCH_DOC (empty: leave docs/performance.md
# alone), DATABASE_MAX_CONNS (passed to the server), BENCH_GO=0 skips the
# Go benchmarks.
echo "== load benchmark"
go run ./cmd/loadbench -db "$BENCH_DATABASE_URL" -bin ./bin/konvoj \
  -sets "${BENCH_SETS:-10x2000:500,1x20000:20}" -conns "${BENCH_CONNS:-8,32}" \
  -duration "${BENCH_DURATION:-10s}" -mix-duration "${BENCH_MIX_DURATION:-30s}" \
  -requests "${BENCH_REQUESTS:-20}" -out data/bench -doc "${BENCH_DOC-docs/performance.md}"

if [ "${BENCH_GO:-1}" != 0 ]; then
  echo "== Go benchmarks (per request, through the HTTP server, on generated data)"
  scripts/test.sh -run '^$' -bench . -benchmem -benchtime "${BENCH_TIME:-20x}" ./internal/... ./web/...
fi
