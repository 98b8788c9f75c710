#!/usr/bin/env bash
# Installs, from Debian's packages and the npm registry, everything `make test`
# needs that a fresh machine of this kind may lack. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || need_apt+=(postgresql postgresql-contrib)
command -v psql >/dev/null 2>&1 || need_apt+=(postgresql-client)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "install-deps: missing ${need_apt[*]} and not root; install them" >&2
  fi
fi
go mod download
