#!/usr/bin/env bash
# Builds mapwright and runs every test (ctest). Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh default
ctest --preset default -j "$(nproc 2>/dev/null || echo 2)" "$@"
