#!/usr/bin/env bash
# Speed of `mapwright sweep` over MPI ranks: the same sweep in one process and under
# `mpirun -np K+1` (rank 0 scores the points and runs the RTL step, K ranks solve layers for
# it), each in a fresh folder, with the RTL
# models already in the cache (built by a first run, or `mapwright archs --build`), so the
# times are mapping and RTL verification, not model builds. Prints one line per rank count
# with the wall time, the speedup over one process, and whether every point's figures equal
# the one-process sweep's.
# Usage: bench/sweep_scaling.sh SWEEP_FILE OUT_DIR [K ...]   (default K: 2 4)
set -euo pipefail
file="$1"; out="$2"; shift 2
ranks=("$@")
[ $# -gt 0 ] || ranks=(2 4)
mw="$(cd "$(dirname "$0")/.." && pwd)/build/apps/mapwright"
mkdir -p "$out"
calc() { python3 -c "print($1)"; }
wall() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); calc "$t1 - $t0"; }
rm -rf "$out/ranks1"
t1=$(wall "$mw" sweep --file "$file" --out "$out/ranks1")
printf '%-28s %9.1f s  speedup 1.00\n' "1 process" "$t1"
for k in "${ranks[@]}"; do
  rm -rf "$out/ranks$k"
  tk=$(wall mpirun --oversubscribe -np $((k + 1)) "$mw" sweep --file "$file" --out "$out/ranks$k")
  same=$(python3 - "$out/ranks1/sweep.json" "$out/ranks$k/sweep.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
keys = ("status", "cycles", "energy_pj", "edp", "area_mm2", "pareto_edp", "winner")
print("equal" if all(p.get(k) == q.get(k) for p, q in zip(a["points"], b["points"]) for k in keys)
      and a["winner"] == b["winner"] else "DIFFERENT")
PY
)
  printf '%-28s %9.1f s  speedup %.2f  figures %s\n' "mpirun -np $((k + 1)) ($k computing)" "$tk" \
    "$(calc "$t1 / $tk")" "$same"
done
