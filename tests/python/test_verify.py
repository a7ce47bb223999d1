"""verify: one mapping on the RTL in a worker process, equal to `mapwright verify --json`;
failures come back as typed results, never as a crash of the interpreter."""

import pytest

import mapwright as mw

LAYER = "conv:K=8,C=8,H=8,W=8,R=3,S=3,pad=1"
CLI_RTL_ONLY = {"failure", "harness", "sim_seconds"}


def test_verify_equals_cli(cli, tmp_path):
    mapping = mw.default_mapping(LAYER, "small4")
    path = tmp_path / "m.yaml"
    path.write_text(mapping.to_yaml())
    expected = cli.json("verify", "--arch", "small4", "--layer", LAYER, "--mapping", path,
                        "--seed", 5)
    got = mw.verify(LAYER, mapping, "small4", seed=5)
    assert got.ok and got.functional_ok == expected["functional_ok"]
    assert (got.failure_kind, got.failure) == ("none", "")
    assert got.harness == expected["rtl"]["harness"]
    assert got.metrics.to_dict() == {k: v for k, v in expected["rtl"].items()
                                     if k not in CLI_RTL_ONLY}
    assert got.counts == got.surrogate.counts
    assert got.to_dict()["functional_ok"]


def test_a_run_over_its_wall_clock_limit_is_a_typed_result():
    layer = "resnet18:layer1.0.conv1"
    got = mw.verify(layer, mw.default_mapping(layer, "small4"), "small4", max_seconds=0.2)
    assert not got.ok and got.failure_kind == "limit", got.failure


def test_verify_refusals():
    with pytest.raises(mw.Error):
        mw.verify(LAYER, {"dataflow": "zz"}, "small4")
    with pytest.raises(mw.Error):
        mw.verify(LAYER, mw.default_mapping(LAYER, "small4"), "no-such-arch")
