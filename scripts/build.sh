#!/usr/bin/env bash
# Installs the Debian packages (idempotent), configures and builds mapwright (Release, Ninja);
# the default preset also installs the Python module `mapwright` for Debian's python3
# (cmake --install: /usr/local/lib/python3.11/dist-packages/mapwright, the only files it installs).
# Usage: scripts/build.sh [preset [target...]]   (default preset: "default", build folder build/;
# no target: every target, tests, benchmarks and fuzzers included)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
preset="${1:-default}"
shift || true
# ccache sees paths relative to the source tree, so the sanitized build's model objects (compiled
# as in the plain build: systemc/models/CMakeLists.txt) come from the plain build's cache entries.
# A base directory set by the user wins.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
cmake --preset "$preset" >/dev/null
jobs="$(nproc 2>/dev/null || echo 2)"
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build --preset "$preset" -j "$jobs" "${targets[@]}"
if [ "$preset" = default ] && [ -f build/python/mapwright/__init__.py ]; then
  if cmake --install build >/dev/null; then
    echo "build.sh: the Python module mapwright is installed for /usr/bin/python3"
  else  # not root: the build tree's module still works with PYTHONPATH=build/python
    echo "build.sh: could not install the Python module (not root?); use PYTHONPATH=build/python" >&2
  fi
fi
