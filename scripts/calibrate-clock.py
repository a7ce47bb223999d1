#!/usr/bin/env python3
"""Maps the configurations of a clock-calibration file to a standard-cell library and times them
with `mapwright synth --liberty`, fits the clock model (model/clock.hpp) on the minimum periods
OpenSTA finds and checks it on the held-out configurations (docs/synthesis.md, "The clock
model").

Usage: scripts/calibrate-clock.py [--config configs/synth/clock-calibration.yaml]
                                   [--out clock-calibration] [--jobs 1] [--mapwright PATH]
                                   [--liberty osu018]

Each configuration's arch file is written to OUT/archs/, its run to OUT/<name>/ (a configuration
whose OUT/<name>/asic.json exists, timed on the same RTL parameters, is not run again, so an
interrupted calibration continues). The figures of every configuration go to
OUT/calibration.json (tests/flows/data/clock_calibration.json is a copy, which the clock model's
test reads); the fitted constants and a table of model against static timing per configuration
are printed.

The model: the minimum period at the library's node is the larger of a part independent of the
array (the paths that do not grow with it) and the fold set-up chain, linear in the read lanes
max(rows, cols) (mw_fold_seq sets up every lane's address at a fold's issue, one lane after the
other); the architecture's node scales it by the node-scaling factor OpenSTA's run reports.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

import synth_configs
from synth_configs import fail


def rtl_params(c):
    return {"Rows": c["rows"], "Cols": c["cols"], "InBufBytes": c["kib"][0] * 1024,
            "WtBufBytes": c["kib"][1] * 1024, "AccBufWords": c["kib"][2] * 256,
            "BeatBytes": c["beat"], "BufBanks": c["banks"]}


def timed_params(folder):
    """The RTL parameters the run in `folder` was mapped with (asic.ys' hierarchy line)."""
    try:
        with open(os.path.join(folder, "asic.ys"), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    return {k: int(v) for k, v in re.findall(r"-chparam (\w+) (\d+)", text)}


def run_config(mapwright, out, liberty, c):
    folder = os.path.join(out, c["name"])
    result = os.path.join(folder, "asic.json")
    if os.path.exists(result) and timed_params(folder) == rtl_params(c):
        with open(result, encoding="utf-8") as f:
            return json.load(f), "kept"
    if os.path.exists(folder):
        shutil.rmtree(folder)
    arch = os.path.join(out, "archs", c["name"] + ".yaml")
    synth_configs.write_arch(arch, c, "calibrate-clock.py", "clock-calibration.yaml")
    run = subprocess.run([mapwright, "synth", "--arch", arch, "--liberty", liberty, "--json",
                          "--out", folder], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, check=False)
    if run.returncode not in (0, 3):  # 3: timed, the stated clock not met
        last = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "(no message)"
        raise RuntimeError(f"{c['name']}: mapwright synth exit {run.returncode}: {last}")
    return json.loads(run.stdout), "timed"


def lanes(c):
    return max(c["rows"], c["cols"])


def fit(train):
    """The three constants minimizing the squared relative error of max(fixed, base + per_lane *
    lanes) over the fit set: every split of the fit set by lane count into the configurations
    the fixed part sets (fewer lanes) and those the chain sets, the fixed part their mean and
    the chain a least-squares line (at least two lane counts), the best split kept."""
    counts = sorted({lanes(c) for c in train})
    best = None
    for split in counts:
        low = [c for c in train if lanes(c) < split]
        high = [c for c in train if lanes(c) >= split]
        if len({lanes(c) for c in high}) < 2:
            continue
        a = np.array([[1.0, lanes(c)] for c in high])
        y = np.array([c["period_ns"] for c in high])
        (base, per_lane), *_ = np.linalg.lstsq(a, y, rcond=None)
        fixed = float(np.mean([c["period_ns"] for c in low])) if low else 0.0
        k = {"fixed_ns": fixed, "setup_base_ns": float(base), "setup_per_lane_ns": float(per_lane)}
        err = sum(((predict(k, c) - c["period_ns"]) / c["period_ns"]) ** 2 for c in train)
        if best is None or err < best[0]:
            best = (err, k)
    if best is None:
        raise RuntimeError("the fit set needs at least two lane counts")
    return best[1]


def predict(k, c):
    return max(k["fixed_ns"], k["setup_base_ns"] + k["setup_per_lane_ns"] * lanes(c))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="configs/synth/clock-calibration.yaml")
    ap.add_argument("--out", default="clock-calibration")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--mapwright", default="build/apps/mapwright")
    ap.add_argument("--liberty", default="osu018")
    a = ap.parse_args()
    if a.jobs < 1:
        fail("--jobs", "--jobs", a.jobs, "expected at least 1")
    configs = synth_configs.load(a.config)
    if len({lanes(c) for c in configs if c["part"] == "fit"}) < 3:
        fail(a.config, "fit", [c["name"] for c in configs if c["part"] == "fit"],
             "the fit needs at least three lane counts max(rows, cols)")
    os.makedirs(os.path.join(a.out, "archs"), exist_ok=True)
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = {pool.submit(run_config, a.mapwright, a.out, a.liberty, c): c for c in configs}
        for fut in concurrent.futures.as_completed(futures):
            c = futures[fut]
            try:
                results[c["name"]], how = fut.result()
                print(f"{c['name']}: {how}", flush=True)
            except RuntimeError as e:
                print(f"error: {e}", file=sys.stderr, flush=True)
    missing = [c["name"] for c in configs if c["name"] not in results]
    if missing:
        print("error: no static timing for " + ", ".join(missing) + "; no fit", file=sys.stderr)
        sys.exit(1)
    rows = []
    for c in configs:
        r = results[c["name"]]
        rows.append(dict(c, period_ns=r["design"]["min_period_ns"],
                         pe_period_ns=r["pe"]["min_period_ns"],
                         delay_factor=r["scaling"]["delay_factor"],
                         worst_path=r["design"]["setup_paths"][0]["instances"]
                         if r["design"]["setup_paths"] else [],
                         liberty=r["liberty"], tools=r["tools"]))
    k = fit([r for r in rows if r["part"] == "fit"])
    factors = {r["delay_factor"] for r in rows}
    if len(factors) != 1:
        print(f"error: the runs scale by different delay factors {sorted(factors)}",
              file=sys.stderr)
        sys.exit(1)
    k["delay_factor"] = factors.pop()
    doc = {"model": "max(fixed_ns, setup_base_ns + setup_per_lane_ns * max(rows, cols)) at the "
                    "library's node, times delay_factor at the architecture's node",
           "library_node": results[configs[0]["name"]]["library_node"],
           "target_node": results[configs[0]["name"]]["target_node"],
           "scaling_source": results[configs[0]["name"]]["scaling"]["source"],
           "constants": k,
           "configs": [{key: r[key] for key in ("name", "part", "rows", "cols", "kib", "beat",
                                                "banks", "period_ns", "pe_period_ns",
                                                "worst_path")} for r in rows]}
    with open(os.path.join(a.out, "calibration.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
    print(f"wrote {os.path.join(a.out, 'calibration.json')}")
    print("\nconstants (ns at the library's node; model/clock.hpp):")
    for key, v in k.items():
        print(f"  {key} = {v:.4f}")
    print("\n| config | set | array | banks | STA period ns | model ns | error | PE ns | "
          f"Fmax {doc['target_node']} STA / model MHz |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        m = predict(k, r)
        print(f"| {r['name']} | {r['part']} | {r['rows']}x{r['cols']} | {r['banks']} | "
              f"{r['period_ns']:.3f} | {m:.3f} | {(m - r['period_ns']) / r['period_ns'] * 100:+.1f} %"
              f" | {r['pe_period_ns']:.3f} | {1000 / (r['period_ns'] * k['delay_factor']):.0f} / "
              f"{1000 / (m * k['delay_factor']):.0f} |")


if __name__ == "__main__":
    main()
