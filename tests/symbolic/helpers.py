"""Shared helpers for the symbolic-engine tests: the explicit reachable states of a small config."""

from __future__ import annotations

import random

from model import make_model


def reachable(model) -> list:
    """Every reachable state of ``model`` (small configurations only), in BFS order."""
    seen = {}
    frontier = model.init_states()
    for s in frontier:
        seen[model.canonical(s)] = s
    while frontier:
        nxt = []
        for s in frontier:
            for _, t in model.successors(s):
                key = model.canonical(t)
                if key not in seen:
                    seen[key] = t
                    nxt.append(t)
        frontier = nxt
    return list(seen.values())


def sample_states(config, k: int, seed: int = 7):
    model = make_model(config)
    states = reachable(model)
    rnd = random.Random(seed)
    # always include the initial state, then a random sample of the rest
    return model, [states[0]] + rnd.sample(states[1:], min(k, len(states) - 1))
