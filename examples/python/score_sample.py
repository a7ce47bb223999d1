#!/usr/bin/env python3
"""Scores a random sample of a ResNet-50 layer's map space and shows EDP against utilization.

Draws N mappings uniformly from the layer's compact search encoding (seeded), scores them all
in one call of Space.evaluate_batch (the C++ surrogate, GIL released) and prints the spread of
EDP per utilization band next to the exact mapper's optimum. Plots EDP against utilization to
PNG when matplotlib is importable, else writes the points as CSV.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/score_sample.py --samples 100000
"""

import argparse
import csv
import time

import numpy as np

import mapwright as mw


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layer", default="resnet50:layer3.0.conv2")
    ap.add_argument("--arch", default="default")
    ap.add_argument("--samples", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="score_sample", help="PNG or CSV file stem")
    a = ap.parse_args()

    space = mw.Space(a.layer, a.arch)
    print(f"layer {a.layer}: {space.layer.describe()}; arch {a.arch}; compact space "
          f"10^{space.log10_size:.1f} points, {len(space)} parameters")
    rng = np.random.default_rng(a.seed)
    codes = rng.integers(0, space.cardinalities, size=(a.samples, len(space)), dtype=np.int64)
    t = time.perf_counter()
    r = space.evaluate_batch(codes, objective="edp")
    dt = time.perf_counter() - t
    print(f"{a.samples} mappings scored in {dt:.3f} s ({a.samples / dt / 1e6:.2f} M/s), seed "
          f"{a.seed}; {r['valid'].mean() * 100:.1f} % valid")

    valid = r["valid"]
    edp, util = r["edp"][valid], r["utilization"][valid]
    best = mw.exact(a.layer, a.arch)
    print(f"exact mapper's optimum: EDP {best.cost:.4g} (utilization "
          f"{best.metrics.utilization:.3f}); best of the sample: {edp.min():.4g} "
          f"({edp.min() / best.cost:.2f}x the optimum)")
    print(f"{'utilization':>14} {'mappings':>9} {'min EDP':>11} {'median EDP':>11}")
    edges = np.linspace(0, max(util.max(), 1e-9), 9)
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (util >= lo) & (util <= hi if hi == edges[-1] else util < hi)
        if sel.any():
            print(f"{lo:6.3f}-{hi:6.3f} {sel.sum():9d} {edp[sel].min():11.4g} "
                  f"{np.median(edp[sel]):11.4g}")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        path = a.out + ".csv"
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["utilization", "edp_pj_cycles"])
            w.writerows(zip(util.tolist(), edp.tolist()))
        print(f"matplotlib is not installed: the points are in {path}")
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.scatter(util, edp, s=2, alpha=0.3, label=f"{valid.sum()} random mappings")
    ax.scatter([best.metrics.utilization], [best.cost], c="red", marker="*", s=120,
               label="exact mapper's optimum")
    ax.set_yscale("log")
    ax.set_xlabel("utilization")
    ax.set_ylabel("EDP (pJ x cycles)")
    ax.set_title(a.layer)
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.out + ".png", dpi=120)
    print(f"plot: {a.out}.png")


if __name__ == "__main__":
    main()
