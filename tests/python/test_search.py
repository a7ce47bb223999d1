"""exact and search against `mapwright search --json` for the same layer, searcher, budget and
seed; their refusals."""

import pytest

import mapwright as mw

LAYER = "resnet18:layer2.0.conv1"


def cli_layer(cli, tmp_path, *args):
    j = cli.json("search", "--layer", LAYER, "--out", tmp_path / "run", *args)
    return j["layers"][0]


def same_mapping(yaml_a, yaml_b):
    a, b = mw.mapping(yaml_a).to_dict(), mw.mapping(yaml_b).to_dict()
    a.pop("layer", None)
    b.pop("layer", None)
    return a == b


def test_exact_equals_cli(cli, tmp_path):
    expected = cli_layer(cli, tmp_path, "--searcher", "exact", "--arch", "small8")
    got = mw.exact(LAYER, "small8", top_k=3)
    rec = got.to_dict()
    assert got.found and got.optimal and got.gap == expected["exact"]["gap"]
    assert got.lower_bound == expected["exact"]["lower_bound"]
    assert got.cost == expected["result"]["best_cost"]
    assert same_mapping(rec["best"]["mapping"], expected["best"]["mapping"])
    assert rec["best"]["metrics"] == expected["best"]["metrics"]
    assert len(got.top) == 3 and got.top[0][0] == got.mapping
    assert got.top[0][1].edp <= got.top[1][1].edp <= got.top[2][1].edp


@pytest.mark.parametrize("searcher", ["random", "ga", "sa", "marl"])
def test_search_equals_cli(cli, tmp_path, searcher):
    expected = cli_layer(cli, tmp_path, "--searcher", searcher, "--budget", 96, "--seed", 3)
    got = mw.search(LAYER, searcher=searcher, budget=96, seed=3)
    rec = got.to_dict()
    assert rec["searcher"] == expected["searcher"]
    assert rec["result"] == expected["result"]
    assert rec["reward"] == expected["reward"]
    assert same_mapping(rec["best"]["mapping"], expected["best"]["mapping"])
    assert rec["best"]["metrics"] == expected["best"]["metrics"]
    assert got.seed == expected["searcher"]["seed"]
    assert got.curve.tolist() == expected["result"]["best_so_far"]
    assert got.lower_bound is None


def test_search_gamma_encoding_equals_cli(cli, tmp_path):
    # The paper's setting (ArchGym's GAMMA encoding on its large buffers): every distinct vector
    # is a sample, and a vector that names no mapping is an invalid sample of kind "encoding".
    expected = cli_layer(cli, tmp_path, "--searcher", "random", "--budget", 300, "--seed", 4,
                         "--encoding", "gamma", "--arch", "paper-maestro")
    got = mw.search(LAYER, "paper-maestro", searcher="random", budget=300, seed=4,
                    encoding="gamma")
    rec = got.to_dict()
    assert rec["searcher"] == expected["searcher"] and rec["searcher"]["encoding"] == "gamma"
    assert rec["result"] == expected["result"]
    assert rec["result"]["failures"].get("encoding", 0) > 0
    # Before the first valid sample the curve is +inf (null in JSON).
    assert got.curve.tolist() == [float("inf") if c is None else c
                                  for c in expected["result"]["best_so_far"]]


def test_search_refusals(cli):
    for kwargs, key in [({"searcher": "hill"}, "searcher"), ({"budget": 0}, "budget"),
                        ({"objective": "speed"}, "objective"), ({"encoding": "dense"}, "encoding")]:
        with pytest.raises(mw.Error) as e:
            mw.search(LAYER, **kwargs)
        assert key in str(e.value)
    with pytest.raises(mw.Error) as e:
        mw.exact(LAYER, time_limit=-1)
    assert str(e.value) == cli.error("search", "--layer", LAYER, "--searcher", "exact",
                                     "--time-limit", "-1")
