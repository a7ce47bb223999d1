#!/usr/bin/env python3
"""Trains a tiny REINFORCE agent on mapwright's MappingEnv, next to random search.

The policy is one independent softmax per parameter of the compact encoding (NumPy only); the
reward is -log10(EDP) from the surrogate, with a running-mean baseline. Random search draws
the same number of mappings. Both print the best EDP so far against the exact mapper's
optimum. Seeded: the same command prints the same numbers.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/train_agent.py --steps 2000
"""

import argparse

import numpy as np

import mapwright as mw
from mapwright.env import MappingEnv


def reinforce(env, steps, lr, seed):
    """REINFORCE with a baseline; returns the best-so-far EDP after every step."""
    rng = np.random.default_rng(seed)
    logits = [np.zeros(n) for n in env.action_space.nvec]
    baseline, best, curve = None, np.inf, []
    env.reset(seed=seed)
    for _ in range(steps):
        probs = [np.exp(l - l.max()) / np.exp(l - l.max()).sum() for l in logits]
        action = np.array([rng.choice(len(p), p=p) for p in probs], dtype=np.int64)
        _, reward, _, truncated, info = env.step(action)
        if truncated:
            env.reset()
        best = min(best, info["cost"])
        curve.append(best)
        baseline = reward if baseline is None else 0.95 * baseline + 0.05 * reward
        advantage = reward - baseline
        for l, p, a in zip(logits, probs, action):
            grad = -p
            grad[a] += 1.0
            l += lr * advantage * grad
    return curve


def random_search(env, steps, seed):
    env.reset(seed=seed)
    best, curve = np.inf, []
    for _ in range(steps):
        _, _, _, truncated, info = env.step(env.action_space.sample())
        if truncated:
            env.reset()
        best = min(best, info["cost"])
        curve.append(best)
    return curve


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layer", default="resnet18:layer3.0.conv2")
    ap.add_argument("--arch", default="default")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    env = MappingEnv(a.layer, a.arch, objective="edp", reward="log", max_steps=100)
    optimum = mw.exact(a.layer, a.arch).cost
    agent = reinforce(env, a.steps, a.lr, a.seed)
    rand = random_search(env, a.steps, a.seed)
    print(f"{a.layer} on {a.arch}, seed {a.seed}: best EDP found / exact optimum "
          f"({optimum:.4g})")
    print(f"{'steps':>7} {'REINFORCE':>10} {'random':>10}")
    for s in sorted({min(a.steps, x) for x in (10, 50, 100, 250, 500, 1000, 2000, a.steps)}):
        print(f"{s:7d} {agent[s - 1] / optimum:10.3f} {rand[s - 1] / optimum:10.3f}")


if __name__ == "__main__":
    main()
