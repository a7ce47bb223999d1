#!/usr/bin/env bash
# Renders an HTML report (run report or comparison) to a PNG with headless Chromium, to check
# by eye that it reads well. Installs Chromium only when it is missing (Debian 12, as root).
# Usage: scripts/report-screenshot.sh runs/<run>/report.html [out.png] [width,height]
set -euo pipefail
html="${1:?usage: $0 REPORT.html [OUT.png] [WIDTH,HEIGHT]}"
out="${2:-${html%.html}.png}"
size="${3:-1280,2400}"
[ -f "$html" ] || { echo "report-screenshot: no such file: $html" >&2; exit 2; }

browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "report-screenshot: installing chromium" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends chromium
  browser="$(command -v chromium)"
fi

profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
abs_html="$(cd "$(dirname "$html")" && pwd)/$(basename "$html")"
case "$out" in /*) abs_out="$out" ;; *) abs_out="$(pwd)/$out" ;; esac
"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
  --hide-scrollbars --screenshot="$abs_out" --window-size="$size" "file://$abs_html" \
  >/dev/null 2>&1
[ -s "$abs_out" ] || { echo "report-screenshot: chromium wrote no image" >&2; exit 1; }
echo "$abs_out"
