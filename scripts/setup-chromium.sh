#!/usr/bin/env bash
# Install Debian's Chromium for the browser tests if it is missing (Playwright drives /usr/bin/chromium).
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  echo "== installing Chromium from Debian's packages"
  bash "$(dirname "$0")/apt-install.sh" chromium fonts-dejavu-core
fi
