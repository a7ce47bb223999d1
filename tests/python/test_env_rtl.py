"""MappingEnv with the RTL reward: the surrogate for the warm-up, then every mapping on the RTL
in a worker process (one pool for the environment), equal to mapwright.verify of the same
mapping with the same operand seed; a failed run is a typed invalid result, not an exception."""

import numpy as np
import pytest

import mapwright as mw
from mapwright.env import MappingEnv

LAYER = "conv:K=8,C=8,H=8,W=8,R=3,S=3,pad=1"


def valid_action(env, rng):
    """A random action the surrogate accepts (the RTL only sees those)."""
    while True:
        a = rng.integers(0, env.space.cardinalities)
        if mw.evaluate(LAYER, env.space.decode(a), "small4").valid:
            return a


def test_rtl_reward_after_the_warmup():
    env = MappingEnv(LAYER, "small4", reward_source="rtl", surrogate_warmup=1, rtl_seed=3,
                     max_steps=3)
    env.reset(seed=1)
    rng = np.random.default_rng(5)
    first, second = valid_action(env, rng), valid_action(env, rng)
    _, r0, _, _, i0 = env.step(first)
    assert i0["source"] == "surrogate" and i0["sample"] == 0 and "rtl" not in i0
    assert r0 == -i0["cost"] and i0["cost"] == mw.Objective("edp").cost(
        mw.evaluate(LAYER, env.space.decode(first), "small4"))
    _, r1, _, _, i1 = env.step(second)
    assert i1["source"] == "rtl" and i1["failure_kind"] == "none" and i1["valid"]
    v = mw.verify(LAYER, env.space.decode(second), "small4", seed=i1["operand_seed"])
    assert v.ok and i1["rtl"] == v.metrics.to_dict()
    assert r1 == -mw.Objective("edp").cost(v.metrics)
    assert i1["operand_seed"] == 3 * 7919 + 1 + 1  # rtl_operand_seed(seed, sample 1)
    _, r2, _, truncated, i2 = env.step(second)   # a repeat: answered, not simulated again
    assert i2["repeat"] and i2["sample"] == 1 and r2 == r1 and truncated
    env.close()
    with pytest.raises(mw.Error):
        env.step(second)


def test_a_failed_rtl_run_is_a_typed_invalid_result():
    layer = "resnet18:layer1.0.conv1"
    env = MappingEnv(layer, "small4", reward_source="rtl", max_seconds=0.2, invalid_reward=-7.0)
    env.reset()
    _, reward, _, _, info = env.step(env.space.encode(mw.default_mapping(layer, "small4")))
    assert reward == -7.0 and not info["valid"]
    assert info["source"] == "rtl" and info["failure_kind"] == "limit" and info["rtl"] is None
    assert info["reason"].startswith("rtl: limit")
    env.close()


@pytest.mark.parametrize("kwargs, key", [
    ({"max_steps": "x"}, "max_steps"), ({"max_steps": 0}, "max_steps"),
    ({"rtl_sed": 1}, "rtl_sed"), ({"max_seconds": -1.0}, "max_seconds"),
    ({"watchdog_cycles": 1.5}, "watchdog_cycles"), ({"invalid_reward": "low"}, "invalid_reward"),
])
def test_bad_keywords_name_the_key(kwargs, key):
    with pytest.raises(mw.Error) as e:
        MappingEnv(LAYER, "small4", **kwargs)
    assert e.value.key == key and key in str(e.value)


def test_rtl_reward_refusals():
    with pytest.raises(mw.Error, match="reward_source"):
        MappingEnv(LAYER, "small4", reward_source="fpga")
    with pytest.raises(mw.Error, match="surrogate_warmup"):
        MappingEnv(LAYER, "small4", reward_source="rtl", surrogate_warmup=-1)
    with pytest.raises(mw.Error, match="arch"):
        MappingEnv(LAYER, mw.arch("small4"), reward_source="rtl")
