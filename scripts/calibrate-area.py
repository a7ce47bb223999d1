#!/usr/bin/env python3
"""Synthesizes the configurations of an area-calibration file with `mapwright synth`, fits the
area model's logic terms (model/area.hpp) on the synthesized cell areas and checks them on the
held-out configurations (docs/synthesis.md, "The area model calibrated on synthesis").

Usage: scripts/calibrate-area.py [--config configs/synth/area-calibration.yaml]
                                  [--out area-calibration] [--jobs 2] [--mapwright PATH]

Each configuration's arch file is written to OUT/archs/, its synthesis to OUT/<name>/ (a
configuration whose OUT/<name>/synth.json exists is not synthesized again, so an interrupted
run continues). The per-module figures of every configuration go to OUT/calibration.json
(tests/flows/data/area_calibration.json is a copy, which the area model's test reads); the
fitted constants and a table of model against synthesis per configuration are printed.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys

import numpy as np

import synth_configs
from synth_configs import fail


def load(path):
    """The configurations of `path`, with the fit set the area model's terms need."""
    configs = synth_configs.load(path)
    fit_set = [c for c in configs if c["part"] == "fit"]
    plain = sum(1 for c in fit_set if c["banks"] == 0)
    if plain < 2 or len(fit_set) - plain < 4:
        fail(path, "fit", len(fit_set), "the fit needs at least 2 configurations without banks "
             f"and 4 with (has {plain} and {len(fit_set) - plain})")
    return configs


def synthesize(mapwright, out, c):
    folder = os.path.join(out, c["name"])
    result = os.path.join(folder, "synth.json")
    if os.path.exists(result):
        with open(result, encoding="utf-8") as f:
            kept = json.load(f)
        if "cell_area_um2" in kept["design"]:  # else written before synth priced the cells
            return kept, "kept"
        shutil.rmtree(folder)
    arch = os.path.join(out, "archs", c["name"] + ".yaml")
    synth_configs.write_arch(arch, c, "calibrate-area.py", "area-calibration.yaml")
    run = subprocess.run([mapwright, "synth", "--arch", arch, "--json", "--out", folder],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    if run.returncode != 0:
        last = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "(no message)"
        raise RuntimeError(f"{c['name']}: mapwright synth exit {run.returncode}: {last}")
    with open(result, "w", encoding="utf-8") as f:
        f.write(run.stdout)
    return json.loads(run.stdout), "synthesized"


# The area model's logic parts (model/area.cpp) as sums of synthesized modules. mw_buffers and
# mw_cmd are flattened into mw_accel by the synthesis script, so on a banked configuration the
# bank logic is what its modules add to the unbanked parts' prediction.
PARTS = {
    "pe_array": ("mw_pe", "mw_mesh"),
    "array_edge": ("mw_array", "mw_skew"),
    "compute": ("mw_compute",),
    "dma": ("mw_dma",),
    "control": ("mw_accel", "mw_fifo", "mw_buf"),
    "bank": ("mw_bank_buf", "mw_row_fetch", "mw_sram"),
}


def features(p):
    """The model's variables of one configuration (model/area.cpp names the same ones)."""
    r, c, beat, banks = p["Rows"], p["Cols"], p["BeatBytes"], p["BufBanks"]
    lanes = max(r, c)
    tri = lambda n, w: n * (n - 1) // 2 * w
    return {"pes": r * c, "cols": c, "lanes": lanes, "beat": beat, "banks": banks,
            "skew_bits": tri(r, 8) + tri(c, 8) + tri(c, 32),
            "bank_lanes": banks * lanes, "bank_beat": banks * beat, "bank_cols": banks * c,
            "bank_mod": modulo_cells(p)}


def modulo_cells(p):
    """model::bank_modulo_cells: the bank decodes' modulos (dividend bits x divisor bits) when
    the bank count is not a power of two."""
    banks = p["BufBanks"]
    if banks <= 0 or banks & (banks - 1) == 0:
        return 0
    width = lambda depth: max((depth - 1).bit_length(), 8)
    lanes, beat = max(p["Rows"], p["Cols"]), p["BeatBytes"]
    dividend = ((lanes + 1) * width(p["InBufBytes"]) + (lanes + 1) * width(p["WtBufBytes"])
                + (2 * p["Cols"] + beat + beat // 4) * width(p["AccBufWords"]) + lanes * 17)
    return dividend * banks.bit_length()


def part_areas(cfg):
    area = {k: 0.0 for k in PARTS}
    for m in cfg["modules"]:
        for part, mods in PARTS.items():
            if m["module"] in mods:
                area[part] += m["cell_area_um2"]
                break
        else:
            raise RuntimeError(f"{cfg['name']}: module {m['module']} in no part of the model")
    return area


def lstsq(rows, cols, target):
    a = np.array([[r[k] if k != "one" else 1.0 for k in cols] for r in rows], dtype=float)
    y = np.array(target, dtype=float)
    coef, *_ = np.linalg.lstsq(a, y, rcond=None)
    return dict(zip(cols, coef))


def fit(configs):
    """Least squares of each part on its variables over the `fit` configurations."""
    train = [c for c in configs if c["part"] == "fit"]
    x = [features(c["params"]) for c in train]
    a = [part_areas(c) for c in train]
    plain = [i for i, c in enumerate(train) if c["params"]["BufBanks"] == 0]
    k = {}
    k["pe_um2"] = lstsq(x, ["pes"], [r["pe_array"] for r in a])["pes"]
    e = lstsq(x, ["one", "cols", "skew_bits"], [r["array_edge"] for r in a])
    k.update(array_fixed_um2=e["one"], array_per_col_um2=e["cols"],
             skew_um2_per_bit=e["skew_bits"])
    cp = lstsq([x[i] for i in plain], ["one", "lanes"], [a[i]["compute"] for i in plain])
    k.update(compute_fixed_um2=cp["one"], compute_per_lane_um2=cp["lanes"])
    d = lstsq([x[i] for i in plain], ["one", "beat"], [a[i]["dma"] for i in plain])
    k.update(dma_fixed_um2=d["one"], dma_per_beat_byte_um2=d["beat"])
    k["control_fixed_um2"] = float(np.mean([a[i]["control"] for i in plain]))
    banked = [i for i, c in enumerate(train) if c["params"]["BufBanks"] > 0]
    extra = []
    for i in banked:
        unbanked = (k["compute_fixed_um2"] + k["compute_per_lane_um2"] * x[i]["lanes"]
                    + k["dma_fixed_um2"] + k["dma_per_beat_byte_um2"] * x[i]["beat"]
                    + k["control_fixed_um2"])
        extra.append(a[i]["bank"] + a[i]["compute"] + a[i]["dma"] + a[i]["control"] - unbanked)
    b = lstsq([x[i] for i in banked], ["one", "bank_lanes", "bank_beat", "bank_cols", "bank_mod"],
              extra)
    k.update(bank_fixed_um2=b["one"], bank_per_lane_um2=b["bank_lanes"],
             bank_per_beat_byte_um2=b["bank_beat"], bank_per_col_um2=b["bank_cols"],
             bank_modulo_um2=b["bank_mod"])
    return k


def predict(k, p):
    x = features(p)
    parts = {
        "pe_array": k["pe_um2"] * x["pes"],
        "array_control": (k["array_fixed_um2"] + k["array_per_col_um2"] * x["cols"]
                          + k["skew_um2_per_bit"] * x["skew_bits"] + k["compute_fixed_um2"]
                          + k["compute_per_lane_um2"] * x["lanes"] + k["control_fixed_um2"]),
        "dma": k["dma_fixed_um2"] + k["dma_per_beat_byte_um2"] * x["beat"],
        "bank": (k["bank_fixed_um2"] + k["bank_per_lane_um2"] * x["bank_lanes"]
                 + k["bank_per_beat_byte_um2"] * x["bank_beat"]
                 + k["bank_per_col_um2"] * x["bank_cols"] + k["bank_modulo_um2"] * x["bank_mod"]
                 if x["banks"] else 0.0),
    }
    return parts


def report(configs, k):
    print("\nconstants (um^2, NanGate45 X1 prices of yosys' cells):")
    for name, v in k.items():
        print(f"  {name}: {v:.1f}")
    print("\n| config | set | array | beat | banks | synthesized logic um^2 | model um^2 | error "
          "| yosys wall s | peak MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worst = {"fit": 0.0, "check": 0.0}
    for c in configs:
        p = c["params"]
        synth = sum(part_areas(c).values())
        model = sum(predict(k, p).values())
        err = (model - synth) / synth * 100
        worst[c["part"]] = max(worst[c["part"]], abs(err))
        print(f"| {c['name']} | {c['part']} | {p['Rows']}x{p['Cols']} | {p['BeatBytes']} | "
              f"{p['BufBanks']} | {synth:,.0f} | {model:,.0f} | {err:+.2f} % | "
              f"{c.get('seconds', 0):.0f} | {c.get('peak_rss_mib', 0):,.0f} |")
    print(f"\nlargest error: fit {worst['fit']:.2f} %, check {worst['check']:.2f} %")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="configs/synth/area-calibration.yaml")
    ap.add_argument("--out", default="area-calibration")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--mapwright", default="build/apps/mapwright")
    a = ap.parse_args()
    if a.jobs < 1:
        fail("--jobs", "--jobs", a.jobs, "expected at least 1")
    configs = load(a.config)
    os.makedirs(os.path.join(a.out, "archs"), exist_ok=True)
    rows, failed = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        # The largest first (yosys' time grows with the array and the banks), so that the jobs
        # end together instead of the largest running alone at the end.
        todo = sorted(configs, key=lambda c: -(c["rows"] * c["cols"] * (c["banks"] + 1)))
        futures = {pool.submit(synthesize, a.mapwright, a.out, c): c for c in todo}
        for fut in concurrent.futures.as_completed(futures):
            c = futures[fut]
            try:
                r, how = fut.result()
            except RuntimeError as e:
                print(f"error: {e}", file=sys.stderr, flush=True)
                failed.append({"name": c["name"], "part": c["part"], "failure": str(e)})
                continue
            print(f"{c['name']}: {how}, {r['design']['transistors']:,} transistors, "
                  f"{r['seconds']:.0f} s", flush=True)
            rows.append({"name": c["name"], "part": c["part"], "params": r["params"],
                         "yosys": r["yosys"],
                         "seconds": r["seconds"], "peak_rss_mib": r["peak_rss_mib"],
                         "design": {k: r["design"][k] for k in ("cells", "flops", "transistors")},
                         "design_depth": r["design"]["depth"],
                         "modules": [{k: m[k] for k in ("module", "instances", "transistors",
                                                        "flops", "cell_area_um2", "depth",
                                                        "cells_by_type")}
                                     for m in r["modules"]]})
    order = [c["name"] for c in configs]
    rows.sort(key=lambda r: order.index(r["name"]))
    doc = {"yosys": rows[0]["yosys"] if rows else "", "configs": rows, "failed": failed}
    with open(os.path.join(a.out, "calibration.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {os.path.join(a.out, 'calibration.json')}")
    if any(f["part"] == "fit" for f in failed):
        print("error: a configuration of the fit set failed; no fit", file=sys.stderr)
        sys.exit(1)
    report(rows, fit(rows))
    for f in failed:
        print(f"not in the table: {f['name']} ({f['part']}): {f['failure']}")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
