#!/usr/bin/env bash
# Builds the `sanitize` preset (ASan + UBSan, build-sanitize/) and runs every test under it.
# Fails on a failing test and on any sanitizer report. Every report halts its process (exit 1).
# ASan and LSan reports go to build-sanitize/sanitizer-reports/ (also those of child processes,
# the CLI and RTL workers, whose stderr a test may swallow) and the run fails when that folder is
# not empty; UBSan reports (GCC's runtime writes them to stderr) fail through the exit code.
# Suppressions (third-party code only, one reason per entry) live in tests/sanitize/.
# The C++ Verilator generates from rtl/ and Verilator's runtime are compiled as in the plain build,
# without instrumentation (systemc/models/CMakeLists.txt), so ccache answers them after it.
# Every test runs but those labelled verilator_only (lint and parameter checks of the RTL, which
# run Verilator and none of our code: the plain suite runs them), those labelled python (the
# Python module's pytest files: an ASan-instrumented extension cannot load into the plain
# interpreter, so the sanitized build does not build the module; the plain suite runs them) and
# yosys_only (the synthesis and FPGA smokes: yosys' and nextpnr's runs, with our CLI around them
# covered by the other synth tests); tests/rtl is not built at all (tests/CMakeLists.txt says
# why). The CLI tests find the RTL models the plain suite built in build/model-cache (plain builds
# in both presets). Code that runs once per input compiles at -O0 here (mapwright_sanitize_cold in
# CMakeLists.txt), and tests that repeat one check over many cases run a third of them
# (tests/common/sanitized.hpp); the plain suite runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh sanitize

reports="$PWD/build-sanitize/sanitizer-reports"
rm -rf "$reports"
mkdir -p "$reports"
# malloc_context_size=10: a report's allocation and free stacks keep 10 frames (30 by default);
# recording fewer on every allocation takes about a tenth off the suite's time.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:malloc_context_size=10:log_path=$reports/report${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$PWD/tests/sanitize/ubsan.supp:log_path=$reports/report${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
set +e
ctest --preset sanitize -j "$(nproc 2>/dev/null || echo 2)" -LE 'verilator_only|python|yosys_only' "$@"
rc=$?
set -e
if compgen -G "$reports/*" >/dev/null; then
  echo "run-sanitized-tests: sanitizer reports (also in $reports):" >&2
  for f in "$reports"/*; do
    echo "== $f" >&2
    head -60 "$f" >&2
  done
  rc=1
fi
if [ $rc -eq 0 ]; then
  echo "sanitized tests: all passed, no sanitizer reports"
fi
exit $rc
