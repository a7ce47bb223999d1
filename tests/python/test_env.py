"""MappingEnv: the Gymnasium API (reset/step, spaces), rewards and info from the surrogate,
and gymnasium's own checker where gymnasium is installed."""

import math

import numpy as np
import pytest

import mapwright as mw
from mapwright.env import MappingEnv

LAYER = "resnet18:layer2.0.conv1"


def test_reset_and_step():
    env = MappingEnv(LAYER, max_steps=3)
    obs, info = env.reset(seed=7)
    assert obs.shape == (4,) and not obs.any()
    assert info["names"] == mw.Space(LAYER).names
    assert env.observation_space.contains(obs)
    for step in range(3):
        action = env.action_space.sample()
        assert env.action_space.contains(action)
        obs, reward, terminated, truncated, info = env.step(action)
        m = mw.evaluate(LAYER, mw.Space(LAYER).decode(action))
        assert info["metrics"] == m.to_dict()
        if m.valid:  # an invalid mapping (e.g. a bank conflict on the banked default) has no counts
            assert info["metrics"]["counts"]["macs"] == mw.layer(LAYER).macs
        assert reward == (-mw.Objective("edp").cost(m) if m.valid else -1e30)
        assert obs[3] == float(m.valid) and env.observation_space.contains(obs)
        assert not terminated and truncated == (step == 2)


def test_log_reward_and_objective():
    env = MappingEnv(LAYER, objective="latency", reward="log")
    env.reset(seed=1)
    action = np.zeros(len(env.space), dtype=np.int64)
    _, reward, _, _, info = env.step(action)
    assert reward == pytest.approx(-math.log10(info["metrics"]["cycles"]))
    assert info["cost"] == info["metrics"]["cycles"]


def test_spaces_sample_reproducibly():
    a, b = MappingEnv(LAYER), MappingEnv(LAYER)
    a.reset(seed=3)
    b.reset(seed=3)
    assert np.array_equal(a.action_space.sample(), b.action_space.sample())
    assert np.array_equal(a.action_space.nvec, mw.Space(LAYER).cardinalities)


def test_bad_arguments():
    with pytest.raises(mw.Error):
        MappingEnv(LAYER, reward="speed")
    with pytest.raises(mw.Error):
        MappingEnv(LAYER, objective="speed")
    with pytest.raises(mw.Error):
        MappingEnv("conv:K=0")
    env = MappingEnv(LAYER)
    env.reset()
    with pytest.raises(mw.Error):
        env.step(np.full(len(env.space), 10**6))
    with pytest.raises(mw.Error):
        env.step(np.zeros(3, dtype=np.int64))


def test_gymnasium_check_env():
    gymnasium = pytest.importorskip(
        "gymnasium", reason="gymnasium is not installed (not a Debian package; pip install "
        "gymnasium to run this check)")
    from gymnasium.utils.env_checker import check_env
    env = MappingEnv(LAYER)
    assert isinstance(env, gymnasium.Env)
    assert isinstance(env.action_space, gymnasium.spaces.MultiDiscrete)
    check_env(env, skip_render_check=True)
