"""evaluate, the map space and the batch form against the CLI (`eval --json`, `space --json`)
and against each other; the batch form's refusals."""

import json

import numpy as np
import pytest

import mapwright as mw

LAYER = "resnet18:layer2.0.conv1"
CLI_ONLY = {"evaluator", "refined_cycles", "arch", "dram_port", "layer", "mapping"}


def random_codes(space, n, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, space.cardinalities, size=(n, len(space)), dtype=np.int64)


# Six raw points on small8 hold valid and invalid (overflowing) mappings; each CLI call costs
# about a second of CPU (the binary loads LibTorch), hence few points.
@pytest.mark.parametrize("arch,encoding,n", [("default-ideal", "compact", 3), ("small8", "raw", 6),
                                             ("default", "compact", 2)])
def test_evaluate_equals_cli_eval(cli, tmp_path, arch, encoding, n):
    space = mw.Space(LAYER, arch, encoding)
    for i, code in enumerate(random_codes(space, n, seed=11)):
        mapping = space.decode(code)
        path = tmp_path / f"m{i}.yaml"
        path.write_text(mapping.to_yaml())
        rc, out, err = cli.run("eval", "--arch", arch, "--layer", LAYER, "--mapping", path,
                               "--json")
        assert rc in (0, 3), err
        expected = json.loads(out)
        got = mw.evaluate(LAYER, mapping, arch)
        assert got.valid == (rc == 0) == expected["valid"]
        assert got.to_dict() == {k: v for k, v in expected.items() if k not in CLI_ONLY}
        if got.valid:
            assert mw.refined_cycles(LAYER, str(path), arch) == expected["refined_cycles"]


def test_space_equals_cli_space(cli):
    expected = cli.json("space", "--layer", LAYER)
    raw = mw.Space(LAYER, "default", "raw")
    assert raw.names == [p["name"] for p in expected["params"]]
    assert raw.cardinalities.tolist() == [p["cardinality"] for p in expected["params"]]
    assert raw.ordinal == [p["ordinal"] for p in expected["params"]]
    assert raw.log10_size == pytest.approx(expected["log10_size"], rel=1e-12)
    compact = mw.space(LAYER)
    assert compact.encoding == "compact" and len(compact.bounds) == len(compact)
    assert [hi for _, hi in compact.bounds] == (compact.cardinalities - 1).tolist()


def test_batch_equals_one_by_one():
    space = mw.Space(LAYER)
    codes = random_codes(space, 300, seed=5)
    batch = space.evaluate_batch(codes, objective="edp", counts=True)
    assert batch["count_names"] == mw.count_names()
    objective = mw.Objective("edp")
    for i, code in enumerate(codes):
        m = mw.evaluate(LAYER, space.decode(code), "default")
        assert batch["valid"][i] == m.valid
        assert batch["cycles"][i] == m.cycles and batch["edp"][i] == m.edp
        assert batch["energy_pj"][i] == m.energy_pj
        assert batch["cost"][i] == (objective.cost(m) if m.valid else np.inf)
        assert batch["counts"][i].tolist() == [m.counts.to_dict()[n] for n in mw.count_names()]
    one = space.evaluate_batch(codes[0].astype(np.int32), objective="latency")
    assert one["cost"][0] == batch["cycles"][0]


def test_encode_of_the_exact_answer_scores_the_same():
    space = mw.Space(LAYER)
    best = mw.exact(LAYER, time_limit=30).mapping
    code = space.encode(best)
    assert space.evaluate_batch(code)["edp"][0] == mw.evaluate(LAYER, best).edp


def test_batch_refuses_bad_arrays():
    space = mw.Space(LAYER)
    codes = random_codes(space, 4, seed=1)
    with pytest.raises(mw.Error, match="dtype"):
        space.evaluate_batch(codes.astype(np.float64))
    with pytest.raises(mw.Error, match="shape"):
        space.evaluate_batch(codes[:, :-1])
    codes[3, 1] = space.cardinalities[1]
    with pytest.raises(mw.Error) as e:
        space.evaluate_batch(codes)
    assert e.value.key == f"[3].{space.names[1]}"
    assert e.value.value == str(space.cardinalities[1])
    with pytest.raises(mw.Error, match="objective"):
        space.evaluate_batch(codes[:1], objective="speed")


def test_to_pandas():
    space = mw.Space(LAYER)
    batch = space.evaluate_batch(random_codes(space, 5, seed=2), counts=True)
    try:
        import pandas  # noqa: F401 (optional)
    except ImportError:
        with pytest.raises(ImportError, match="pandas"):
            mw.to_pandas(batch)
        return
    df = mw.to_pandas(batch)
    assert len(df) == 5 and list(df["macs"]) == [mw.layer(LAYER).macs] * 5
    one = mw.to_pandas(mw.evaluate(LAYER, space.decode(random_codes(space, 1, seed=2)[0])))
    assert one["cycles"][0] == batch["cycles"][0] and one["counts.macs"][0] == df["macs"][0]
