#!/usr/bin/env python3
"""Paired comparison of study folders run on the same suite (same layers, seeds and budgets).

A study's run seeds depend only on the suite seed, the layer's position and the searcher
(docs/study.md, "Run seeds"), so run (layer, seed) of a variant pairs with the same run of the
baseline. For each iso-budget B of the suite and each searcher in both folders this prints the
geometric mean over the paired runs of (variant's best cost / baseline's) at B, how many runs
the variant is better / equal / worse in, and the exact two-sided sign-test p-value over the
runs that differ. Reads runs.csv (columns cost_ratio_at_B) only; no randomness.

Usage: scripts/paired-ablation.py BASELINE_DIR VARIANT_DIR [VARIANT_DIR ...]
"""
import csv
import math
import sys
from pathlib import Path


def read_runs(folder):
    """{(searcher, layer, seed): {budget: cost ratio}} and the budgets of runs.csv."""
    with open(Path(folder) / "runs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    budgets = [int(k[len("cost_ratio_at_"):]) for k in rows[0] if k.startswith("cost_ratio_at_")]
    runs = {}
    for r in rows:
        runs[(r["searcher"], r["layer"], r["seed"])] = {
            b: float(r[f"cost_ratio_at_{b}"]) if r[f"cost_ratio_at_{b}"] else math.inf
            for b in budgets}
    return runs, budgets


def sign_test(better, worse):
    """Exact two-sided sign-test p-value for `better` successes in better + worse trials."""
    n = better + worse
    if n == 0:
        return 1.0
    k = min(better, worse)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n
    return min(1.0, 2 * tail)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    base, budgets = read_runs(argv[1])
    for folder in argv[2:]:
        runs, _ = read_runs(folder)
        keys = sorted(k for k in base if k in runs)
        for searcher in sorted({k[0] for k in keys}):
            mine = [k for k in keys if k[0] == searcher]
            cells = []
            for b in budgets:
                logs = [math.log(runs[k][b] / base[k][b]) for k in mine
                        if math.isfinite(runs[k][b]) and math.isfinite(base[k][b])]
                better = sum(1 for x in logs if x < -1e-12)
                worse = sum(1 for x in logs if x > 1e-12)
                ratio = math.exp(sum(logs) / len(logs)) if logs else math.nan
                cells.append(f"@{b}: {ratio:.3f} ({better}/{len(logs) - better - worse}/{worse},"
                             f" p={sign_test(better, worse):.3g})")
            print(f"{folder} {searcher} ({len(mine)} runs; better/equal/worse): " + "; ".join(cells))


if __name__ == "__main__":
    main(sys.argv)
