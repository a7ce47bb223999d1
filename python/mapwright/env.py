"""MappingEnv: one layer's mapping problem as a Gymnasium-API environment.

The action is one mapping in a search encoding of the layer's map space (``mapwright.Space``:
'compact' by default, or 'raw'): a vector of integers, one per parameter, within the
parameter's cardinality. The environment decodes it, scores it with the analytical surrogate
and returns ``-objective`` as the reward (``reward="log"``: ``-log10(objective)``, the scale
learners prefer). The observation is the last mapping's ``[log10(cycles), log10(energy_pj),
utilization, valid]`` (zeros after ``reset``); an episode is ``max_steps`` evaluations
(``truncated``), never ``terminated``. ``info`` holds the surrogate's metrics with every access
count (``Metrics.to_dict()``), the cost, the mapping's YAML, whether it is valid and why not,
and where its score came from; an RTL-scored mapping adds the RTL's metrics (``rtl``), the
failure kind ('none' when the run was clean) and the operand seed. Scores come from the
engine's evaluators (``mapwright._mapwright.Reward``): the surrogate, or the RTL reward of
``mapwright search --reward rtl``.

Gymnasium is optional: where it is installed the environment is a ``gymnasium.Env`` and its
spaces are ``gymnasium.spaces`` objects; without it, ``MultiDiscrete`` and ``Box`` below
describe them (bounds, shape, dtype, ``sample``, ``contains``).
"""

import math
import numbers

import numpy as np

from . import _mapwright

try:
    import gymnasium as _gym
except ImportError:
    _gym = None
try:
    from pettingzoo import ParallelEnv as _ParallelEnv
except ImportError:
    _ParallelEnv = object


class MultiDiscrete:
    """Stand-in for gymnasium.spaces.MultiDiscrete: integer vectors with 0 <= x[i] < nvec[i]."""

    def __init__(self, nvec, seed=None):
        self.nvec = np.asarray(nvec, dtype=np.int64)
        self.shape = self.nvec.shape
        self.dtype = np.dtype(np.int64)
        self.np_random = np.random.default_rng(seed)

    def seed(self, seed=None):
        self.np_random = np.random.default_rng(seed)

    def sample(self, rng=None):
        """A uniformly random vector, from `rng` (a numpy Generator) or the space's own."""
        return (rng or self.np_random).integers(0, self.nvec, dtype=np.int64)

    def contains(self, x):
        x = np.asarray(x)
        return (x.shape == self.shape and np.issubdtype(x.dtype, np.integer)
                and bool(np.all((x >= 0) & (x < self.nvec))))

    def __repr__(self):
        return f"MultiDiscrete({self.nvec.tolist()})"


class Box:
    """Stand-in for gymnasium.spaces.Box: float vectors between low and high (inclusive)."""

    def __init__(self, low, high, dtype=np.float32, seed=None):
        self.low = np.asarray(low, dtype=dtype)
        self.high = np.asarray(high, dtype=dtype)
        self.shape = self.low.shape
        self.dtype = np.dtype(dtype)
        self.np_random = np.random.default_rng(seed)

    def seed(self, seed=None):
        self.np_random = np.random.default_rng(seed)

    def sample(self, rng=None):
        """A random vector: uniform where both bounds are finite, else a standard normal
        shifted to respect the finite bound (as gymnasium samples unbounded boxes)."""
        rng = rng or self.np_random
        low = np.where(np.isfinite(self.low), self.low, -1e30)
        high = np.where(np.isfinite(self.high), self.high, 1e30)
        both = np.isfinite(self.low) & np.isfinite(self.high)
        x = np.where(both, rng.uniform(np.where(both, low, 0), np.where(both, high, 1)),
                     rng.standard_normal(self.shape))
        return np.clip(x, low, high).astype(self.dtype)

    def contains(self, x):
        x = np.asarray(x)
        return x.shape == self.shape and bool(np.all((x >= self.low) & (x <= self.high)))

    def __repr__(self):
        return f"Box({self.low.tolist()}, {self.high.tolist()}, {self.dtype})"


def _error(key, value, why):
    """mapwright.Error about keyword `key` of an environment, with its parts as attributes."""
    e = _mapwright.Error(f"{key}: key '{key}' = '{value}': {why}")
    e.where, e.key, e.value, e.why = key, key, str(value), why
    return e


def _number(key, value, kind, low):
    """`value` as `kind` (int or float) and at least `low`, else mapwright.Error naming it."""
    ok = (isinstance(value, numbers.Integral if kind is int else numbers.Real)
          and not isinstance(value, bool))
    if not ok or value < low:
        raise _error(key, value, f"expected {'an integer' if kind is int else 'a number'} "
                     f">= {low}")
    return kind(value)


def _no_unknown(unknown, what):
    """Refuses a keyword no parameter of `what` took (the first one)."""
    if unknown:
        key = next(iter(unknown))
        raise _error(key, unknown[key], f"unknown keyword of {what}")


_OBS_LOW = [0.0, -np.inf, 0.0, 0.0]
_OBS_HIGH = [np.inf, np.inf, 1.0, 1.0]


class MappingEnv(_gym.Env if _gym else object):
    """One layer's mapping problem (see the module's docstring).

    layer, arch: as mapwright.Space takes them (a Layer or a --layer text; an Arch or a name;
      the RTL reward takes the architecture's name or YAML file).
    objective: 'edp', 'latency', 'energy' or 'mix:latency=W,energy=W'.
    reward: 'cost' (-objective) or 'log' (-log10 objective).
    invalid_reward: the reward of an invalid mapping (the surrogate's checks, the raw
      encoding's overflows, or a failed RTL run).
    max_steps: evaluations per episode.
    encoding: 'compact' or 'raw' (mapwright.Space).
    reward_source: 'surrogate', or 'rtl' as `mapwright search --reward rtl` scores samples:
      the first `surrogate_warmup` distinct mappings by the surrogate, every later one the
      surrogate accepts on the RTL in a worker process (one pool for the environment's life,
      stopped by close()); operand seeds derive from `rtl_seed` as from --seed.
    max_seconds, watchdog_cycles: limits of one RTL run (0: the defaults).
    """

    metadata = {"render_modes": []}

    def __init__(self, layer, arch="default", objective="edp", reward="cost",
                 invalid_reward=-1e30, max_steps=64, encoding="compact",
                 reward_source="surrogate", surrogate_warmup=0, rtl_seed=1, max_seconds=0.0,
                 watchdog_cycles=0, **unknown):
        _no_unknown(unknown, "MappingEnv")
        if reward not in ("cost", "log"):
            raise _error("reward", reward, "expected cost or log")
        self.invalid_reward = _number("invalid_reward", invalid_reward, float, -math.inf)
        self.max_steps = _number("max_steps", max_steps, int, 1)
        rtl_limits = (_number("surrogate_warmup", surrogate_warmup, int, 0),
                      _number("rtl_seed", rtl_seed, int, 0),
                      _number("max_seconds", max_seconds, float, 0),
                      _number("watchdog_cycles", watchdog_cycles, int, 0))
        self.space = _mapwright.Space(layer, arch, encoding)
        self.reward_mode = reward
        self.render_mode = None
        self._reward = _mapwright.Reward(self.space.layer, arch, objective, reward_source,
                                         *rtl_limits)
        self.reward_source = reward_source
        if _gym:
            self.action_space = _gym.spaces.MultiDiscrete(self.space.cardinalities)
            self.observation_space = _gym.spaces.Box(
                np.array(_OBS_LOW, np.float32), np.array(_OBS_HIGH, np.float32), dtype=np.float32)
        else:
            self.action_space = MultiDiscrete(self.space.cardinalities)
            self.observation_space = Box(_OBS_LOW, _OBS_HIGH)
        self._steps = 0

    def reset(self, *, seed=None, options=None):
        """Starts an episode: (zero observation, info with the space's parameter names)."""
        if _gym:
            super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(seed)
            self.observation_space.seed(seed)
        self._steps = 0
        return np.zeros(4, np.float32), {"names": self.space.names}

    def step(self, action):
        """Scores one encoded mapping: (obs, reward, terminated, truncated, info)."""
        self._steps += 1
        obs, reward, info = self._score(self.space.decode(np.asarray(action)))
        return obs, reward, False, self._steps >= self.max_steps, info

    def _score(self, mapping):
        """(obs, reward, info) of one mapping, as the C++ reward scored it."""
        s = self._reward.score(mapping)
        metrics = s["rtl"] or s["surrogate"]
        if s["valid"]:
            cost = s["cost"]
            reward = -cost if self.reward_mode == "cost" else -math.log10(cost)
            obs = np.array([math.log10(max(metrics.cycles, 1)), math.log10(metrics.energy_pj),
                            metrics.utilization, 1.0], np.float32)
        else:
            cost, reward = math.inf, self.invalid_reward
            obs = np.zeros(4, np.float32)
        info = {"metrics": s["surrogate"].to_dict(), "cost": cost, "mapping": mapping.to_yaml(),
                "valid": s["valid"], "reason": s["reason"], "source": s["source"]}
        if self.reward_source == "rtl":
            # The RTL reward's warm-up, cache and operand seeds count distinct mappings over the
            # environment's life, as the engine's do over a search: not reset by reset().
            info.update(sample=s["sample"], repeat=s["repeat"])
        if s["source"] == "rtl":
            info.update(rtl=s["rtl"].to_dict() if s["rtl"] else None,
                        failure_kind=s["failure_kind"], operand_seed=s["operand_seed"])
        return obs, float(reward), info

    def close(self):
        """Stops the RTL reward's workers (the environment cannot step after it)."""
        self._reward.close()


class MultiAgentMappingEnv(_ParallelEnv):
    """The mapping problem of MappingEnv split among agents, with the PettingZoo ParallelEnv
    API (pettingzoo is not needed): each agent picks the values of its own parameters of the
    encoding, the joint action is one mapping, and every agent gets the same (cooperative)
    reward, observation, termination and truncation.

    The agents group the parameters as the marl searcher groups them (computed in C++,
    ``mapwright._mapwright.agent_groups``): ``agents="per-buffer"`` (``marl.agents:
    per-buffer``): one agent per buffer group of tiles and double-buffer flags (named by the
    group, e.g. 'input+weight'), one per other parameter; ``agents="clustered"``: marl's own
    correlation clustering after its initial sample, as ``mapwright search --searcher marl
    --seed SEED`` clusters the layer (agents agent_0, agent_1, ...; ``options``: a search
    options file, its marl section used). Other keywords go to MappingEnv (arch, objective,
    reward, invalid_reward, max_steps, encoding, reward_source, surrogate_warmup, ...).
    Where pettingzoo is installed the class is a ``pettingzoo.ParallelEnv``.
    """

    metadata = {"render_modes": [], "name": "mapwright_multi_agent_v0", "is_parallelizable": True}

    def __init__(self, layer, arch="default", agents="per-buffer", seed=1, options="",
                 **env_options):
        seed = _number("seed", seed, int, 0)
        self.env = MappingEnv(layer, arch, **env_options)
        objective = env_options.get("objective", "edp")
        names, groups = _mapwright.agent_groups(self.env.space.layer, self.env.space.arch,
                                                self.env.space.encoding, agents, objective,
                                                seed, options)
        self.possible_agents = list(names)
        self.groups = {a: list(g) for a, g in zip(names, groups)}  # parameter indices per agent
        self.agents = []
        self.render_mode = None
        nvec = np.asarray(self.env.space.cardinalities)
        spaces = _gym.spaces if _gym else None
        self.action_spaces = {
            a: (spaces.MultiDiscrete(nvec[g]) if spaces else MultiDiscrete(nvec[g]))
            for a, g in self.groups.items()}
        self.observation_spaces = {a: self.env.observation_space for a in names}

    @property
    def num_agents(self):
        return len(self.agents)

    @property
    def max_num_agents(self):
        return len(self.possible_agents)

    def action_space(self, agent):
        """The agent's parameters: MultiDiscrete of their cardinalities."""
        return self.action_spaces[agent]

    def observation_space(self, agent):
        """Every agent observes the joint mapping's figures (MappingEnv's observation)."""
        return self.observation_spaces[agent]

    def reset(self, seed=None, options=None):
        """(observations, infos), one per agent."""
        obs, info = self.env.reset(seed=seed, options=options)
        if seed is not None:
            for i, a in enumerate(self.possible_agents):
                self.action_spaces[a].seed(seed + i)
        self.agents = list(self.possible_agents)
        return {a: obs for a in self.agents}, {a: dict(info) for a in self.agents}

    def step(self, actions):
        """Joins the agents' actions into one mapping and scores it: (observations, rewards,
        terminations, truncations, infos), dicts over the agents; after the last step of an
        episode `agents` is empty."""
        if set(actions) != set(self.agents):
            raise _error("agents", sorted(actions),
                         f"expected one action for each of {self.agents}")
        code = np.zeros(len(self.env.space), dtype=np.int64)
        for a, g in self.groups.items():
            code[g] = np.asarray(actions[a])
        obs, reward, terminated, truncated, info = self.env.step(code)
        agents = self.agents
        if terminated or truncated:
            self.agents = []
        return ({a: obs for a in agents}, {a: reward for a in agents},
                {a: terminated for a in agents}, {a: truncated for a in agents},
                {a: info for a in agents})

    def close(self):
        self.env.close()
