#!/usr/bin/env bash
# install.sh: make Debian's chromium available for the browser tier
# (internal/dashboard, build tag browser). Installs the package only when
# the binary is missing; prints the version found.
set -euo pipefail
if command -v chromium >/dev/null; then
  chromium --version 2>/dev/null | head -1
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: chromium is missing and installing it needs root: apt-get install chromium" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Another apt (a second tier's install, the machine's own) may hold the lock: wait for it.
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
chromium --version 2>/dev/null | head -1
