#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ with clang (ASan + UBSan) in build-fuzz/ and runs each
# on its seed corpus (fuzz/corpus/<target>/) for SECONDS seconds (default 60). Fails (exit 1)
# on any finding: a crash, an uncaught exception other than the documented rejection, a
# sanitizer report, a leak, a timeout (-timeout=10 s per input) or running out of memory
# (-rss_limit_mb=2048). Reproducers are kept in build-fuzz/findings/<target>/.
#
#   scripts/fuzz-smoke.sh [SECONDS]          # all targets
#   FUZZ_TARGETS="arch options" scripts/fuzz-smoke.sh 30
#   FUZZ_JOBS=2 scripts/fuzz-smoke.sh 600    # parallel workers per target (long runs)
#   FUZZ_SANITIZERS=undefined scripts/fuzz-smoke.sh 900   # UBSan only (no ASan/LSan): several
#                                            # times the execution rate, for the long runs;
#                                            # builds in build-fuzz-undefined/
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-60}"
TARGETS=(${FUZZ_TARGETS:-arch mapping layer_file network layer_arg options study_suite regress_suite onnx sweep_file})
SANITIZERS="${FUZZ_SANITIZERS:-address,undefined}"
if [ "$SANITIZERS" = "address,undefined" ]; then BUILD=build-fuzz; else BUILD="build-fuzz-${SANITIZERS//,/-}"; fi
CXX_BIN="${FUZZ_CXX:-$(command -v clang++ || command -v clang++-14 || true)}"
CC_BIN="${FUZZ_CC:-$(command -v clang || command -v clang-14 || true)}"
if [ -z "$CXX_BIN" ] || [ -z "$CC_BIN" ]; then
  echo "fuzz-smoke: clang not found (scripts/install-deps.sh installs it)" >&2
  exit 1
fi

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMAPWRIGHT_FUZZ=ON \
  -DMAPWRIGHT_FUZZ_SANITIZERS="$SANITIZERS" \
  -DCMAKE_CXX_COMPILER="$CXX_BIN" -DCMAKE_C_COMPILER="$CC_BIN" >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target $(printf '%s_fuzz ' "${TARGETS[@]}")

# Scratch files of the targets that parse a path: on /dev/shm when possible (much faster).
MAPWRIGHT_FUZZ_TMP=$(mktemp -d /dev/shm/mapwright-fuzz.XXXXXX 2>/dev/null || mktemp -d)
export MAPWRIGHT_FUZZ_TMP
trap 'rm -rf "$MAPWRIGHT_FUZZ_TMP"' EXIT
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
failed=()
for t in "${TARGETS[@]}"; do
  work="$BUILD/corpus/$t"        # grows during the run; the seeds in fuzz/corpus stay as they are
  findings="$BUILD/findings/$t"
  mkdir -p "$work" "$findings"
  log="$BUILD/findings/$t.log"
  echo "fuzz-smoke: $t for ${SECONDS_PER_TARGET}s"
  set +e
  if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then
    "$BUILD/fuzz/${t}_fuzz" "$work" "fuzz/corpus/$t" -max_total_time="$SECONDS_PER_TARGET" \
      -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$findings/" -print_final_stats=1 \
      -jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS" >"$log" 2>&1
    rc=$?
    cat fuzz-*.log >>"$log" 2>/dev/null; rm -f fuzz-*.log
  else
    "$BUILD/fuzz/${t}_fuzz" "$work" "fuzz/corpus/$t" -max_total_time="$SECONDS_PER_TARGET" \
      -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$findings/" -print_final_stats=1 \
      >"$log" 2>&1
    rc=$?
  fi
  set -e
  runs=$(grep -h '^stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
  if [ $rc -ne 0 ] || ls "$findings"/crash-* "$findings"/leak-* "$findings"/timeout-* \
      "$findings"/oom-* >/dev/null 2>&1; then
    echo "fuzz-smoke: $t FAILED after $runs executions (exit $rc); see $log and $findings/" >&2
    grep -E 'ERROR|SUMMARY|terminate|what\(\)' "$log" | head -20 >&2 || true
    failed+=("$t")
  else
    echo "fuzz-smoke: $t ok, $runs executions, 0 findings"
  fi
done
# One plain closing line that any CI reads: targets clean vs targets with findings.
echo "fuzz: $(( ${#TARGETS[@]} - ${#failed[@]} )) passed, ${#failed[@]} failed"
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz-smoke: findings in ${failed[*]}" >&2
  exit 1
fi
