"""Fingerprints are stable: the same in every process, whatever PYTHONHASHSEED is."""

import os
import subprocess
import sys

from checker.fingerprint import collision_probability, fingerprint
from model import make_model, to_plain
from tests.conftest import config

SNIPPET = """
from model import make_model, to_plain
from checker.fingerprint import fingerprint
from tests.conftest import config
m = make_model(config())
s = m.init_states()[0]
fps = [fingerprint(to_plain(s))]
for _ in range(4):
    s = m.successors(s)[0][1]
    fps.append(fingerprint(to_plain(s)))
print(fps)
"""


def test_fingerprints_agree_across_processes_and_hash_seeds():
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run(
            [sys.executable, "-c", SNIPPET], env=env, capture_output=True, text=True, check=True,
            cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
        ).stdout
        outputs.add(out)
    assert len(outputs) == 1


def test_equal_states_built_differently_have_equal_fingerprints():
    shared = (1, 2)
    assert fingerprint(((shared, shared),)) == fingerprint((((1, 2), (1, 2)),))


def test_different_states_have_different_fingerprints():
    m = make_model(config())
    init = m.init_states()[0]
    fps = {fingerprint(to_plain(s)) for _, s in m.successors(init)} | {fingerprint(to_plain(init))}
    assert len(fps) == 1 + len(m.successors(init))


def test_collision_probability_is_tlcs_optimistic_estimate():
    assert collision_probability(1000, 3000) == 1000 * 2000 / 2.0**64
