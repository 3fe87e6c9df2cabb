#!/bin/sh
# Installs the npm dependencies when they are missing or out of date; does nothing (fast) otherwise.
#
# - Out of date = node_modules/.deps-stamp is missing or older than package.json / package-lock.json.
# - Plain `npm install` (not `npm ci`): `npm ci` rejects lockfiles that lack other platforms' optional
#   binaries (e.g. @swc/core-darwin-arm64).
# - npm must run under Node 24: npm under the system Node 20 silently skips optional dependencies that
#   need Node >= 22. The project pins `node@24` as a devDependency, so the first install (only when
#   node_modules/.bin/node is missing) uses whatever node is on PATH, and a second one runs with
#   node_modules/.bin first on PATH.
set -eu
cd "$(dirname "$0")/.."

stamp=node_modules/.deps-stamp

up_to_date() {
  [ -f "$stamp" ] && [ -x node_modules/.bin/node ] || return 1
  [ package.json -nt "$stamp" ] && return 1
  [ -f package-lock.json ] && [ package-lock.json -nt "$stamp" ] && return 1
  return 0
}

up_to_date && exit 0

# canvas compiles against system libraries (its prebuilt download cannot always be reached).
sh scripts/ensure-system.sh

npm_install() {
  # --loglevel=error keeps deprecation warnings out of the way; errors still print in full.
  # Tried twice: on a slow registry one install once ran canvas's build script before node-addon-api
  # (its build dependency) was in place; the second install finds every package there and builds it.
  npm install --no-audit --no-fund --loglevel=error || {
    echo "ensure-deps: npm install failed; trying once more..." >&2
    npm install --no-audit --no-fund --loglevel=error
  }
}

if [ ! -x node_modules/.bin/node ]; then
  echo "ensure-deps: installing npm dependencies (bootstrap with $(node --version 2>/dev/null || echo 'node?'))..." >&2
  npm_install
fi
if [ ! -x node_modules/.bin/node ]; then
  echo "ensure-deps: node_modules/.bin/node is missing after npm install (is the 'node' devDependency allowed in package.json allowScripts?)" >&2
  exit 1
fi

PATH="$PWD/node_modules/.bin:$PATH"
export PATH
echo "ensure-deps: installing npm dependencies under Node $(node --version)..." >&2
npm_install
touch "$stamp"
echo "ensure-deps: done" >&2
