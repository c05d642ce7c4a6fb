#!/usr/bin/env bash
# System packages tambench needs beyond Python: a Chromium for the acquisition stage.
# A browser that Playwright installed (`playwright install chromium`) is used when present;
# otherwise Debian's `chromium` package is installed here when we are root.
set -euo pipefail
if [ -x /usr/bin/chromium ] || [ -n "${TAMBENCH_CHROMIUM:-}" ]; then
  exit 0
fi
if ls "${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}"/chromium-*/chrome-linux*/chrome >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's chromium package (browser for the acquisition stage)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "warning: no Chromium found; install one with 'playwright install chromium'" \
       "or your system's chromium package (browser tests will be skipped)" >&2
fi
