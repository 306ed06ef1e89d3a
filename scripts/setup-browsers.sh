#!/usr/bin/env bash
# Install Debian's Firefox ESR and WebKitGTK's WebDriver (with MiniBrowser) and Xvfb for the browser tests
# in other engines, if missing (site_tests/webdriver_browsers.py drives them; geckodriver comes from PyPI).
set -euo pipefail
missing=()
[ -x /usr/bin/firefox-esr ] || missing+=(firefox-esr)
[ -x /usr/bin/WebKitWebDriver ] || missing+=(webkit2gtk-driver)
command -v Xvfb >/dev/null 2>&1 || missing+=(xvfb)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== installing ${missing[*]} from Debian's packages"
  bash "$(dirname "$0")/apt-install.sh" "${missing[@]}"
fi
