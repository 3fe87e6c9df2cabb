#!/bin/sh
# Installs the Debian/Ubuntu packages that npm cannot bring, when they are missing; fast otherwise.
#
#   sh scripts/ensure-system.sh          what the service needs: the libraries `canvas` builds against
#   sh scripts/ensure-system.sh --test   and what the tests need too: poppler-utils (pdfsig, pdftotext,
#                                        pdfdetach, pdftoppm), qpdf (PDF structure checks), Chromium for
#                                        the browser tests, nginx for the balancer test and pgbouncer for the
#                                        pooler test (the tests start their own; the packages' system
#                                        services are not started by this install)
#
# As root it runs apt-get (as the local PostgreSQL script does for its server); otherwise it prints
# the exact command to run and fails, so that nothing half-works later.
set -eu

packages="build-essential libcairo2-dev libpango1.0-dev libjpeg-dev libgif-dev librsvg2-dev libpixman-1-dev"
if [ "${1:-}" = "--test" ]; then
  packages="$packages poppler-utils qpdf chromium nginx-light pgbouncer"
fi

missing=""
for p in $packages; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-system: these Debian packages are needed but apt-get is not available:$missing" >&2
  echo "ensure-system: install their equivalents with your system's package manager, then run the command again." >&2
  exit 1
fi
if [ "$(id -u)" != "0" ]; then
  echo "ensure-system: these Debian packages are needed:$missing" >&2
  echo "ensure-system: run: sudo apt-get install -y$missing" >&2
  exit 1
fi

echo "ensure-system: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# Packages with a system service (nginx, pgbouncer) must not start it on install: the tests run their own.
policy_added=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && policy_added=1
fi
trap '[ -n "$policy_added" ] && rm -f /usr/sbin/policy-rc.d' EXIT
# A fresh machine has no package lists yet; a stale list fails the install once, so update then retry.
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1 || {
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing
}
echo "ensure-system: done" >&2
