"""The compiled kernel and the reference model are two definitions of the same rules: proven
equal here, state by state.

For every RF=2 configuration of the known-results suite (scenarios/known-results.toml) and the
small bench size, every reachable state is visited with the reference model
(checker/reference, the oracle), and in each one the kernel's successors (model/kernel/actions/) must be
the reference's successors: the same actions, in the same order, leading to the same states,
byte for byte in row form (so the kernel's rows are in normal form: unused slots zero). The
compiled properties must also agree with the Python ones on every one of those states.

The configurations run in two processes (the machine has two cores); about a minute in all.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from gate.suite import load_suite
from checker.reference import make_reference_model
from model import Bounds, ModelConfig
from checker.reference import reference_supports
from model.actions import ACTION_IDS
from model.kernel.actions import successors
from model.kernel.codec import encode
from model.kernel.spec import kernel_spec
from model.state import to_plain
from properties import PROPERTIES
from properties.compiled import COMPILED_IDS, holds

ROOT = Path(__file__).resolve().parents[2]


def known_results_configs(replication_factor: int = 2) -> list[ModelConfig]:
    """The distinct configurations of the known-results suite with this replication factor that
    the reference model has, without symmetry, and kip-320 and kip-101 with kmc 0.1's two rules
    as well (``--rule +kmc-0.1``: the reference model's switches)."""
    configs = []
    for spec in load_suite(str(ROOT / "scenarios" / "known-results.toml")).checks:
        b = spec.config.bounds
        if b.max_preferred_elections or b.max_reassignments:
            continue  # a row about Kafka's own leader moves, which the oracle does not have
        config = unordered(replace(spec.config, symmetry=False))
        if config.replication_factor != replication_factor or not reference_supports(config):
            continue
        if config not in configs:
            configs.append(config)
    for protocol in ("kip-320", "kip-101"):
        configs.append(ModelConfig(protocol=protocol, replication_factor=replication_factor,
                                   symmetry=False, rule_changes=("+kmc-0.1", UNORDERED, ANY_ORDER)))
    # the time abstraction (docs/model.md, "Time"): the oracle's shrink guard against the kernel's
    configs.append(ModelConfig(protocol="kip-320", replication_factor=replication_factor,
                               symmetry=False, rule_changes=("+timed", UNORDERED, ANY_ORDER)))
    # and its HW wait for a caught-up follower outside the ISR, which kmc 0.1's own-step
    # expansion leaves there after its fetch (hw-waits-for-caught-up-replica, issue 29al)
    configs.append(ModelConfig(protocol="kip-320", replication_factor=replication_factor,
                               symmetry=False, min_insync_replicas=1,
                               rule_changes=("+timed", "+kmc-0.1", UNORDERED, ANY_ORDER)))
    return configs


UNORDERED = "+unordered-leader-moves"
ANY_ORDER = "-leader-and-isr-in-order"


def unordered(config: ModelConfig) -> ModelConfig:
    """``config`` as the oracle models it: leader moves without an assignment order (rule
    ``unordered-leader-moves``), so without operator moves (ControllerElectLeader stands for
    them)."""
    bounds = replace(config.bounds, max_preferred_elections=0, max_reassignments=0)
    return replace(config, bounds=bounds, rule_changes=config.rule_changes + (UNORDERED, ANY_ORDER))


SMALL_BENCH = ModelConfig(protocol="kip-320", replication_factor=3, symmetry=False,
                          bounds=Bounds(max_records=1, max_leader_epoch=1, max_crashes=0),
                          rule_changes=(UNORDERED, "-leader-and-isr-in-order"))


def compare_everywhere(config: ModelConfig) -> tuple[int, str]:
    """Visit every reachable state of ``config`` with the reference model; returns (states
    visited, "" or the first disagreement)."""
    spec = kernel_spec(config)
    layout = spec.layout
    reference = make_reference_model(config)
    out = np.zeros((spec.max_successors, spec.width), dtype=np.int8)
    acts = np.zeros((spec.max_successors, 3), dtype=np.int16)
    compiled_props = [(PROPERTIES[name], pid) for name, pid in COMPILED_IDS.items()]
    init = reference.init_states()[0]
    if encode(init, layout).tobytes() != spec.initial.tobytes():
        return 0, "the initial states differ"
    seen = {to_plain(init)}
    queue = deque([init])
    visited = 0
    while queue:
        state = queue.popleft()
        visited += 1
        row = encode(state, layout)
        for prop, pid in compiled_props:
            if bool(holds(pid, row, spec.lay)) != bool(prop.check(state)):
                return visited, f"{prop.name} disagrees on {state}"
        theirs = reference.successors(state)
        k = successors(row, spec.lay, spec.cfg, out, acts)
        mine = [(int(acts[j, 0]), int(acts[j, 1]), int(acts[j, 2]), out[j].tobytes()) for j in range(k)]
        expected = [
            (ACTION_IDS[a.name], *(tuple(a.args) + (-1, -1))[:2], encode(t, layout).tobytes())
            for a, t in theirs
        ]
        if mine != expected:
            names = [str(a) for a, _ in theirs]
            return visited, f"successors differ in {state}; the reference has {names}"
        for _, t in theirs:
            key = to_plain(t)
            if key not in seen:
                seen.add(key)
                queue.append(t)
    return visited, ""


def _label(config: ModelConfig) -> str:
    b = config.bounds
    return (f"{config.protocol} rf{config.replication_factor} acks={config.acks} "
            f"min.isr={config.min_insync_replicas} unclean={config.unclean_leader_election_enable} "
            f"{config.crash_model} {b.max_records}/{b.max_leader_epoch}/{b.max_crashes}")


# (in make test: the kernel is the model, and this is its check against the reference)
def test_kernel_successors_equal_the_reference_models_on_every_reachable_state():
    configs = known_results_configs() + [SMALL_BENCH]
    assert len(configs) >= 10
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(compare_everywhere, configs))
    failures = [f"{_label(c)}: {why}" for c, (_, why) in zip(configs, results) if why]
    assert not failures, "\n".join(failures)
    assert all(visited > 1000 for visited, _ in results)
