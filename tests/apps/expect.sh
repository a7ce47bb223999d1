#!/bin/sh
# Usage: expect.sh RC TEXT COMMAND [ARGS...]
# Runs COMMAND, prints its output, and passes when it exits with RC and its output contains TEXT.
want_rc="$1"; want_text="$2"; shift 2
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne "$want_rc" ]; then echo "expect.sh: exit code $rc, wanted $want_rc"; exit 1; fi
if ! printf '%s\n' "$out" | grep -qF -- "$want_text"; then echo "expect.sh: output lacks: $want_text"; exit 1; fi
