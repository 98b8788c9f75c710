#!/usr/bin/env bash
# `make test`: every test, against real services. It first installs what
# the tests need (scripts/install-deps.sh: apt packages, npm packages, the
# playwright driver) and stops when that fails: no test is skipped for want
# of a tool.
# PostgreSQL: TEST_DATABASE_URL when set, else a throwaway cluster started
# here from the system's binaries and removed afterwards.
# Redis: REDIS_URL when set, else 127.0.0.1:6379 when it answers, else a
# throwaway redis-server when one is installed.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "test.sh: checking the tools the tests need (scripts/install-deps.sh)"
if ! scripts/install-deps.sh; then
  echo "test.sh: cannot run every test: scripts/install-deps.sh failed (see above)" >&2
  exit 1
fi

cleanup=()
on_exit() { for c in "${cleanup[@]}"; do eval "$c" || true; done; }
trap on_exit EXIT

free_port() { python3 - <<'PY' 2>/dev/null || echo $((20000 + RANDOM % 20000))
import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])
PY
}

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  pgdir=$(mktemp -d /tmp/konvoj-testpg.XXXXXX)
  port=$(free_port)
  echo "test.sh: starting a throwaway PostgreSQL in $pgdir on port $port"
  TEST_DATABASE_URL=$(scripts/pg.sh start "$pgdir" "$port")
  export TEST_DATABASE_URL
  cleanup+=("scripts/pg.sh stop '$pgdir'; rm -rf '$pgdir'")
fi

redis_up() { (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
if [ -z "${REDIS_URL:-}" ]; then
  if redis_up 6379; then
    export REDIS_URL=redis://127.0.0.1:6379/0
  elif command -v redis-server >/dev/null 2>&1; then
    rport=$(free_port)
    redis-server --port "$rport" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
      --pidfile "/tmp/konvoj-test-redis-$rport.pid" --logfile "/tmp/konvoj-test-redis-$rport.log"
    export REDIS_URL=redis://127.0.0.1:$rport/0
    cleanup+=("kill \$(cat /tmp/konvoj-test-redis-$rport.pid) 2>/dev/null; rm -f /tmp/konvoj-test-redis-$rport.*")
    for _ in $(seq 50); do redis_up "$rport" && break; sleep 0.1; done
  else
    echo "test.sh: no Redis at 127.0.0.1:6379 and no redis-server to start one; set REDIS_URL" >&2
    exit 1
  fi
fi

# Browser tests (e2e/): the playwright driver where install-deps.sh puts it,
# and axe-core from node_modules (also installed by install-deps.sh).
export PLAYWRIGHT_DRIVER_PATH=${PLAYWRIGHT_DRIVER_PATH:-$HOME/.cache/ms-playwright-go/1.52.0}

echo "test.sh: make check (gofmt, go vet, go mod tidy)"
"${MAKE:-make}" --no-print-directory check
# The browser tests run after the others, not beside them: each starts a
# server and a browser and waits on pages with timeouts, which two cores
# shared with another package's tests stretch (e2e/harness_test.go runs
# them in parallel among themselves).
echo "test.sh: go test (all packages but the browser tests)"
go test -count=1 -timeout 20m "$@" $(go list ./... | grep -v '/e2e$')
echo "test.sh: go test ./e2e (browser tests)"
go test -count=1 -timeout 20m "$@" ./e2e
