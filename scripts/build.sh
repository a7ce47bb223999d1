#!/usr/bin/env bash
# Installs the Debian packages (idempotent), configures and builds mapwright (Release, Ninja).
# Usage: scripts/build.sh [preset]   (default preset: "default", build folder build/)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
preset="${1:-default}"
cmake --preset "$preset" >/dev/null
jobs="$(nproc 2>/dev/null || echo 2)"
cmake --build --preset "$preset" -j "$jobs"
