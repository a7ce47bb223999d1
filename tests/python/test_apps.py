"""run, sweep and codesign from Python: the same records as the CLI's results.json, sweep.json
and codesign.json for the same inputs (times and folder names aside), keyword refusals naming
the keyword and value, and to_pandas where pandas is installed."""

import json

import pytest

import mapwright as mw

LAYER = "conv:K=8,C=8,H=8,W=8,R=3,S=3,pad=1"
# What differs between two runs of the same command: clocks, run ids and folder names.
VOLATILE = {"created", "updated", "run_id", "run_dir", "db", "wall_seconds_last_session",
            "seconds", "sim_seconds", "curve_csv", "mapping_file", "command", "out_dir", "dir",
            "sweep_id", "rtl_wall_seconds", "rtl_sim_seconds", "elapsed_s", "seconds_total", "file",
            "path", "space_file", "sweep_file", "html", "report"}


def stable(value):
    """The record without what varies between two equal runs."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def test_run_with_rtl_equals_cli(cli, tmp_path):
    flags = {"layer": LAYER, "arch": "small4", "top_k": 1, "seed": 3, "jobs": 1}
    got = mw.run(out=tmp_path / "py", **flags)
    expected = cli.json("run", "--layer", LAYER, "--arch", "small4", "--top-k", 1, "--seed", 3,
                        "--jobs", 1, "--out", tmp_path / "cli")
    assert got.exit_code == 0 and got.status == "complete"
    assert stable(got.to_dict()) == stable(expected)
    assert got.to_dict() == json.loads((tmp_path / "py" / "results.json").read_text())
    verdict = got.layers[0]["candidates"][0]["verification"]
    assert verdict["passed"] and got.verification_summary["passed"] == 1
    assert got.chosen(0).to_yaml() == got.layers[0]["best"]["mapping"]


def test_run_surrogate_network_equals_cli(cli, tmp_path, source_dir):
    net = source_dir / "tests" / "flows" / "data" / "tiny_net.yaml"
    got = mw.run(network=net.as_posix(), arch="small4", searcher="random", budget=40,
                 no_rtl=True, out=tmp_path / "py")
    expected = cli.json("run", "--network", net, "--arch", "small4", "--searcher", "random",
                        "--budget", 40, "--no-rtl", "--out", tmp_path / "cli")
    assert got.exit_code == 0 and len(got.layers) == 3
    assert stable(got.to_dict()) == stable(expected)
    with pytest.raises(TypeError):
        got.record["layers"] = []  # read-only


SWEEP = """name: two
network: {net}
base_arch: small4
seed: 7
points:
  - {{array: 4x4}}
  - {{array: 8x8, buffer_scale: 2}}
verify: none
mapper: {{time_limit_s: 20}}
"""


def test_sweep_equals_cli(cli, tmp_path, source_dir):
    f = tmp_path / "two.yaml"
    f.write_text(SWEEP.format(net=(source_dir / "tests/flows/data/tiny_net.yaml").as_posix()))
    got = mw.sweep(file=f, out=tmp_path / "py")
    expected = cli.json("sweep", "--file", f, "--out", tmp_path / "cli")
    assert got.exit_code == 0 and len(got.points) == 2 and got.winner is not None
    assert stable(got.to_dict()) == stable(expected)


SPACE = """name: four
base: {data}/tiny2.yaml
parameters:
  rows: [2, 4]
  cols: [2, 4]
workload: {data}/tiny_net.yaml
objective: edp
"""


def test_codesign_equals_cli(cli, tmp_path, source_dir):
    f = tmp_path / "four.yaml"
    f.write_text(SPACE.format(data=(source_dir / "tests/flows/data").as_posix()))
    got = mw.codesign(space=f, searcher="grid", out=tmp_path / "py")
    expected = cli.json("codesign", "--space", f, "--searcher", "grid", "--out", tmp_path / "cli")
    assert got.exit_code == 0 and got.chosen is not None and len(got.points) == 4
    assert stable(got.to_dict()) == stable(expected)
    # The folder holds a journal now: a second call needs resume=True, and answers every solve
    # from it.
    with pytest.raises(mw.Error) as e:
        mw.codesign(space=f, searcher="grid", out=tmp_path / "py")
    assert e.value.key == "out", str(e.value)
    again = mw.codesign(space=f, searcher="grid", out=tmp_path / "py", resume=True).to_dict()
    first = got.to_dict()
    assert again["outcome"]["solves_resumed"] > 0 and again["outcome"]["mapper_solves"] == 0
    # ... and every RTL run of the chosen design from the first call's RTL journal.
    rtl = again["chosen"]["rtl"]
    assert rtl["layers_from_journal"] == len(rtl["layers"]) > 0, rtl
    for d in (again, first):
        for k in ("mapper_solves", "memo_hits", "solves_resumed"):
            d["outcome"].pop(k)
        for r in [d["chosen"]["rtl"]] + [p["rtl"] for p in d["front"] if "rtl" in p]:
            r.pop("layers_from_journal")
    assert stable(again) == stable(first)


def test_to_pandas(tmp_path):
    pytest.importorskip("pandas", reason="pandas is not installed (apt-get install "
                        "python3-pandas to run this check)")
    got = mw.run(layer=LAYER, arch="small4", no_rtl=True, out=tmp_path / "run")
    df = got.to_pandas()
    assert len(df) == 1 and df["best.cycles"][0] == got.layers[0]["best"]["cycles"]
    assert mw.to_pandas(got).equals(df)


@pytest.mark.parametrize("call, key", [
    (lambda p: mw.run(layer=LAYER, out=p, bugdet=10), "bugdet"),
    (lambda p: mw.run(layer=LAYER, out=p, budget="ten"), "budget"),
    (lambda p: mw.run(layer=LAYER, out=p, budget=0, searcher="random"), "budget"),
    (lambda p: mw.run(layer=LAYER, out=p, searcher="nope"), "searcher"),
    (lambda p: mw.run(layer=LAYER), "out"),
    (lambda p: mw.sweep(out=p), "file"),
    (lambda p: mw.codesign(space="no-such.yaml", out=p, budget=-1, seed="x"), "seed"),
])
def test_refusals_name_the_keyword(tmp_path, call, key):
    with pytest.raises(mw.Error) as e:
        call(tmp_path / "out")
    assert e.value.key == key, str(e.value)
