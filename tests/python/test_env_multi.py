"""MultiAgentMappingEnv: the PettingZoo ParallelEnv API over MappingEnv, the agents grouped as
the marl searcher groups them (the CLI's record of the same search), the shared reward; and the
raw encoding of MappingEnv: invalid mappings get invalid_reward with the reason, no repair."""

import numpy as np
import pytest

import mapwright as mw
from mapwright.env import MappingEnv, MultiAgentMappingEnv

LAYER = "resnet18:layer2.0.conv1"


def marl_clusters(cli, tmp_path, agents):
    """The clusters (parameter indices) `mapwright search --searcher marl` records."""
    opts = tmp_path / "marl.yaml"
    opts.write_text(f"marl: {{agents: {agents}}}\n")
    rec = cli.json("search", "--layer", LAYER, "--searcher", "marl", "--budget", 32, "--seed", 4,
                   "--options", opts)
    return rec["layers"][0]["searcher"]["clustering"]["cluster_indices"]


@pytest.mark.parametrize("agents", ["per-buffer", "clustered"])
def test_agents_are_the_marl_searchers(cli, tmp_path, agents):
    env = MultiAgentMappingEnv(LAYER, agents=agents, seed=4)
    groups = [env.groups[a] for a in env.possible_agents]
    assert groups == marl_clusters(cli, tmp_path, agents)
    assert sorted(i for g in groups for i in g) == list(range(len(env.env.space)))
    if agents == "per-buffer":
        assert "weight+accum" in env.possible_agents  # tile_K: the weights and the sums


def test_parallel_api_and_shared_reward():
    env = MultiAgentMappingEnv(LAYER, max_steps=2)
    obs, infos = env.reset(seed=3)
    assert env.agents == env.possible_agents and set(obs) == set(infos) == set(env.agents)
    actions = {a: env.action_space(a).sample() for a in env.agents}
    obs, rewards, terms, truncs, infos = env.step(actions)
    code = np.zeros(len(env.env.space), dtype=np.int64)
    for a, g in env.groups.items():
        code[g] = actions[a]
    m = mw.evaluate(LAYER, env.env.space.decode(code))
    assert set(rewards.values()) == {-mw.Objective("edp").cost(m) if m.valid else -1e30}
    assert all(env.observation_space(a).contains(o) for a, o in obs.items())
    assert not any(terms.values()) and not any(truncs.values())
    _, _, _, truncs, _ = env.step({a: env.action_space(a).sample() for a in env.agents})
    assert all(truncs.values()) and env.agents == []
    with pytest.raises(mw.Error, match="agents"):
        env.reset()
        env.step({})
    with pytest.raises(mw.Error, match="agents"):
        MultiAgentMappingEnv(LAYER, agents="everyone")
    with pytest.raises(mw.Error, match="max_step"):
        MultiAgentMappingEnv(LAYER, max_step=3)


def test_pettingzoo_parallel_api_test():
    pytest.importorskip("pettingzoo", reason="pettingzoo is not installed (not a Debian "
                        "package; pip install pettingzoo to run its API test)")
    from pettingzoo.test import parallel_api_test
    parallel_api_test(MultiAgentMappingEnv(LAYER, max_steps=8), num_cycles=20)


def test_raw_encoding_invalid_mappings_get_invalid_reward_with_the_reason():
    env = MappingEnv(LAYER, encoding="raw", invalid_reward=-5.0)
    assert len(env.space) == 16 and env.space.encoding == "raw"
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    seen = {True: 0, False: 0}
    for _ in range(40):
        action = rng.integers(0, env.space.cardinalities)
        _, reward, _, _, info = env.step(action)
        m = mw.evaluate(LAYER, env.space.decode(action))  # the raw decode, unrepaired
        assert info["valid"] == m.valid and info["metrics"] == m.to_dict()
        if not m.valid:
            assert reward == -5.0 and info["reason"] and m.reason in info["reason"]
        seen[m.valid] += 1
    assert seen[True] and seen[False]
