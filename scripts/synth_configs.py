"""The configuration files of the synthesis calibrations (scripts/calibrate-area.py,
scripts/calibrate-clock.py): a base architecture and `fit` and `check` lists of arrays, buffers,
DRAM beats and bank counts, each written out as an architecture file for `mapwright synth`."""
import sys

import yaml

ARCH = """# {name}: written by scripts/{script} from {base}
name: {name}
array: {{rows: {rows}, cols: {cols}}}
dataflows: [ws, os, is]
buffers: {{input_kib: {ik}, weight_kib: {wk}, accum_kib: {ak}{banks}}}
dram: {{bytes_per_cycle: {beat}, latency_cycles: 20}}
clock_mhz: 1000
precision: {{operand_bits: 8, acc_bits: 32}}
"""

KEYS = {"name", "rows", "cols", "kib", "beat", "banks"}


def fail(path, key, value, why):
    print(f"error: {path}: {key} = {value!r}: {why}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        print(f"error: {path}: {e}", file=sys.stderr)
        sys.exit(2)
    if not isinstance(doc, dict):
        fail(path, "(file)", doc, "expected a map with base, fit and check")
    for k in doc:
        if k not in ("base", "fit", "check"):
            fail(path, k, doc[k], "unknown key (allowed: base, fit, check)")
    configs = []
    for part in ("fit", "check"):
        items = doc.get(part)
        if not isinstance(items, list) or not items:
            fail(path, part, items, "expected a non-empty list of configurations")
        for i, c in enumerate(items):
            where = f"{part}[{i}]"
            if not isinstance(c, dict) or set(c) != KEYS:
                fail(path, where, c, "expected exactly the keys " + ", ".join(sorted(KEYS)))
            for k in ("rows", "cols", "beat", "banks"):
                if not isinstance(c[k], int) or isinstance(c[k], bool) or c[k] < 0:
                    fail(path, f"{where}.{k}", c[k], "expected a non-negative integer")
            kib = c["kib"]
            if (not isinstance(kib, list) or len(kib) != 3
                    or not all(isinstance(v, int) and v > 0 for v in kib)):
                fail(path, f"{where}.kib", kib, "expected [input, weight, accumulator] KiB")
            if not isinstance(c["name"], str) or not c["name"].replace("-", "").isalnum():
                fail(path, f"{where}.name", c["name"], "expected letters, digits and '-'")
            configs.append(dict(c, part=part))
    names = [c["name"] for c in configs]
    if len(set(names)) != len(names):
        fail(path, "name", names, "names must be unique")
    return configs


def write_arch(path, c, script, base):
    ik, wk, ak = c["kib"]
    with open(path, "w", encoding="utf-8") as f:
        f.write(ARCH.format(name=c["name"], script=script, base=base, rows=c["rows"],
                            cols=c["cols"], ik=ik, wk=wk, ak=ak, beat=c["beat"],
                            banks=f", banks: {c['banks']}" if c["banks"] else ""))
