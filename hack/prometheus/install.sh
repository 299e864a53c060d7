#!/usr/bin/env bash
# install.sh: make Debian's prometheus (with promtool) available. Installs
# the package only when a binary is missing; never enables or starts the
# system service (up.sh runs the binary itself).
set -euo pipefail
if command -v prometheus >/dev/null && command -v promtool >/dev/null; then
  prometheus --version 2>&1 | head -1
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: prometheus is missing and installing it needs root: apt-get install prometheus" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# policy-rc.d keeps the package's postinst from starting the service.
cleanup() { rm -f /usr/sbin/policy-rc.d; }
trap cleanup EXIT
printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
chmod +x /usr/sbin/policy-rc.d
# Another apt (a second tier's install, the machine's own) may hold the lock: wait for it.
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends prometheus >/dev/null
prometheus --version 2>&1 | head -1
