"""What the executors run for one BFS level; plain functions, shipped by reference.

Records, all keyed by the 64-bit fingerprint (``fp``) so one partitioner places them:

* frontier / new states: ``(fp, (packed_parent, plain_state))``; ``plain_state`` is
  ``model.state.to_plain(state)`` (the wire codec), ``packed_parent`` is
  ``(parent_fp << 16) | action_index`` or ``ROOT`` (see ``checker.trace``);
* candidates (successors after the map-side de-duplication):
  ``(fp, (packed_parent, plain_state, times_generated))``;
* visited: ``(fp, packed_parent)`` (an int value; this is how the anti-join tells them apart);
* one statistics record per partition of the new states, with a negative key that is never a
  fingerprint: ``(-1 - partition, (generated, new, {property name: smallest violating fp}))``.

De-duplication keeps, for a fingerprint reached several times in a level, the state with the
smallest packed parent, and keeps that state and that parent pointer together, so replaying the
parent chain from an initial state reproduces exactly the stored states.
"""

from __future__ import annotations

from checker.fingerprint import fingerprint
from checker.trace import INDEX_BITS
from model.state import from_plain, to_plain
from model.variants import make_reference_model

_INDEX_LIMIT = 1 << INDEX_BITS
_models: dict = {}


def partition_of(fp: int) -> int:
    """The partition function for every RDD of the engine (Spark takes it modulo the count)."""
    return fp


def model_for(config):
    """The model for ``config`` (the driver model's ``ModelConfig``, pickled), built once per
    Python worker."""
    model = _models.get(config)
    if model is None:
        model = _models[config] = make_reference_model(config)
    return model


def expand(config):
    """A ``mapPartitions`` function: every successor of every frontier state, as a candidate."""

    def run(records):
        model = model_for(config)
        canonical, successors = model.canonical, model.successors
        for fp, value in records:
            if fp < 0:  # a statistics record
                continue
            succ = successors(from_plain(value[1]))
            if len(succ) >= _INDEX_LIMIT:
                raise OverflowError(f"a state has {len(succ)} successors; at most {_INDEX_LIMIT - 1}")
            base = fp << INDEX_BITS
            for index, (_, nxt) in enumerate(succ):
                yield fingerprint(canonical(nxt)), (base | index, to_plain(nxt), 1)

    return run


def keep_first(a: tuple, b: tuple) -> tuple:
    """Combine two candidates for one fingerprint: the smaller parent wins, counts add up."""
    winner = a if a[0] <= b[0] else b
    return (winner[0], winner[1], a[2] + b[2])


def anti_join_and_judge(properties: list):
    """A ``mapPartitionsWithIndex`` function over the union of visited and candidates (one
    partition of each, placed by the same partitioner): the candidates not visited yet, judged
    against ``properties``, then this partition's statistics record."""

    def run(split: int, records):
        visited = set()
        candidates = []
        for fp, value in records:
            if type(value) is int:
                visited.add(fp)
            else:
                candidates.append((fp, value))
        generated = new = 0
        first_bad: dict = {}
        for fp, (packed, plain, count) in candidates:
            generated += count
            if fp in visited:
                continue
            new += 1
            if properties:
                state = from_plain(plain)
                for prop in properties:
                    if not prop.check(state):
                        best = first_bad.get(prop.name)
                        if best is None or fp < best:
                            first_bad[prop.name] = fp
            yield fp, (packed, plain)
        yield -1 - split, (generated, new, first_bad)

    return run


def is_stats(record) -> bool:
    return record[0] < 0


def is_state(record) -> bool:
    return record[0] >= 0


def parent_of(value: tuple) -> int:
    return value[0]


def find_in_partition(fp: int):
    def run(records):
        return [value for key, value in records if key == fp]

    return run
