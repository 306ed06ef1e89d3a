#!/usr/bin/env bash
# Install Node.js and npm from Debian's packages if missing; the npm packages are installed by the build.
set -euo pipefail
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "== installing Node.js and npm from Debian's packages"
  bash "$(dirname "$0")/apt-install.sh" nodejs npm
fi
