#!/usr/bin/env bash
# Installs, from Debian's packages and the npm registry, everything `make test`
# needs that a fresh machine of this kind may lack; `make test` and .ci/run
# run it first. Safe and fast to run again: each step runs only when its
# result is missing. Exits non-zero, saying what is missing, when it cannot
# install something.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || need_apt+=(postgresql postgresql-contrib)
command -v psql >/dev/null 2>&1 || need_apt+=(postgresql-client)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
# The README quickstart test runs its curl examples, which use jq.
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
command -v jq >/dev/null 2>&1 || need_apt+=(jq)
# The payslip tests read the PDFs' text with pdftotext.
command -v pdftotext >/dev/null 2>&1 || need_apt+=(poppler-utils)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
# The browser tests drive the system's Chromium (never a downloaded build).
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "install-deps: apt-get install ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "install-deps: missing ${need_apt[*]}; not root, so install them yourself (apt-get install ${need_apt[*]})" >&2
    exit 1
  fi
fi

go mod download

# Tailwind, htmx and axe-core, pinned by package-lock.json.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "install-deps: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

# playwright-go v0.5200.1 needs the playwright 1.52.0 driver: the npm
# package playwright-core unpacked as package/, beside a link to node
# (the browser itself is the system's Chromium). It never downloads browsers.
driver=${PLAYWRIGHT_DRIVER_PATH:-$HOME/.cache/ms-playwright-go/1.52.0}
if ! "$driver/node" "$driver/package/cli.js" --version 2>/dev/null | grep -q '^Version 1\.52\.0$'; then
  echo "install-deps: playwright driver 1.52.0 into $driver"
  rm -rf "$driver/package"
  mkdir -p "$driver"
  (cd "$driver" && npm pack --silent playwright-core@1.52.0 >/dev/null && tar xzf playwright-core-1.52.0.tgz && rm playwright-core-1.52.0.tgz)
  ln -sfn "$(command -v node)" "$driver/node"
  "$driver/node" "$driver/package/cli.js" --version
fi
