#!/usr/bin/env python3
"""The RTL-reward environment and the multi-agent environment, a few steps of each.

First MappingEnv with reward_source="rtl" on small4: the first 2 distinct mappings are
scored by the surrogate, every later one on the Verilated RTL in a worker process (one pool for
the environment); each step prints where its score came from, the RTL failure kind and the
cycles of the RTL and of the surrogate. Then MultiAgentMappingEnv with marl's per-buffer agents:
each agent picks its own parameters at random and all share one reward. Seeded: the same
command prints the same numbers.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/rtl_and_agents.py
"""

import argparse

import numpy as np

from mapwright.env import MappingEnv, MultiAgentMappingEnv


def rtl_episode(layer, arch, steps, warmup, seed):
    env = MappingEnv(layer, arch, reward="log", max_steps=steps, reward_source="rtl",
                     surrogate_warmup=warmup, rtl_seed=seed)
    env.reset(seed=seed)
    print(f"RTL reward on {arch}, {layer}: warm-up {warmup}, operand seeds from {seed}")
    print("step  source     failure  rtl_cycles  surrogate_cycles  reward")
    for step in range(steps):
        _, reward, _, _, info = env.step(env.action_space.sample())
        rtl = info.get("rtl") or {}
        print(f"{step:4d}  {info['source']:9s}  {info.get('failure_kind', '-'):7s}  "
              f"{rtl.get('cycles', '-'):>10}  {info['metrics']['cycles']:>16}  {reward:8.3f}")
    env.close()


def agents_episode(layer, steps, seed):
    env = MultiAgentMappingEnv(layer, agents="per-buffer", reward="log", max_steps=steps)
    env.reset(seed=seed)
    names = env.env.space.names
    print(f"\nMulti-agent, {layer}: {len(env.possible_agents)} agents (marl per-buffer)")
    for a in env.possible_agents:
        print(f"  {a:20s} {', '.join(names[i] for i in env.groups[a])}")
    best = -np.inf
    while env.agents:
        actions = {a: env.action_space(a).sample() for a in env.agents}
        _, rewards, _, _, _ = env.step(actions)
        best = max(best, *rewards.values())
    print(f"best shared reward after {steps} steps: {best:.3f} (-log10 EDP)")
    env.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=6, help="RTL-reward steps (2 of warm-up)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rtl_episode("conv:K=8,C=8,H=8,W=8,R=3,S=3,pad=1", "small4", a.steps, 2, a.seed)
    agents_episode("resnet18:layer2.0.conv1", 64, a.seed)


if __name__ == "__main__":
    main()
