#!/usr/bin/env bash
# The /docs rendering test drives Debian's Chromium (no browser download: the npm registry and
# Debian are the only sources here). Installs it when missing and we are root; otherwise says how.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's chromium for the /docs rendering test…" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "The /docs rendering test needs Chromium: install it (e.g. apt-get install chromium)." >&2
  exit 1
fi
