#!/usr/bin/env python3
"""The codesign searchers against the proven optimum of a space.

Runs `mapwright codesign --searcher exact` once (the proven optimum), `grid` once (unless
--no-grid), and every
sampling searcher with --budget B for seeds 1..N; each sampler's run is read back from its
points.json (evaluation order), so its best cost after the first b points is its answer at budget
b (the run itself went on to B: for the batched learners the last batch before b can differ from
a run stopped at b). Prints, per searcher: seeds whose best reached the optimum within B, the
median over seeds of the gap to the optimum after 100, 300 and B points, and the median number of
points to come within 1 % and to reach the optimum ("> B" when more than half of the seeds did not
within B), and the median wall time of a run.

    python3 bench/codesign_searchers.py --space tests/flows/data/codesign_tiny.yaml \
        --budget 1000 --seeds 10 --out runs/codesign-searchers
"""

import argparse
import json
import os
import statistics
import subprocess
import sys


def run(mw, space, out, args):
    """One `mapwright codesign` run into `out`: (codesign.json, points.json)."""
    subprocess.run([mw, "codesign", "--space", space, "--rtl", "none", "--out", out, *args], check=True,
                   stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "codesign.json")) as f:
        summary = json.load(f)
    with open(os.path.join(out, "points.json")) as f:
        points = json.load(f)
    return summary, points


def best_curve(points):
    """best[i]: the lowest cost of a feasible point among the first i + 1."""
    best, curve = float("inf"), []
    for p in points:
        if p.get("feasible"):
            best = min(best, p["cost"])
        curve.append(best)
    return curve


def first_within(curve, target):
    """Points until the best is at most `target` (None: never)."""
    return next((i + 1 for i, c in enumerate(curve) if c <= target), None)


def median_points(hits, budget):
    """Median of points-to-target with misses counted as above the budget."""
    keyed = sorted(h if h is not None else float("inf") for h in hits)
    m = statistics.median(keyed)
    return "> %d" % budget if m == float("inf") else "%g" % m


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--space", required=True)
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--searchers", default="random,sa,ga,bo,ppo,ppo-box,marl")
    ap.add_argument("--out", default="runs/codesign-searchers")
    ap.add_argument("--mapwright", default="build/apps/mapwright")
    ap.add_argument("--no-grid", action="store_true", help="skip the enumeration (large spaces)")
    a = ap.parse_args()
    ex, _ = run(a.mapwright, a.space, os.path.join(a.out, "exact"), [])
    opt = ex["outcome"]["best_cost"]
    print("space %s: %g points; optimum %.10g (exact: %d points, %.2f s)" % (
        a.space, ex["space"]["points"], opt, ex["outcome"]["points_evaluated"],
        ex["outcome"]["seconds"]))
    if not a.no_grid:
        gr, gpts = run(a.mapwright, a.space, os.path.join(a.out, "grid"), ["--searcher", "grid"])
        print("grid: %d points, %.1f s, the same cost: %s" % (
            len(gpts), gr["outcome"]["seconds"], gr["outcome"]["best_cost"] == opt))
    cols = sorted(set((100, 300, a.budget)))
    print("%-8s %8s" % ("searcher", "optimum") + "".join("%10s" % ("gap@%d" % b) for b in cols) +
          " %9s %9s %7s" % ("pts<=1%", "pts=opt", "s/run"))
    for kind in a.searchers.split(","):
        gaps = {b: [] for b in (100, 300, a.budget)}
        hit1, hit0, secs, reached = [], [], [], 0
        for seed in range(1, a.seeds + 1):
            out = os.path.join(a.out, "%s_%d" % (kind, seed))
            s, pts = run(a.mapwright, a.space, out,
                         ["--searcher", kind, "--budget", str(a.budget), "--seed", str(seed)])
            curve = best_curve(pts)
            for b in gaps:
                c = curve[min(b, len(curve)) - 1]
                gaps[b].append(c / opt - 1)
            hit1.append(first_within(curve, opt * 1.01))
            hit0.append(first_within(curve, opt))
            reached += hit0[-1] is not None
            secs.append(s["outcome"]["seconds"])
        pct = lambda v: "%.2f %%" % (100 * statistics.median(v))
        print("%-8s %5d/%-2d" % (kind, reached, a.seeds) +
              "".join("%10s" % pct(gaps[b]) for b in cols) + " %9s %9s %7.1f" % (
                  median_points(hit1, a.budget), median_points(hit0, a.budget),
                  statistics.median(secs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
