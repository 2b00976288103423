"""Exploration past two bounds: any number of crashes and any number of leader epochs.

``kmc check --unbounded crashes`` and ``--unbounded crashes,leader-epochs`` (issue 29 item 4).
A breadth-first search over the compiled kernel's rows, like the compiled engine's, with each
state stored in a normal form that forgets what the model cannot tell apart:

* **The crash count.** The kernel reads the ``crashes`` slot in one place, BrokerCrash's guard
  (``model/kernel/actions/faults.py``: ``crashes < max_crashes``), and writes it only there.
  Storing every state with 0 in it leaves every state free to crash once more: the states
  explored are those of every number of crashes.
* **Leader epochs, by their order only** (data independence: Wolper, POPL 1986; for ordered
  domains, Lazić and Nowak, CONCUR 2000). Kafka's brokers and controller compare leader epochs (a
  request from an older epoch is refused, ``Partition.makeLeader`` checks the request's epoch
  is newer, a fetch carries its epoch for KIP-320's check, the epoch cache is ordered) and the
  controller writes one more than its own at each election (``PartitionStateMachine`` at
  2.1.0, ``PartitionChangeBuilder`` on KRaft); nothing adds, subtracts or tests an epoch
  against a number. So renaming the epochs of a state by a map that keeps their order (and the
  controller's epoch the largest, as it is by construction: every epoch in a state was once the
  controller's, which only rises) renames its successors alike.
  Each state is stored with its epochs renamed to 0, 1, ..., k-1 in their order: the search
  then covers every value the epochs could take, so every number of leader epochs.
  That is an argument about the kernel's code; the search also **checks it**: on every state
  it explores it renames the epochs twice more (all shifted up by one; a gap opened in the
  middle) and asks the kernel for the successors of each; their normal forms must be the same
  set as the state's own, and each property must judge the three alike. A difference stops
  the search (INCOMPLETE) and says at which depth: the argument does not hold there.

The catch, and the one bound the search keeps: a state can hold any number of distinct leader
epochs, because the controller's LeaderAndIsr requests to a broker queue up while the broker
has not handled them (Kafka's ``ControllerChannelManager`` keeps one unbounded queue a
broker), and the leader may crash, restart and be elected again while they wait. Then no
finite normal form exists. So the search explores the behaviours where at most
``max_waiting`` LeaderAndIsr requests are on their way to any one broker at once
(``--max-waiting-requests``, default 2): states with more are not explored. With it, a state
holds at most a fixed number of distinct epochs (``distinct_bound``), and the search is
complete when it ends: HOLDS means for every number of crashes and leader epochs, in the
behaviours where no broker has more than that many LeaderAndIsr requests waiting.

The epoch bound of the rows (``max_leader_epoch``) is set above the most distinct epochs a
stored state can hold, so the kernel never refuses an election for lack of an epoch number;
the search checks it (the largest epoch of a stored state is reported and must stay below).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from checker.result import (HOLDS, INCOMPLETE, VIOLATED, CheckResult, CheckStats,
                            PropertyResult)
from checker.limits import check_limit
from checker.trace import Step, Trace
from model.errors import ConfigError
from model.kernel.actions import successors as kernel_successors
from model.kernel.codec import decode, decode_action
from model.kernel.jit import kernel
from model.kernel.slots import BROKER0, BROKER_STRIDE
from model.kernel.spec import kernel_spec
from model.kernel.symmetry import canonical
from model.schema import EPOCHS, all_slots
from properties import get_properties
from properties.compiled import COMPILED_IDS, holds

UNBOUNDED_CHOICES = ("crashes", "leader-epochs")

# Slots holding a leader epoch, and the slot that says whether it is present ("" always; the
# leader_epoch of a broker is -1 before its first LeaderAndIsr). Slots of width EPOCHS are
# indexed by leader epoch (the LeaderAndIsr requests in flight): their entries move with it.
EPOCH_VALUED = {
    "leader_epoch": ("", None),  # a broker's: -1 for none
    "controller_leader_epoch": ("", None),
    "log_epoch": ("log_end_offset", "count"),  # one a record, below the log end
    "response_epoch": ("response", "flag"),
    "response_epochs": ("response_count", "count"),
    "fetch_request_epoch": ("fetch_request", "flag"),
    "alter_leader_epoch": ("alter_state", "flag"),
    "change_leader_epoch": ("change", "flag"),
    "zombie_leader_epoch": ("zombie", "flag"),
}
NOT_LEADER_EPOCHS = {
    # other counters named epoch: each its own domain, bounded by its own fault bound
    "producer_epoch", "log_producer_epoch", "response_producer_epoch",  # KIP-360 bumps
    "controller_epoch", "controller_epoch_seen", "zombie_controller_epoch",  # failovers
    "lai_controller_epoch",  # (moved with its request, a controller epoch)
    "epoch_start_offset",  # an offset
    "partition_epoch_current", "alter_partition_epoch_current", "alter_member_epoch_current",
    "lai_current",  # flags
}


def classified_slots() -> set:
    return set(EPOCH_VALUED) | NOT_LEADER_EPOCHS


# The renaming's hot part, compiled like the kernel (numba, cached per installation): a state's
# epochs as flags, a renaming applied, the normal form, the requests waiting a broker.
# ``vpos``/``vpres``/``vkind``: each epoch-valued position, its presence slot and how to read it
# (0: present when >= 0; 1: when the presence slot is set; 2: the presence slot counts them);
# ``arrays[b]``: the start of each array of broker b indexed by leader epoch, the flags first.

@kernel
def _present(row, k, vpos, vpres, vkind):
    """How many epochs epoch-valued slot ``k`` holds in ``row`` (from ``vpos[k]`` on)."""
    if vkind[k] == 0:
        return 1 if row[vpos[k]] >= 0 else 0
    if vkind[k] == 1:
        return 1 if row[vpres[k]] != 0 else 0
    return row[vpres[k]]


@kernel
def _epoch_flags(row, seen, vpos, vpres, vkind, arrays, n_epochs):
    for i in range(seen.shape[0]):
        seen[i] = 0
    for k in range(vpos.shape[0]):
        for i in range(_present(row, k, vpos, vpres, vkind)):
            seen[row[vpos[k] + i]] = 1
    if arrays.shape[1] > 0:
        for b in range(arrays.shape[0]):
            start = arrays[b, 0]
            for e in range(n_epochs):
                if row[start + e] != 0:
                    seen[e] = 1


@kernel
def _rename(row, out, phi, vpos, vpres, vkind, arrays, n_epochs, crashes_at):
    for i in range(row.shape[0]):
        out[i] = row[i]
    if crashes_at >= 0:
        out[crashes_at] = 0
    for k in range(vpos.shape[0]):
        for i in range(_present(row, k, vpos, vpres, vkind)):
            out[vpos[k] + i] = phi[row[vpos[k] + i]]
    for b in range(arrays.shape[0]):
        for a in range(arrays.shape[1]):
            for e in range(n_epochs):
                out[arrays[b, a] + e] = 0
        if arrays.shape[1] > 0:
            for e in range(n_epochs):
                if row[arrays[b, 0] + e] != 0:
                    f = phi[e]
                    for a in range(arrays.shape[1]):
                        out[arrays[b, a] + f] = row[arrays[b, a] + e]


@kernel
def _normal_form(row, out, seen, phi, vpos, vpres, vkind, arrays, n_epochs, crashes_at):
    """Rename ``row``'s epochs to 0, 1, ... in their order into ``out``; how many there are."""
    _epoch_flags(row, seen, vpos, vpres, vkind, arrays, n_epochs)
    k = 0
    for e in range(n_epochs):
        if seen[e] != 0:
            phi[e] = k
            k += 1
    _rename(row, out, phi, vpos, vpres, vkind, arrays, n_epochs, crashes_at)
    return k


@kernel
def _most_waiting(row, arrays, n_epochs):
    most = 0
    if arrays.shape[1] > 0:
        for b in range(arrays.shape[0]):
            c = 0
            for e in range(n_epochs):
                if row[arrays[b, 0] + e] != 0:
                    c += 1
            if c > most:
                most = c
    return most


@dataclass
class Renaming:
    """Where a layout's leader epochs are (row positions), to find and rename them."""

    n: int
    n_epochs: int
    values: list  # (value position, presence position or -1, kind: None / "flag" / "count", width)
    per_epoch: list  # start positions of the arrays indexed by leader epoch, the first the flags
    crashes: int

    @classmethod
    def of(cls, spec) -> "Renaming":
        lay = spec.layout
        b0, stride = int(spec.lay[BROKER0]), int(spec.lay[BROKER_STRIDE])
        glob = {f.name: f for f in lay.global_fields}
        block = {f.name: f for f in lay.block_fields}
        values, per_epoch = [], []

        def positions(name):
            if name in glob:
                return [glob[name].offset] if glob[name].count else []
            f = block.get(name)
            if f is None or not f.count:
                return []
            return [b0 + b * stride + f.offset for b in range(lay.n_brokers)]

        for name, (present, kind) in EPOCH_VALUED.items():
            f = glob.get(name) or block.get(name)
            if f is None or not f.count:
                continue
            at = positions(name)
            where = positions(present) if present else [-1] * len(at)
            for pos, pres in zip(at, where if len(where) == len(at) else where * len(at)):
                values.append((pos, pres, kind, f.count))
        epoch_arrays = [s.name for s in all_slots() if s.width == EPOCHS]
        for b in range(lay.n_brokers):
            starts = []
            for name in epoch_arrays:
                f = block.get(name)
                if f is not None and f.count:
                    starts.append(b0 + b * stride + f.offset)
            per_epoch.append(starts)
        return cls(lay.n_brokers, lay.n_epochs, values, per_epoch, glob["crashes"].offset)

    def __post_init__(self):
        kinds = {None: 0, "flag": 1, "count": 2}
        self.vpos = np.array([v[0] for v in self.values], dtype=np.int64)
        self.vpres = np.array([v[1] for v in self.values], dtype=np.int64)
        self.vkind = np.array([kinds[v[2]] for v in self.values], dtype=np.int64)
        width = max((len(s) for s in self.per_epoch), default=0)
        self.arrays = np.array([s for s in self.per_epoch], dtype=np.int64).reshape(self.n, width)
        self._seen = np.zeros(self.n_epochs, dtype=np.int8)
        self._phi = np.zeros(self.n_epochs, dtype=np.int8)

    def normal_form(self, row, out, forget_crashes: bool) -> int:
        """Write ``row`` with its epochs renamed 0, 1, ... (order kept) into ``out``; their
        number."""
        return _normal_form(row, out, self._seen, self._phi, self.vpos, self.vpres, self.vkind,
                            self.arrays, self.n_epochs, self.crashes if forget_crashes else -1)

    def most_waiting(self, row) -> int:
        return _most_waiting(row, self.arrays, self.n_epochs)

    def epochs_of(self, row) -> list:
        """The leader epochs present in ``row``, sorted, without repeats."""
        _epoch_flags(row, self._seen, self.vpos, self.vpres, self.vkind, self.arrays, self.n_epochs)
        return [int(e) for e in np.flatnonzero(self._seen)]


@dataclass
class _Search:
    spec: object
    renaming: Renaming
    epochs: bool
    crashes: bool
    max_waiting: int

    def __post_init__(self):
        spec = self.spec
        self.out = np.zeros((spec.max_successors, spec.width), dtype=np.int8)
        self.acts = np.zeros((spec.max_successors, 3), dtype=np.int16)
        n = spec.layout.n_brokers
        self._cmp = np.zeros(n * n, dtype=np.int8)
        self._scratch = np.zeros(spec.width, dtype=np.int8)
        self._best = np.zeros(spec.width, dtype=np.int8)
        self._normal = np.zeros(spec.width, dtype=np.int8)

    def normal(self, row) -> tuple:
        """(the normal form's key, its number of distinct epochs)."""
        if self.epochs:
            k = self.renaming.normal_form(row, self._normal, self.crashes)
            row = self._normal
        else:
            if self.crashes:
                row = row.copy()
                row[self.renaming.crashes] = 0
            k = 0
        if canonical(row, self.spec.lay, self.spec.sym, self._cmp, self._scratch, self._best):
            return row.tobytes(), k
        return self._best.tobytes(), k

    def successors(self, row) -> list:
        """[(action index, normal key, distinct epochs)] of the kept successors."""
        k = kernel_successors(row, self.spec.lay, self.spec.cfg, self.out, self.acts)
        res = []
        for j in range(k):
            t = self.out[j]
            if self.epochs and self.renaming.most_waiting(t) > self.max_waiting:
                continue
            key, d = self.normal(t)
            res.append((j, key, d))
        return res


def distinct_bound(spec, renaming: Renaming, max_waiting: int) -> int:
    """How many distinct leader epochs a kept state can hold: one a slot, with the requests
    counted up to ``max_waiting`` a broker."""
    total = 0
    for pos, pres, kind, width in renaming.values:
        total += width if kind == "count" else 1
    return total + max_waiting * renaming.n


def prepare(config, unbounded: tuple, max_waiting: int):
    """The configuration the search runs on (its row layout's epoch bound above what a normal
    form can hold; one crash allowed from every state) and its ``Renaming``."""
    bad = [u for u in unbounded if u not in UNBOUNDED_CHOICES]
    if not unbounded:
        raise ConfigError("--unbounded needs crashes, or crashes,leader-epochs")
    if bad:
        raise ConfigError(f"--unbounded takes {' and '.join(UNBOUNDED_CHOICES)} "
                          f"(comma-separated), not {bad[0]!r}")
    epochs = "leader-epochs" in unbounded
    b = config.bounds
    changes = {}
    if "crashes" in unbounded:
        changes["max_crashes"] = max(b.max_crashes, 1)
    elif epochs:
        # without the crash count forgotten, the epochs are bounded by the faults anyway
        raise ConfigError("--unbounded leader-epochs needs --unbounded crashes too "
                          "(--unbounded crashes,leader-epochs): with a bound on crashes the "
                          "elections are bounded, and --max-leader-epoch says how far")
    trial = dataclasses.replace(config, bounds=dataclasses.replace(b, **changes))
    spec = kernel_spec(trial)
    renaming = Renaming.of(spec)
    if epochs:
        need = distinct_bound(spec, renaming, max_waiting) + 2  # room for one more, and a shift
        if need > 120:
            raise ConfigError(f"--unbounded leader-epochs: a state of this configuration can hold "
                              f"{need - 2} distinct leader epochs, past what a row stores (120); "
                              f"lower --max-waiting-requests or --max-records")
        changes["max_leader_epoch"] = need
        trial = dataclasses.replace(config, bounds=dataclasses.replace(b, **changes))
        spec = kernel_spec(trial)
        renaming = Renaming.of(spec)
    return trial, spec, renaming


def _check_invariance(search: _Search, row, kept: list, props: list, lay) -> str | None:
    """Rename ``row``'s epochs twice (all up by one; a gap opened in the middle) and compare the
    successors' normal forms and the properties' verdicts; a sentence on a difference. ``row``
    is a stored normal form: its epochs are 0, 1, ..., k-1."""
    r = search.renaming
    _epoch_flags(row, r._seen, r.vpos, r.vpres, r.vkind, r.arrays, r.n_epochs)
    k = int(r._seen.sum())
    if k == 0 or k + 2 > r.n_epochs - 1:
        return None
    mine = {key for _, key, _ in kept}
    ident = np.arange(r.n_epochs, dtype=np.int8)
    other = np.zeros_like(row)
    for label, phi in (("shifted up by one", ident + 1),
                       ("with a gap opened in the middle", ident + (ident >= k // 2))):
        _rename(row, other, phi.astype(np.int8), r.vpos, r.vpres, r.vkind, r.arrays, r.n_epochs, -1)
        theirs = {key for _, key, _ in search.successors(other)}
        if theirs != mine:
            return f"the successors of a state with its leader epochs {label} differ"
        for name, pid in props:
            if holds(pid, other, lay) != holds(pid, row, lay):
                return f"{name} judges a state with its leader epochs {label} differently"
    return None


def explore(config, properties, unbounded=("crashes", "leader-epochs"), max_waiting: int = 2,
            max_states=None, time_limit=None, progress=None, check_invariance: bool = True):
    """Search ``config`` with ``unbounded`` forgotten; a ``CheckResult`` whose config's bounds
    say ``"any"`` for what was forgotten. Properties: names with a compiled form."""
    check_limit("max-states", max_states, whole=True)
    check_limit("time-limit", time_limit)
    unknown = [p for p in properties if p not in COMPILED_IDS]
    if unknown:
        raise ConfigError(f"--unbounded checks properties of states with a compiled form "
                          f"({', '.join(COMPILED_IDS)}), not {unknown[0]!r}")
    unclassified = sorted(s.name for s in all_slots()
                          if "epoch" in s.name and s.name not in classified_slots())
    if unclassified:  # a new slot needs a decision: is it a leader epoch?
        raise ConfigError(f"--unbounded: slot {unclassified[0]!r} of model/schema.py is not "
                          "classified in checker/unbounded.py")
    if any(p.history == "reads" for p in get_properties(properties)) and not config.track_reads:
        config = dataclasses.replace(config, track_reads=True)  # no-read-loss: as checker.check
    trial, spec, renaming = prepare(config, tuple(unbounded), max_waiting)
    epochs = "leader-epochs" in unbounded
    search = _Search(spec, renaming, epochs, "crashes" in unbounded, max_waiting)
    lay = spec.lay
    props = [(p, COMPILED_IDS[p]) for p in properties]
    start = time.monotonic()
    init = spec.initial.copy()
    key0, d0 = search.normal(init)
    parents = {key0: None}
    frontier = [key0]
    stats = CheckStats()
    verdicts = {p: HOLDS for p in properties}
    traces = {}
    limit = None
    most_epochs = d0
    checked = 0
    problem = None
    depth = 0
    while frontier and limit is None and problem is None:
        nxt = []
        for key in frontier:
            row = np.frombuffer(key, dtype=np.int8).copy()
            for name, pid in props:
                if verdicts[name] == HOLDS and not holds(pid, row, lay):
                    verdicts[name] = VIOLATED
                    traces[name] = _trace(search, parents, key, name)
            kept = search.successors(row)
            stats.states_generated += len(kept)
            if epochs and check_invariance:
                problem = _check_invariance(search, row, kept, props, lay)
                checked += 1
                if problem:
                    problem = f"{problem} (at depth {depth}); the search stopped"
                    break
            for j, k, d in kept:
                most_epochs = max(most_epochs, d)
                if k not in parents:
                    parents[k] = (key, j)
                    nxt.append(k)
            if max_states and len(parents) >= max_states:
                limit = "max-states"
                break
            if time_limit and time.monotonic() - start > time_limit:
                limit = "time-limit"
                break
        if all(v == VIOLATED for v in verdicts.values()) and verdicts:
            frontier = []
            break
        frontier = nxt
        depth += 1
        stats.distinct_states, stats.depth, stats.queue = len(parents), depth, len(frontier)
        stats.seconds = time.monotonic() - start
        if progress is not None:
            progress(stats)
    stats.distinct_states, stats.queue = len(parents), len(frontier)
    stats.seconds = time.monotonic() - start
    if epochs and most_epochs + 1 >= renaming.n_epochs - 1 and problem is None:
        problem = (f"a stored state holds {most_epochs} distinct leader epochs, at the rows' "
                   f"bound: an election may have been refused")
    if limit or problem:
        for name in properties:
            if verdicts[name] == HOLDS:
                verdicts[name] = INCOMPLETE
    result_config = trial.as_dict()
    bounds = dict(result_config.get("bounds", {}))
    if "crashes" in unbounded:
        bounds["max_crashes"] = "any"
    if epochs:
        bounds["max_leader_epoch"] = "any"
        bounds["max_waiting_requests"] = max_waiting
    result_config["bounds"] = bounds
    result = CheckResult("compiled, --unbounded " + ",".join(unbounded), result_config,
                         [PropertyResult(p, verdicts[p], traces.get(p)) for p in properties],
                         stats, limit=limit or ("invariance" if problem else None))
    result.notes += list(config.notes())
    if epochs:
        result.notes.append(
            f"leader epochs renamed by their order (checker/unbounded.py): the stored states held "
            f"at most {most_epochs} distinct leader epochs; the renaming was checked on "
            f"{checked:,} states")
        result.notes.append(
            f"behaviours with more than {max_waiting} LeaderAndIsr requests waiting for one "
            "broker were not explored (--max-waiting-requests)")
    if problem:
        result.notes.append(f"not order-invariant: {problem}")
    for name, trace in traces.items():
        crashes = sum(1 for a in trace.actions if a.name == "BrokerCrash")
        top = max(st.controller.leader_epoch for st in trace.states)
        renamed = any(_renamed_at(trace))
        result.notes.append(
            f"{name}'s counterexample is an execution of kmc's model with {crashes} crash(es) and "
            f"leader epochs up to {top}"
            + (" (renamed by their order where they would pass the rows' bound)" if renamed else
               f": `kmc check --max-crashes {max(crashes, 1)} --max-leader-epoch {max(top, 1)}` with "
               "the same other options finds a violation too, with a replayable trace"))
    return result


def _renamed_at(trace) -> list:
    """Steps where the shown controller epoch went down: the trace renamed its epochs there."""
    states = trace.states
    return [i for i in range(1, len(states))
            if states[i].controller.leader_epoch < states[i - 1].controller.leader_epoch]


def _trace(search: _Search, parents: dict, key: bytes, name: str) -> Trace:
    """The path to ``key``, replayed forwards from the initial state through the kernel: at each
    step the successor whose normal form is the next stored one. The states shown keep their
    leader epochs as the kernel wrote them (renamed only if one would pass the rows' bound) and
    forget the crash count, so it is an execution of kmc's model, epochs and all."""
    path = []
    while parents[key] is not None:
        parent, _ = parents[key]
        path.append(key)
        key = parent
    spec, r = search.spec, search.renaming
    layout = spec.layout
    row = spec.initial.copy()
    trace = Trace(decode(row.copy(), layout), [], name)
    out = np.zeros_like(search.out)
    acts = np.zeros_like(search.acts)
    for child in reversed(path):
        k = kernel_successors(row, spec.lay, spec.cfg, out, acts)
        for j in range(k):
            if search.normal(out[j])[0] == child:
                row = out[j].copy()
                break
        else:  # the stored path is a path of normal forms: some successor must match
            raise RuntimeError("--unbounded: the counterexample does not replay")
        act = decode_action(acts[j])
        if search.crashes:
            row[r.crashes] = 0
        vs = r.epochs_of(row)
        if search.epochs and vs and vs[-1] + 2 >= r.n_epochs - 1:
            renamed = np.zeros_like(row)
            r.normal_form(row, renamed, search.crashes)
            row = renamed
        trace.steps.append(Step(act, decode(row.copy(), layout)))
    return trace
