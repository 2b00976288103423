"""A cutoff for the number of records, tried: project every step onto one record.

The question (issue 29, item 4): does ``no-acked-loss`` hold for *every* number of records, not
only up to ``--max-records``? A cutoff argument would answer it from a bounded check. Records are
data to the protocol: no action reads a record's id, only its epoch and where it sits (offsets,
LEOs, HWs). A loss involves one acknowledged record ``r``. So project a state onto ``r``: erase
every other record from every log, fetch response, pending ack and acked list, and map every
offset to the number of kept records below it in the log it points into (a replica's HW, flushed
offset and its followers' LEOs into its own log; a fetch response's offsets into the log of the
follower it answers). Every log becomes ``[r]`` or ``[]``; ``r`` is renamed record 1.

**The projection lemma** (what would make the cutoff sound): for every step ``s -> s'`` of the
model with ``n`` records, ``project(s', r)`` equals ``project(s, r)`` (a stutter) or is a
successor of ``project(s, r)`` in the same model with one record. If it held for every ``n``, any
trace that loses ``r`` would project to a one-record trace that loses it (the projection keeps
the controller, who is alive, every epoch, and whether the true leader's log holds ``r``), so a
bounded check with ``--max-records 1`` would decide ``no-acked-loss`` for every number of
records.

``check_projection`` checks the lemma exhaustively for one small ``n``: every reachable step of
the oracle's model (``checker.reference``, kmc 0.1's pure-Python model, which is what the
symbolic engine encodes) and every record id. It returns the first step the lemma fails on, or
None. A None for ``n = 2, 3`` would be evidence, not a proof for every ``n`` (that needs the
lemma proved action by action); a failure is a proof that this projection cannot be the cutoff.
What it found is in docs/symbolic.md, "Unbounded proofs".
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace

from checker.reference import make_reference_model
from model.actions import Action
from model.config import ModelConfig
from model.state import ClusterState


def _kept_below(log: tuple, offset: int, rid: int) -> int:
    """How many records of ``log[:offset]`` the projection onto ``rid`` keeps (0 or 1)."""
    return int(any(rec[0] == rid for rec in log[:max(offset, 0)]))


def _project_log(log: tuple, rid: int) -> tuple:
    return tuple((1, ep) for i, ep in log if i == rid)


def _offset(value: int, log: tuple, rid: int) -> int:
    """An offset into ``log``, projected (-1, "unknown", stays -1)."""
    return value if value < 0 else _kept_below(log, value, rid)


def _project_response(resp: tuple, follower_log: tuple, rid: int) -> tuple:
    """A fetch response ``(leader, epoch, offset, records, leader HW, leader LEO)``. ``offset``
    is the follower's LEO when it fetched, so it is counted in the follower's log; the records
    sit from ``offset`` on, so an offset above it counts the kept ones among them too."""
    if not resp:
        return resp
    lead, epoch, offset, records, hw, leo = resp
    base = _kept_below(follower_log, offset, rid)

    def at(x: int) -> int:
        if x <= offset:
            return _kept_below(follower_log, x, rid)
        return base + sum(1 for i, _ in records[:x - offset] if i == rid)

    return (lead, epoch, base, _project_log(records, rid), at(hw), at(leo))


def _is_noop(r, resp: tuple) -> bool:
    """A projected response that handling would not change (no records, the HW it sets is the
    follower's, not out of range): the one-record model prunes the fetch that makes it (a long
    poll that changes nothing), so the projection drops it; handling it is then a stutter."""
    if not resp:
        return False
    lead, epoch, offset, records, hw, leo = resp
    return (not records and offset <= leo and len(r.log) == offset
            and min(len(r.log), hw) == r.high_watermark)


def project(state: ClusterState, rid: int) -> ClusterState:
    """``state`` with every record but ``rid`` erased, ``rid`` renamed 1, offsets remapped."""
    reps = []
    for r in state.replicas:
        remote = tuple(_offset(x, r.log, rid) for x in r.remote_log_end_offsets)
        p = r._replace(
            log=_project_log(r.log, rid),
            high_watermark=_kept_below(r.log, r.high_watermark, rid),
            remote_log_end_offsets=remote,
            fetch_response=_project_response(r.fetch_response, r.log, rid),
            flushed_offset=_kept_below(r.log, r.flushed_offset, rid),
        )
        reps.append(p)
    pending = tuple((owner, 1, _kept_below(state.replicas[owner].log, off, rid))
                    for owner, i, off in state.pending_acks if i == rid)
    acked = tuple((1, 0) for i, _ in state.acked if i == rid)
    return normal(state._replace(
        replicas=tuple(reps), pending_acks=pending, acked=acked,
        records_written=int(state.records_written >= rid),
    ))


def normal(state: ClusterState) -> ClusterState:
    """The normal form both sides of the lemma are compared in: a fetch response that handling
    would not change (``_is_noop``) is dropped; a follower with an empty log is not truncating
    (the one-record model starts no truncation of an empty log,
    ``Kip101Model.truncate_on_become_follower``); the consumer-visible history is forgotten (no
    action reads it but to extend it, and ``no-acked-loss`` does not read it). The image the
    cutoff checks is the one-record model with its successors put in this form, so nothing here
    needs to be a bisimulation: the argument only needs the lemma and the image's check."""
    reps = []
    for r in state.replicas:
        if _is_noop(r, r.fetch_response):
            r = r._replace(fetch_response=())
        if r.truncating and not r.log:
            r = r._replace(truncating=False)
        reps.append(r)
    return state._replace(replicas=tuple(reps), consumer_visible=())


@dataclass(frozen=True)
class ProjectionFailure:
    """A step whose projection onto ``record`` is neither a stutter nor a one-record step."""

    before: ClusterState
    action: object
    after: ClusterState
    record: int
    projected_before: ClusterState
    projected_after: ClusterState


@dataclass(frozen=True)
class ProjectionCheck:
    """What ``check_projection`` saw: ``failures`` counts the failing (step, record) pairs per
    action name, ``examples`` keeps the first failure of each action."""

    config: ModelConfig
    states: int
    steps: int
    failures: dict
    examples: dict

    @property
    def holds(self) -> bool:
        return not self.failures


def one_record(config: ModelConfig) -> ModelConfig:
    return replace(config, bounds=replace(config.bounds, max_records=1))


OWN_STEP = "isr-expansion-as-own-step"


def _widened_class(base: type) -> type:
    """``base`` (an oracle model class) with the two guards that erased records can flip made
    free: see ``AbstractOneRecord``."""

    class Widened(base):
        name = base.name

        def leader_shrink_isr(self, s):
            # no lag test: a leader may drop any follower from its ISR at any time
            for b in self.brokers:
                r = s.replicas[b]
                if not (r.alive and r.leader == b and len(r.isr) > 1):
                    continue
                if not self._isr_change_allowed(s, b, r):
                    continue
                for f in r.isr:
                    if f == b:
                        continue
                    isr = tuple(x for x in r.isr if x != f)
                    nxt = s._replace(
                        replicas=_put(s.replicas, b, r._replace(isr=isr)),
                        controller=s.controller._replace(isr=isr),
                    )
                    yield Action("LeaderShrinkIsr", (b, f)), self._finish(
                        self._maybe_increment_leader_hw(nxt, b))

        leader_shrink_isr._kmc_action = True

        def follower_truncate(self, s):
            # as the model, and besides: a follower whose record the leader lacks may keep it
            yield from base.follower_truncate(self, s)
            for f in self.brokers:
                fr = s.replicas[f]
                if not (fr.alive and fr.truncating and fr.log) or fr.leader < 0:
                    continue
                lr = s.replicas[fr.leader]
                if not (lr.alive and lr.leader == fr.leader):
                    continue
                if self.fetch_fenced and lr.leader_epoch != fr.leader_epoch:
                    continue
                if lr.log[:1] == fr.log[:1]:
                    continue  # the leader holds it: the model's answer keeps it (docs/symbolic.md)
                kept = fr._replace(truncating=False)
                yield Action("FollowerTruncate", (f,)), s._replace(replicas=_put(s.replicas, f, kept))

        follower_truncate._kmc_action = True

        if base.follower_truncate is None:  # hw-truncation: no OffsetsForLeaderEpoch, no step
            follower_truncate = None

    return Widened


def _put(items: tuple, index: int, value) -> tuple:
    return items[:index] + (value,) + items[index + 1:]


class AbstractOneRecord:
    """The one-record image of a model with any number of records: the oracle's model of
    ``config`` with one record, widened where erasing the other records loses what a guard
    reads (the argument is in docs/symbolic.md, "Unbounded records"):

    * ``LeaderShrinkIsr`` without its lag test (erased records can be what a follower lags by);
    * the leader adds a caught-up follower to the ISR inside its fetch or not, and in a step of
      its own (the union of Kafka's rule and kmc 0.1's ``isr-expansion-as-own-step``: a follower
      behind by erased records only can look caught up);
    * ``FollowerTruncate`` may also keep the record when the leader lacks it (what the other
      records' epochs would have made the answer is erased with them).

    Every successor of the oracle's one-record model is one of its successors.
    """

    def __init__(self, config: ModelConfig) -> None:
        small = one_record(config)
        variants = []
        for own_step in (False, True):
            changes = tuple(c for c in small.rule_changes if c.lstrip("+-") != OWN_STEP)
            changes += (("+" if own_step else "-") + OWN_STEP,)
            cfg = replace(small, rule_changes=changes)
            base = make_reference_model(cfg)
            variants.append(_widened_class(type(base))(cfg))
        self.config = small
        self.variants = tuple(variants)

    def init_states(self) -> list:
        return self.variants[0].init_states()

    def successors(self, state: ClusterState) -> list:
        out, seen = [], set()
        for m in self.variants:
            for act, nxt in m.successors(state):
                if (act, nxt) not in seen:
                    seen.add((act, nxt))
                    out.append((act, nxt))
        return out


def check_projection(config: ModelConfig, *, max_states: int | None = None,
                     first_only: bool = False, widen: bool = True) -> ProjectionCheck:
    """Check the projection lemma on every reachable step of ``config`` (its ``max_records``
    records) by BFS over the oracle's model, without symmetry reduction. ``first_only`` stops at
    the first failure; ``max_states`` bounds the search (then a clean result covers only the
    states seen)."""
    model = make_reference_model(config)
    small = AbstractOneRecord(config) if widen else make_reference_model(one_record(config))
    small_succ: dict = {}

    def successors_of_projection(p: ClusterState) -> set:
        if p not in small_succ:
            small_succ[p] = {normal(nxt) for _, nxt in small.successors(p)}
        return small_succ[p]

    init = model.init_states()
    seen = set(init)
    queue = deque(init)
    steps = 0
    failures: dict = {}
    examples: dict = {}
    ids = range(1, config.bounds.max_records + 1)
    while queue:
        s = queue.popleft()
        projected = {rid: project(s, rid) for rid in ids}
        for act, nxt in model.successors(s):
            steps += 1
            for rid in ids:
                before, after = projected[rid], project(nxt, rid)
                if after != before and after not in successors_of_projection(before):
                    failures[act.name] = failures.get(act.name, 0) + 1
                    examples.setdefault(act.name, ProjectionFailure(s, act, nxt, rid, before, after))
                    if first_only:
                        return ProjectionCheck(config, len(seen), steps, failures, examples)
            if nxt not in seen:
                if max_states is not None and len(seen) >= max_states:
                    continue
                seen.add(nxt)
                queue.append(nxt)
    return ProjectionCheck(config, len(seen), steps, failures, examples)


@dataclass(frozen=True)
class AbstractResult:
    """``no-acked-loss`` on ``AbstractOneRecord``: ``trace`` is None when it holds on every
    reachable state (``states`` of them), else the actions and states to a violation."""

    states: int
    trace: tuple | None

    @property
    def holds(self) -> bool:
        return self.trace is None


def check_abstract(config: ModelConfig) -> AbstractResult:
    """BFS of ``AbstractOneRecord(config)`` for ``no-acked-loss``; a violation comes back as a
    shortest trace ``((None, init), (action, state), ...)``."""
    from properties.invariants import no_acked_loss

    model = AbstractOneRecord(config)
    parent: dict = {}
    queue: deque = deque()
    for s in map(normal, model.init_states()):
        parent.setdefault(s, None)
        queue.append(s)
    while queue:
        s = queue.popleft()
        if not no_acked_loss(s):
            steps = []
            while s is not None:
                link = parent[s]
                steps.append((link[0] if link else None, s))
                s = link[1] if link else None
            return AbstractResult(len(parent), tuple(reversed(steps)))
        for act, nxt in model.successors(s):
            nxt = normal(nxt)
            if nxt not in parent:
                parent[nxt] = (act, s)
                queue.append(nxt)
    return AbstractResult(len(parent), None)


def replays(config: ModelConfig, trace: tuple) -> bool:
    """Whether a trace of the widened image is a trace of the oracle's one-record model itself
    (each state, normalised, among the model's normalised successors of the one before): then
    the loss it shows is real, with one record."""
    model = make_reference_model(one_record(config))
    states = [s for _, s in trace]
    if states[0] not in {normal(s) for s in model.init_states()}:
        return False
    return all(b in {normal(n) for _, n in model.successors(a)} for a, b in zip(states, states[1:]))


def _main(argv=None) -> int:
    import argparse
    import sys
    import time

    from model.config import Bounds

    ap = argparse.ArgumentParser(prog="python -m checker.symbolic.cutoff", description=(
        "A cutoff for the number of records: check the projection lemma on every reachable step "
        "with --lemma-records records, then no-acked-loss on the widened one-record image "
        "(docs/symbolic.md, 'Unbounded records'). The oracle's model: any ISR member may win an "
        "election, requests in any order."))
    ap.add_argument("--protocol", default="kip-320")
    ap.add_argument("--rule", action="append", default=[])
    ap.add_argument("-r", "--replication-factor", type=int, default=2)
    ap.add_argument("--acks", default="all", choices=("0", "1", "all"))
    ap.add_argument("--min-insync-replicas", type=int, default=2)
    ap.add_argument("--crash-model", default="process", choices=("process", "power-loss"))
    ap.add_argument("--max-leader-epoch", type=int, default=2)
    ap.add_argument("--max-crashes", type=int, default=1)
    ap.add_argument("--lemma-records", type=int, default=3)
    a = ap.parse_args(argv)
    try:
        config = ModelConfig(
            protocol=a.protocol, replication_factor=a.replication_factor, acks=a.acks,
            min_insync_replicas=a.min_insync_replicas, crash_model=a.crash_model,
            bounds=Bounds(max_records=a.lemma_records, max_leader_epoch=a.max_leader_epoch,
                          max_crashes=a.max_crashes, max_unflushed_losses=1),
            rule_changes=("+unordered-leader-moves", "-leader-and-isr-in-order", *a.rule))
        make_reference_model(config)
    except Exception as exc:  # a ConfigError or a bad rule name: one line, exit 2
        print(f"cutoff: error: {exc}", file=sys.stderr)
        return 2
    print(f"protocol {a.protocol} (rules: {', '.join(config.rules)}), replication.factor="
          f"{a.replication_factor}, acks={a.acks}, min.insync.replicas={a.min_insync_replicas}, "
          f"{a.crash_model} crashes; leader epochs <= {a.max_leader_epoch}, crashes <= "
          f"{a.max_crashes}, any number of records")
    started = time.monotonic()
    lemma = check_projection(config)
    took = time.monotonic() - started
    print(f"1. projection lemma on every reachable step with {a.lemma_records} record(s) "
          f"({lemma.states:,} states, {lemma.steps:,} steps, {took:.1f} s): "
          + ("holds" if lemma.holds else "FAILS on " + ", ".join(
              f"{n} x {act}" for act, n in sorted(lemma.failures.items()))))
    started = time.monotonic()
    image = check_abstract(config)
    took = time.monotonic() - started
    print(f"2. no-acked-loss on the widened one-record image ({image.states:,} states, "
          f"{took:.1f} s): " + ("HOLDS" if image.holds else "VIOLATED"))
    if not image.holds:
        for act, _ in image.trace[1:]:
            print(f"   {act}")
        if replays(config, image.trace):
            print("=> a real loss with one record: the trace is one of the one-record model's")
            return 1
        print("=> the image loses the record, on a trace the one-record model does not take: "
              "nothing decided")
        return 3
    if not lemma.holds:
        print("=> the projection lemma fails, so the image says nothing about more records: "
              "nothing decided")
        return 3
    print(f"=> no-acked-loss holds for every number of records within these bounds, given the "
          f"projection lemma for every number (checked above for {a.lemma_records}; the "
          f"argument for more is by hand, docs/symbolic.md)")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
