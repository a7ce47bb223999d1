#!/usr/bin/env bash
# Checks that every C++ file in the repository is formatted as .clang-format says (clang-format
# 14 from Debian; scripts/install-deps.sh installs it). Exit 1 lists the files that are not;
# `scripts/check-format.sh --fix` formats them in place.
set -euo pipefail
cd "$(dirname "$0")/.."
CF="$(command -v clang-format-14 || command -v clang-format || true)"
if [ -z "$CF" ]; then
  echo "check-format: clang-format not found (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h')
if [ "${1:-}" = "--fix" ]; then
  "$CF" -i "${files[@]}"
  echo "check-format: formatted ${#files[@]} files"
  exit 0
fi
# One clang-format for every file (one per file took half a minute); each unformatted file is
# named in its "<file>:<line>:<col>: error: code should be clang-formatted" lines.
rc=0
report="$("$CF" --dry-run --Werror "${files[@]}" 2>&1 >/dev/null)" || rc=$?
mapfile -t bad < <(printf '%s\n' "$report" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ $rc -ne 0 ] && [ ${#bad[@]} -eq 0 ]; then
  printf '%s\n' "$report" >&2
  echo "check-format: clang-format failed (exit $rc)" >&2
  exit 1
fi
if [ ${#bad[@]} -ne 0 ]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} files differ from .clang-format:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "check-format: run scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
