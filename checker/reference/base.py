"""``ReplicationModel``: the transition system of one Kafka partition.

The model is a state machine in the stateright style: ``init_states()`` gives the initial states
and ``successors(state)`` gives every enabled ``(Action, next_state)`` pair, in a deterministic
order. Each action is a method decorated with ``@action`` that yields its successors; a protocol
variant subclasses the closest earlier variant and overrides either a whole action or one of the
small *hooks* (``fetch_fenced``, ``truncate_on_become_follower``, ``truncation_offset``, ...) that
differ between Kafka versions.

The rules, and where they come from in Kafka (see ``docs/model.md`` for the prose):

* The leader appends PRODUCE records tagged with its leader epoch
  (``Partition.appendRecordsToLeader``); with ``acks=all`` it refuses the write when its ISR is
  smaller than ``min.insync.replicas`` (NOT_ENOUGH_REPLICAS) and parks the request in the produce
  purgatory until the HW passes the record (``DelayedProduce``); if by then the ISR is below the
  minimum the producer gets NOT_ENOUGH_REPLICAS_AFTER_APPEND and the record stays in the log
  (``Partition.checkEnoughReplicasReachOffset``).
* A fetch is two steps, as in the HW/LEO walkthrough: the leader handles the request (records the
  follower's fetch offset as its remote LEO and sets ``HW = max(HW, min LEO over the ISR)``:
  ``Partition.updateFollowerFetchState`` / ``maybeIncrementLeaderHW``), then the follower handles
  the response (appends, ``HW = min(own LEO, leader HW)``: ``ReplicaFetcherThread``).
* The leader shrinks the ISR by a lagging follower and expands it by one whose LEO reached the HW
  (``maybeShrinkIsr`` / ``maybeExpandIsr``); the write to the controller is a compare-and-set on
  the leader epoch (the ZooKeeper ``zkVersion`` / ``AlterPartition`` partition epoch), so a stale
  leader's write fails.
* The controller elects on a detected broker failure (a live ISR member, else with
  ``unclean.leader.election.enable`` any live replica, else no leader), and may also move
  leadership with no failure (preferred-replica election, controlled shutdown, a zombie after a
  session expiry). In ZooKeeper-mode Kafka (``ReplicaStateMachine.removeReplicasFromIsr``) every
  controller-side change bumps the leader epoch, and so it does here. Decisions reach brokers as
  LeaderAndIsr requests delivered later, in any order, or never; a broker ignores one whose epoch
  is not newer than its own (``ReplicaManager.becomeLeaderOrFollower``).
* Crash and restart: a crash loses the broker's memory (and, with power-loss, unflushed records);
  the controller learns of it only in a later, separate step. A restarted broker recovers its log,
  keeps its checkpointed HW, and waits for the LeaderAndIsr the controller sends it on startup.
"""

from __future__ import annotations

from typing import Callable, ClassVar, Iterator

from model.actions import Action
from model.config import ModelConfig
from model.constants import NO_LEADER, UNDEFINED_EPOCH
from checker.reference.log import truncate_to
from checker.reference.symmetry import broker_permutations, canonical_plain
from model.state import ClusterState, PartitionState, ReplicaState, to_plain

Successor = tuple  # (Action, ClusterState)


def action(method: Callable) -> Callable:
    """Mark a method as an action generator: ``method(self, state)`` yields ``(Action, state)``."""
    method._kmc_action = True  # type: ignore[attr-defined]
    return method


def _put(items: tuple, index: int, value) -> tuple:
    return items[:index] + (value,) + items[index + 1 :]


def _without(items: tuple, value) -> tuple:
    return tuple(x for x in items if x != value)


class ReplicationModel:
    """The base transition system; concrete protocol variants subclass it.

    Class attributes a variant sets:
        name: the ``--protocol`` name (a preset of ``model/rules.py``) it is the oracle of.
    """

    name: ClassVar[str] = ""
    _action_methods: ClassVar[tuple] = ()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        # Collect the action generators once per class, base-class order first (an override keeps
        # its base's position; setting an action to None removes it), as hypothesis does for rules.
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            for attr, value in vars(klass).items():
                if getattr(value, "_kmc_action", False) and attr not in names:
                    names.append(attr)
        cls._action_methods = tuple(n for n in names if getattr(cls, n, None) is not None)

    def __init__(self, config: ModelConfig) -> None:
        self.config = config
        self.n = config.replication_factor
        self.brokers = tuple(range(self.n))
        self.bounds = config.bounds
        self.acks = config.acks
        self.min_isr = config.min_insync_replicas
        self.unclean = config.unclean_leader_election_enable
        self.power_loss = config.crash_model == "power-loss"
        self.reset_remote_on_every_epoch = "reset-followers-on-epoch" in config.rules
        self.expand_isr_on_fetch = "isr-expansion-as-own-step" not in config.rules
        self.timed_shrink = "replica-lag-time" in config.rules
        self.timed_hw = "hw-waits-for-caught-up-replica" in config.rules
        self._unknown = (-1,) * self.n
        self._generators = tuple(getattr(self, n) for n in self._action_methods)
        perms = broker_permutations(self.n) if config.symmetry else ()
        self._perms = perms if len(perms) > 1 else ()

    # ------------------------------------------------------------------ the Model protocol

    def init_states(self) -> list[ClusterState]:
        """Broker 0 leads in epoch 0 with every replica in the ISR and every log empty: the state
        right after topic creation, once every broker has applied the first LeaderAndIsr."""
        everyone = self.brokers
        remote = tuple(-1 if b == 0 else 0 for b in everyone)  # the seed starts remote LEO at 0
        replicas = tuple(
            ReplicaState(
                alive=True,
                log=(),
                high_watermark=0,
                leader_epoch=0,
                leader=0,
                isr=everyone if b == 0 else (),
                remote_log_end_offsets=remote if b == 0 else self._unknown,
                truncating=False,
                fetch_response=(),
                flushed_offset=0,
            )
            for b in everyone
        )
        controller = PartitionState(leader=0, leader_epoch=0, isr=everyone, live_brokers=everyone)
        return [ClusterState(replicas, controller, (), (), (), (), 0, 0, 0)]

    def successors(self, state: ClusterState) -> list[Successor]:
        """Every enabled action and the state it leads to, in a deterministic order."""
        out: list[Successor] = []
        for generate in self._generators:
            out.extend(generate(state))
        return out

    def canonical(self, state: ClusterState) -> tuple:
        """The plain-tuple form fingerprints are computed on: ``to_plain``, or with symmetry
        reduction the least form over renamings of brokers (``checker.reference.symmetry``)."""
        if self._perms:
            return canonical_plain(state, self._perms)
        return to_plain(state)

    def next_state(self, state: ClusterState, act: Action) -> ClusterState | None:
        """The state ``act`` leads to from ``state``, or None if it is not enabled there."""
        for candidate, nxt in self.successors(state):
            if candidate == act:
                return nxt
        return None

    # ------------------------------------------------------------------ hooks for variants

    fetch_fenced: ClassVar[bool] = False
    """KIP-320: fetches and OffsetsForLeaderEpoch carry the follower's leader epoch and the leader
    rejects them unless it is in that same epoch (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH)."""

    truncate_on_every_epoch: ClassVar[bool] = False
    """Restart truncation on every new epoch, not only on a new leader (``Partition.makeFollower``
    since 2.1: "we must restart the fetchers when the leader epoch changed")."""

    reset_remote_on_every_epoch: bool = False
    """Forget followers' remote LEOs on every new epoch, so the HW only advances on fetches made in
    the leader's current epoch: kmc 0.1's rule, stricter than Kafka's (which forgets them only
    when a broker is newly leader, ``Replica.resetReplicaState``). Set from the configuration's
    ``reset-followers-on-epoch`` rule."""

    def truncate_on_become_follower(self, replica: ReplicaState) -> ReplicaState:
        """What a broker does to its log when it becomes follower of a new leader."""
        raise NotImplementedError

    def truncation_offset(self, follower: ReplicaState, leader: ReplicaState) -> int:
        """The offset a truncating follower truncates to, from the leader's OffsetsForLeaderEpoch
        answer (KIP-101 and later)."""
        raise NotImplementedError

    def is_caught_up_for_isr(self, leader: ReplicaState, follower_leo: int) -> bool:
        """``Partition.isFollowerInSync``: may this follower rejoin the ISR?"""
        return follower_leo >= leader.high_watermark

    # ------------------------------------------------------------------ shared transitions

    def _finish(self, s: ClusterState) -> ClusterState:
        """Bookkeeping after a step that can change a leader's HW or a broker's epoch: drop
        LeaderAndIsr requests their broker would now ignore, and extend the consumer-visible
        history if a true leader's HW grew. (Only the actions that can change either call it: a
        broker's epoch changes only in ``BecomeLeaderOrFollower``, and new requests always carry
        an epoch newer than their target's.)"""
        reps = s.replicas
        if s.leader_and_isr:
            live = tuple(q for q in s.leader_and_isr if q[1] > reps[q[0]].leader_epoch)
            if len(live) != len(s.leader_and_isr):
                s = s._replace(leader_and_isr=live)
        leader = s.true_leader()
        if leader != NO_LEADER:
            r = reps[leader]
            visible = s.consumer_visible
            if r.high_watermark > len(visible):
                prefix = tuple(rec[0] for rec in r.log[: r.high_watermark])
                if prefix[: len(visible)] == visible:
                    s = s._replace(consumer_visible=prefix)
        return s

    def _send_leader_and_isr(self, s: ClusterState, c: PartitionState, targets) -> tuple:
        """Queue LeaderAndIsr(c) to the live brokers among ``targets`` (a request to a dead
        broker is lost with its connection; the broker gets fresh state when it restarts)."""
        reqs = set(s.leader_and_isr)
        for b in targets:
            if s.replicas[b].alive:
                reqs.add((b, c.leader_epoch, c.leader, c.isr))
        return tuple(sorted(reqs))

    def _maybe_increment_leader_hw(self, s: ClusterState, leader: int) -> ClusterState:
        """``Partition.maybeIncrementLeaderHW``: HW = max(HW, min LEO over the ISR and, with the
        timed rule ``hw-waits-for-caught-up-replica``, over the caught-up followers outside it:
        heard from in this leadership, running, following this leader in its epoch; the
        kernel's ``waits_for_caught_up``), then complete the delayed produce requests the new HW
        satisfies."""
        r = s.replicas[leader]
        new_hw = len(r.log)
        remote = r.remote_log_end_offsets
        for b in self.brokers:
            if b == leader or remote[b] >= new_hw:
                continue
            if b in r.isr or (self.timed_hw and remote[b] >= 0 and s.replicas[b].alive
                              and s.replicas[b].leader == leader
                              and s.replicas[b].leader_epoch == r.leader_epoch):
                new_hw = remote[b]
        if new_hw <= r.high_watermark:
            return s
        r = r._replace(high_watermark=new_hw)
        s = s._replace(replicas=_put(s.replicas, leader, r))
        if s.pending_acks:
            s = self._complete_delayed_produce(s, leader)
        return s

    def _complete_delayed_produce(self, s: ClusterState, leader: int) -> ClusterState:
        """``DelayedProduce.tryComplete``: an acks=all request whose record is below the HW is
        answered; success only if the ISR still has ``min.insync.replicas`` members."""
        r = s.replicas[leader]
        keep, acked = [], list(s.acked)
        enough = len(r.isr) >= self.min_isr
        for entry in s.pending_acks:
            owner, record_id, offset = entry
            if owner == leader and offset < r.high_watermark:
                if enough:
                    acked.append((record_id, offset))
                # else NOT_ENOUGH_REPLICAS_AFTER_APPEND: the producer sees an error, the record stays
            else:
                keep.append(entry)
        return s._replace(pending_acks=tuple(keep), acked=tuple(sorted(acked)))

    def _drop_pending_acks(self, s: ClusterState, broker: int) -> tuple:
        return tuple(p for p in s.pending_acks if p[0] != broker)

    def _trim_flushed(self, r: ReplicaState) -> ReplicaState:
        if self.power_loss and r.flushed_offset > len(r.log):
            return r._replace(flushed_offset=len(r.log))
        return r

    # ------------------------------------------------------------------ actions

    @action
    def produce_record(self, s: ClusterState) -> Iterator[Successor]:
        """ProduceRecord(leader): the producer's PRODUCE request reaches a broker that believes it
        leads (a zombie leader accepts writes too)."""
        if s.records_written >= self.bounds.max_records:
            return
        for b in self.brokers:
            r = s.replicas[b]
            if not (r.alive and r.leader == b):
                continue
            if self.acks == "all" and len(r.isr) < self.min_isr:
                continue  # NOT_ENOUGH_REPLICAS: refused before the append, nothing changes
            record_id = s.records_written + 1
            offset = len(r.log)
            r2 = r._replace(log=r.log + ((record_id, r.leader_epoch),))
            nxt = s._replace(replicas=_put(s.replicas, b, r2), records_written=record_id)
            if self.acks == "1":
                nxt = nxt._replace(acked=tuple(sorted(s.acked + ((record_id, offset),))))
            elif self.acks == "all":
                nxt = nxt._replace(pending_acks=tuple(sorted(s.pending_acks + ((b, record_id, offset),))))
            # appendRecordsToLeader ends with maybeIncrementLeaderHW (an ISR of one commits at once)
            yield Action("ProduceRecord", (b,)), self._finish(self._maybe_increment_leader_hw(nxt, b))

    @action
    def leader_handle_fetch(self, s: ClusterState) -> Iterator[Successor]:
        """LeaderHandleFetch(leader, follower): the leader reads its log from the follower's fetch
        offset (its LEO), records that offset as the follower's remote LEO, adds the follower to
        the ISR if this fetch shows it in sync (``Partition.maybeExpandIsr``; not under kmc 0.1's
        ``isr-expansion-as-own-step``), maybe advances its HW, and sends the records and its HW."""
        reps = s.replicas
        for f in self.brokers:
            fr = reps[f]
            lead = fr.leader
            if not fr.alive or lead < 0 or lead == f or fr.truncating or fr.fetch_response:
                continue
            lr = reps[lead]
            if not (lr.alive and lr.leader == lead):
                continue  # NOT_LEADER_FOR_PARTITION
            if self.fetch_fenced and fr.leader_epoch != lr.leader_epoch:
                continue  # KIP-320: FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH
            offset = len(fr.log)
            leader_leo = len(lr.log)
            if offset > leader_leo:  # OFFSET_OUT_OF_RANGE: nothing recorded on the leader
                response = (lead, fr.leader_epoch, offset, (), lr.high_watermark, leader_leo)
                nxt = s
            else:
                records = lr.log[offset:]
                expand = (
                    self.expand_isr_on_fetch and f not in lr.isr
                    and self._isr_change_allowed(s, lead, lr) and self.is_caught_up_for_isr(lr, offset)
                )
                if (
                    lr.remote_log_end_offsets[f] == offset
                    and not records
                    and min(offset, lr.high_watermark) == fr.high_watermark
                    and not expand
                ):
                    continue  # a fetch round that would change nothing (long poll): pruned
                lr2 = lr._replace(remote_log_end_offsets=_put(lr.remote_log_end_offsets, f, offset))
                nxt = s
                if expand:
                    isr = tuple(sorted(lr.isr + (f,)))
                    lr2 = lr2._replace(isr=isr)
                    nxt = nxt._replace(controller=nxt.controller._replace(isr=isr))
                nxt = self._maybe_increment_leader_hw(nxt._replace(replicas=_put(reps, lead, lr2)), lead)
                hw = nxt.replicas[lead].high_watermark
                response = (lead, fr.leader_epoch, offset, records, hw, leader_leo)
            fr2 = fr._replace(fetch_response=response)
            yield Action("LeaderHandleFetch", (lead, f)), self._finish(
                nxt._replace(replicas=_put(nxt.replicas, f, fr2))
            )

    @action
    def follower_handle_fetch_response(self, s: ClusterState) -> Iterator[Successor]:
        """FollowerHandleFetchResponse(follower): append the records, set HW = min(LEO, leader
        HW); a response to a fetch made under another leader, epoch or log end is dropped."""
        for f in self.brokers:
            fr = s.replicas[f]
            resp = fr.fetch_response
            if not (fr.alive and resp):
                continue
            lead, epoch, offset, records, leader_hw, leader_leo = resp
            if fr.leader != lead or fr.leader_epoch != epoch or len(fr.log) != offset or fr.truncating:
                fr2 = fr._replace(fetch_response=())
            elif offset > leader_leo:
                # ReplicaFetcherThread.handleOffsetOutOfRange: the leader's log is shorter, truncate to it
                log = truncate_to(fr.log, leader_leo)
                fr2 = self._trim_flushed(
                    fr._replace(
                        log=log, high_watermark=min(fr.high_watermark, len(log)), fetch_response=()
                    )
                )
            else:
                log = fr.log + records
                fr2 = fr._replace(log=log, high_watermark=min(len(log), leader_hw), fetch_response=())
            yield Action("FollowerHandleFetchResponse", (f,)), s._replace(
                replicas=_put(s.replicas, f, fr2)
            )

    @action
    def follower_truncate(self, s: ClusterState) -> Iterator[Successor]:
        """FollowerTruncate(follower): ask the leader OffsetsForLeaderEpoch and truncate to the
        answer (KIP-101 and later). Request and response are one step here."""
        reps = s.replicas
        for f in self.brokers:
            fr = reps[f]
            if not (fr.alive and fr.truncating) or fr.leader < 0:
                continue
            lr = reps[fr.leader]
            if not (lr.alive and lr.leader == fr.leader):
                continue  # NOT_LEADER_FOR_PARTITION: retry later
            if self.fetch_fenced and lr.leader_epoch != fr.leader_epoch:
                continue  # KIP-320: only against a leader that has taken up the same epoch
            target = self.truncation_offset(fr, lr)
            log = truncate_to(fr.log, target)
            fr2 = self._trim_flushed(
                fr._replace(log=log, high_watermark=min(fr.high_watermark, len(log)), truncating=False)
            )
            yield Action("FollowerTruncate", (f,)), s._replace(replicas=_put(reps, f, fr2))

    def _isr_change_allowed(self, s: ClusterState, leader: int, r: ReplicaState) -> bool:
        # compare-and-set against the controller: fails for a leader with a stale epoch
        c = s.controller
        return c.leader == leader and c.leader_epoch == r.leader_epoch

    @action
    def leader_shrink_isr(self, s: ClusterState) -> Iterator[Successor]:
        """LeaderShrinkIsr(leader, follower): a follower whose remote LEO is behind the leader's
        LEO leaves the ISR, at any time; with the rule ``replica-lag-time`` only if it can have
        stayed behind for replica.lag.time.max.ms: it is down or does not follow this leader in
        its epoch (docs/model.md, "Time")."""
        for b in self.brokers:
            r = s.replicas[b]
            if not (r.alive and r.leader == b and len(r.isr) > 1):
                continue
            if not self._isr_change_allowed(s, b, r):
                continue
            for f in r.isr:
                if f == b or r.remote_log_end_offsets[f] >= len(r.log):
                    continue
                rf = s.replicas[f]
                if self.timed_shrink and rf.alive and rf.leader == b \
                        and rf.leader_epoch == r.leader_epoch:
                    continue  # it fetches up to the LEO long before the lag time
                isr = _without(r.isr, f)
                nxt = s._replace(
                    replicas=_put(s.replicas, b, r._replace(isr=isr)),
                    controller=s.controller._replace(isr=isr),
                )
                yield Action("LeaderShrinkIsr", (b, f)), self._finish(
                    self._maybe_increment_leader_hw(nxt, b)
                )

    @action
    def leader_expand_isr(self, s: ClusterState) -> Iterator[Successor]:
        """LeaderExpandIsr(leader, follower): a follower whose remote LEO reached the HW rejoins, in
        a step of its own (kmc 0.1's ``isr-expansion-as-own-step``; Kafka expands inside the fetch)."""
        if self.expand_isr_on_fetch:
            return
        for b in self.brokers:
            r = s.replicas[b]
            if not (r.alive and r.leader == b) or len(r.isr) == self.n:
                continue
            if not self._isr_change_allowed(s, b, r):
                continue
            for f in self.brokers:
                leo = r.remote_log_end_offsets[f]
                if f in r.isr or leo < 0 or not self.is_caught_up_for_isr(r, leo):
                    continue
                isr = tuple(sorted(r.isr + (f,)))
                yield Action("LeaderExpandIsr", (b, f)), s._replace(
                    replicas=_put(s.replicas, b, r._replace(isr=isr)),
                    controller=s.controller._replace(isr=isr),
                )

    @action
    def become_leader_or_follower(self, s: ClusterState) -> Iterator[Successor]:
        """BecomeLeaderOrFollower(broker, leader_epoch): a LeaderAndIsr request is applied."""
        for req in s.leader_and_isr:
            b, epoch, leader, isr = req
            r = s.replicas[b]
            if not r.alive or epoch <= r.leader_epoch:
                continue
            rest = tuple(q for q in s.leader_and_isr if q != req)
            base = s._replace(leader_and_isr=rest)
            if leader == b:
                nxt = self._make_leader(base, b, epoch, isr)
            else:
                nxt = self._make_follower(base, b, epoch, leader)
            yield Action("BecomeLeaderOrFollower", (b, epoch)), self._finish(nxt)

    def _make_leader(self, s: ClusterState, b: int, epoch: int, isr: tuple) -> ClusterState:
        """``Partition.makeLeader``: take the epoch and the ISR; a new leader forgets its
        followers' LEOs (``resetReplicaState``) and tries to advance its HW at once."""
        r = s.replicas[b]
        was_leader = r.leader == b
        remote = r.remote_log_end_offsets
        if not was_leader or self.reset_remote_on_every_epoch:
            remote = self._unknown
        else:  # a re-elected leader keeps its ISR members' LEOs only (see the kernel's make_leader)
            remote = tuple(leo if f in isr else -1 for f, leo in enumerate(remote))
        r2 = r._replace(
            leader_epoch=epoch, leader=b, isr=isr, remote_log_end_offsets=remote,
            truncating=False, fetch_response=(),
        )
        return self._maybe_increment_leader_hw(s._replace(replicas=_put(s.replicas, b, r2)), b)

    def _make_follower(self, s: ClusterState, b: int, epoch: int, leader: int) -> ClusterState:
        """``Partition.makeFollower``: follow ``leader``; a leader stepping down fails its parked
        produce requests (NOT_LEADER_OR_FOLLOWER); truncation depends on the protocol."""
        r = s.replicas[b]
        new_leader = r.leader != leader
        r2 = r._replace(
            leader_epoch=epoch, leader=leader, isr=(), remote_log_end_offsets=self._unknown,
            fetch_response=(),
        )
        if leader == NO_LEADER:
            r2 = r2._replace(truncating=False)
        elif new_leader or self.truncate_on_every_epoch:
            r2 = self._trim_flushed(self.truncate_on_become_follower(r2))
        pending = self._drop_pending_acks(s, b) if s.pending_acks else s.pending_acks
        return s._replace(replicas=_put(s.replicas, b, r2), pending_acks=pending)

    def _epoch_available(self, c: PartitionState) -> bool:
        return c.leader_epoch < self.bounds.max_leader_epoch

    @action
    def controller_elect_leader(self, s: ClusterState) -> Iterator[Successor]:
        """ControllerElectLeader(new_leader): leadership moves to another live ISR member with no
        failure (preferred-replica election, controlled shutdown, or a zombie leader whose
        session expired): the old leader keeps running and learns of it only later."""
        c = s.controller
        if c.leader == NO_LEADER or not self._epoch_available(c):
            return
        for n in c.isr:
            if n == c.leader or n not in c.live_brokers:
                continue
            c2 = c._replace(leader=n, leader_epoch=c.leader_epoch + 1)
            yield Action("ControllerElectLeader", (n,)), s._replace(
                controller=c2, leader_and_isr=self._send_leader_and_isr(s, c2, c.live_brokers)
            )

    @action
    def controller_handle_broker_failure(self, s: ClusterState) -> Iterator[Successor]:
        """ControllerHandleBrokerFailure(broker, new_leader): the controller notices a dead broker,
        removes it from the ISR (unless it is the last member) and, if it led, elects a live ISR
        member; else, with unclean.leader.election.enable, any live replica; else no leader."""
        c = s.controller
        for b in c.live_brokers:
            if s.replicas[b].alive:
                continue
            live = _without(c.live_brokers, b)
            if b == c.leader:
                if not self._epoch_available(c):
                    continue
                isr = _without(c.isr, b) if len(c.isr) > 1 else c.isr
                candidates = [n for n in isr if n in live]
                unclean = False
                if not candidates and self.unclean and live:
                    candidates, unclean = list(live), True
                if not candidates:
                    candidates = [NO_LEADER]  # offline; the ISR keeps its last member
                for n in candidates:
                    c2 = PartitionState(n, c.leader_epoch + 1, (n,) if unclean else isr, live)
                    yield Action("ControllerHandleBrokerFailure", (b, n)), s._replace(
                        controller=c2, leader_and_isr=self._send_leader_and_isr(s, c2, live)
                    )
            elif b in c.isr and len(c.isr) > 1:
                if not self._epoch_available(c):
                    continue
                c2 = PartitionState(c.leader, c.leader_epoch + 1, _without(c.isr, b), live)
                yield Action("ControllerHandleBrokerFailure", (b, c.leader)), s._replace(
                    controller=c2, leader_and_isr=self._send_leader_and_isr(s, c2, live)
                )
            else:
                yield Action("ControllerHandleBrokerFailure", (b, c.leader)), s._replace(
                    controller=c._replace(live_brokers=live)
                )

    @action
    def broker_crash(self, s: ClusterState) -> Iterator[Successor]:
        """BrokerCrash(broker): the process stops. Its memory is gone (role, epoch, followers'
        LEOs, parked requests); with power-loss, so are the records not yet flushed."""
        if s.crashes >= self.bounds.max_crashes:
            return
        for b in self.brokers:
            r = s.replicas[b]
            if not r.alive:
                continue
            log, losses = r.log, s.unflushed_losses
            if self.power_loss and r.flushed_offset < len(log):
                if losses >= self.bounds.max_unflushed_losses:
                    continue
                log, losses = log[: r.flushed_offset], losses + 1
            r2 = ReplicaState(
                alive=False, log=log, high_watermark=min(r.high_watermark, len(log)),
                leader_epoch=UNDEFINED_EPOCH, leader=NO_LEADER, isr=(),
                remote_log_end_offsets=self._unknown, truncating=False, fetch_response=(),
                flushed_offset=r.flushed_offset if self.power_loss else 0,
            )
            yield Action("BrokerCrash", (b,)), s._replace(
                replicas=_put(s.replicas, b, r2),
                leader_and_isr=tuple(q for q in s.leader_and_isr if q[0] != b),
                pending_acks=self._drop_pending_acks(s, b),
                crashes=s.crashes + 1,
                unflushed_losses=losses,
            )

    @action
    def broker_restart(self, s: ClusterState) -> Iterator[Successor]:
        """BrokerRestart(broker): the broker recovers its log (keeping its checkpointed HW) and
        registers; the controller sends it the partition's state (``onBrokerStartup``), electing
        it first if the partition had no leader and it may lead."""
        c = s.controller
        for b in self.brokers:
            r = s.replicas[b]
            if r.alive:
                continue
            r2 = r._replace(alive=True, flushed_offset=len(r.log) if self.power_loss else 0)
            nxt = s._replace(replicas=_put(s.replicas, b, r2))
            c2, targets = c, (b,)
            if b not in c.live_brokers:
                live = tuple(sorted(c.live_brokers + (b,)))
                c2 = c._replace(live_brokers=live)
                if c.leader == NO_LEADER and self._epoch_available(c):
                    if b in c.isr:
                        c2, targets = PartitionState(b, c.leader_epoch + 1, c.isr, live), live
                    elif self.unclean:
                        c2, targets = PartitionState(b, c.leader_epoch + 1, (b,), live), live
            yield Action("BrokerRestart", (b,)), nxt._replace(
                controller=c2, leader_and_isr=self._send_leader_and_isr(nxt, c2, targets)
            )

    @action
    def flush_log(self, s: ClusterState) -> Iterator[Successor]:
        """FlushLog(broker): the log reaches the disk (power-loss crash model only). Kafka leaves
        this to the OS by default (``log.flush.interval.messages`` is unlimited), so it can
        happen at any time."""
        if not self.power_loss:
            return
        for b in self.brokers:
            r = s.replicas[b]
            if r.alive and r.flushed_offset < len(r.log):
                yield Action("FlushLog", (b,)), s._replace(
                    replicas=_put(s.replicas, b, r._replace(flushed_offset=len(r.log)))
                )

