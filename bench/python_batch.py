#!/usr/bin/env python3
"""The Python module's batch evaluation: evaluations per second on one core.

Space.evaluate_batch over uniform random points of the compact search encoding of every unique
ResNet-50 layer on the default architecture or --arch (NumPy seed 42, --per-layer points per layer, one
call per layer), the C++ work of BM_DecodeEvaluateCompact in build/bench/surrogate_bench (decode
and evaluate, the same distribution of points). CPU time of the process (as Google Benchmark's
CPU column; the wall clock of a shared machine varies), best of --repeat runs.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_batch.py
    taskset -c 0 build/bench/surrogate_bench --benchmark_filter='DecodeEvaluateCompact|SurrogateEvaluate$'
"""

import argparse
import time

import numpy as np

import mapwright as mw


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-layer", type=int, default=65536)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--counts", action="store_true", help="also return the 19 access counts")
    ap.add_argument("--arch", default="default", help="architecture name or YAML file")
    a = ap.parse_args()
    rng = np.random.default_rng(42)
    batches = []
    for layer, _ in mw.network("resnet50").unique_layers():
        space = mw.Space(layer, a.arch)
        codes = rng.integers(0, space.cardinalities, size=(a.per_layer, len(space)),
                             dtype=np.int64)
        batches.append((space, codes))
    n = sum(len(c) for _, c in batches)
    best = None
    for _ in range(a.repeat):
        t = time.process_time()
        for space, codes in batches:
            space.evaluate_batch(codes, counts=a.counts)
        dt = time.process_time() - t
        best = dt if best is None else min(best, dt)
    print(f"{n} evaluations over {len(batches)} unique ResNet-50 layers on {a.arch} (seed 42) in {best:.3f} CPU s: "
          f"{n / best / 1e6:.3f} M evaluations per CPU second (best of {a.repeat}, "
          f"counts={a.counts})")


if __name__ == "__main__":
    main()
