#!/usr/bin/env bash
# Install Debian's Chromium for the browser tests if it is missing (Playwright drives /usr/bin/chromium).
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  echo "== installing Chromium from Debian's packages"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
fi
