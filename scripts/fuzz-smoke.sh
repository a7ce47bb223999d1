#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ with clang (ASan + UBSan) in build-fuzz/ and runs each
# on its seed corpus (fuzz/corpus/<target>/) for SECONDS seconds (default 60). Fails (exit 1)
# on any finding: a crash, an uncaught exception other than the documented rejection, a
# sanitizer report, a leak, a timeout (-timeout=10 s per input) or running out of memory
# (-rss_limit_mb=2048). Reproducers are kept in build-fuzz/findings/<target>/.
#
#   scripts/fuzz-smoke.sh [SECONDS]          # all targets
#   FUZZ_TARGETS="arch options" scripts/fuzz-smoke.sh 30
#   FUZZ_JOBS=2 scripts/fuzz-smoke.sh 600    # parallel workers per target (long runs; then
#                                            # one target at a time)
#   FUZZ_PARALLEL=1 scripts/fuzz-smoke.sh 30 # one target at a time (default: one per core)
#   FUZZ_SANITIZERS=undefined scripts/fuzz-smoke.sh 900   # UBSan only (no ASan/LSan): several
#                                            # times the execution rate, for the long runs;
#                                            # builds in build-fuzz-undefined/
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-60}"
TARGETS=(${FUZZ_TARGETS:-arch mapping layer_file network layer_arg options study_suite regress_suite onnx sweep_file codesign_space})
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
# fuzz_one TARGET: runs one target for SECONDS_PER_TARGET and leaves its verdict in
# $BUILD/findings/TARGET.verdict ("ok RUNS" or "failed RUNS RC").
fuzz_one() {
  local t="$1" work="$BUILD/corpus/$1" findings="$BUILD/findings/$1" rc runs
  local log="$BUILD/findings/$1.log"
  mkdir -p "$work" "$findings"
  set +e
  if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then
    # libFuzzer writes fuzz-<n>.log into the working folder: give each target its own.
    (cd "$findings" && "$OLDPWD/$BUILD/fuzz/${t}_fuzz" "$OLDPWD/$work" "$OLDPWD/fuzz/corpus/$t" \
      -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$OLDPWD/$findings/" -print_final_stats=1 \
      -jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS") >"$log" 2>&1
    rc=$?
    cat "$findings"/fuzz-*.log >>"$log" 2>/dev/null; rm -f "$findings"/fuzz-*.log
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
    echo "failed $runs $rc" >"$BUILD/findings/$t.verdict"
  else
    echo "ok $runs" >"$BUILD/findings/$t.verdict"
  fi
}

# Targets run FUZZ_PARALLEL at a time (default: one per core, each single-threaded), so every
# target still gets its full SECONDS_PER_TARGET while the stage takes about
# SECONDS_PER_TARGET x targets / cores.
parallel="${FUZZ_PARALLEL:-$(nproc 2>/dev/null || echo 1)}"
if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then parallel=1; fi
mkdir -p "$BUILD/findings"
running=0
for t in "${TARGETS[@]}"; do
  rm -f "$BUILD/findings/$t.verdict"
  echo "fuzz-smoke: $t for ${SECONDS_PER_TARGET}s"
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then wait -n || true; running=$((running - 1)); fi
done
wait
failed=()
for t in "${TARGETS[@]}"; do
  read -r verdict runs rc <"$BUILD/findings/$t.verdict" || verdict="failed"
  if [ "$verdict" = ok ]; then
    echo "fuzz-smoke: $t ok, $runs executions, 0 findings"
  else
    echo "fuzz-smoke: $t FAILED after ${runs:-0} executions (exit ${rc:-?}); see $BUILD/findings/$t.log and $BUILD/findings/$t/" >&2
    grep -E 'ERROR|SUMMARY|terminate|what\(\)' "$BUILD/findings/$t.log" | head -20 >&2 || true
    failed+=("$t")
  fi
done
# One plain closing line that any CI reads: targets clean vs targets with findings.
echo "fuzz: $(( ${#TARGETS[@]} - ${#failed[@]} )) passed, ${#failed[@]} failed"
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz-smoke: findings in ${failed[*]}" >&2
  exit 1
fi
