#!/usr/bin/env bash
# Install Debian packages by name (as root, or through sudo): scripts/apt-install.sh PACKAGE...
set -euo pipefail
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
