#!/usr/bin/env bash
# System packages tambench needs beyond Python:
# - bubblewrap (`bwrap`), the sandbox of `tambench run`;
# - a Chromium for the acquisition stage (a browser that Playwright installed with
#   `playwright install chromium` is used when present; otherwise Debian's `chromium`).
# Each is installed here with apt-get when missing and we are root; otherwise a warning says
# how to get it.
set -euo pipefail

need=()
if ! command -v bwrap >/dev/null 2>&1; then
  need+=(bubblewrap)
fi
if [ ! -x /usr/bin/chromium ] && [ -z "${TAMBENCH_CHROMIUM:-}" ] \
   && ! ls "${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}"/chromium-*/chrome-linux*/chrome >/dev/null 2>&1; then
  need+=(chromium)
fi
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian packages: ${need[*]} (sandbox for tambench run; browser for the acquisition stage)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
else
  for pkg in "${need[@]}"; do
    case "$pkg" in
      bubblewrap) echo "warning: no bwrap found; install your system's bubblewrap package" \
                       "(the sandbox of tambench run; its tests will be skipped)" >&2 ;;
      chromium) echo "warning: no Chromium found; install one with 'playwright install chromium'" \
                     "or your system's chromium package (browser tests will be skipped)" >&2 ;;
    esac
  done
fi
