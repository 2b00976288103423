"""The transition relation: one encoded action per ``ACTION_PARAMS`` entry.

Each ``_enc_<Action>`` function mirrors the method of ``checker.reference.base.ReplicationModel`` (and
the variant hooks) with the same name in Kafka words, for *concrete* action arguments: it returns
a list of ``(guard, next_state)`` cases with pairwise exclusive guards (a case split on a value the
Python reads from the state, such as which broker a follower follows). ``Encoder.instances()``
lists every ``Action`` the configuration allows, built from ``ACTION_PARAMS`` (the single source
of truth for names and parameters), and ``Encoder.step(pre, post, act)`` is the relation

    OR over actions a, cases (g, nxt):  act == index(a)  AND  g  AND  post == finish(nxt)

where ``finish`` is ``ReplicationModel._finish`` (drop LeaderAndIsr requests their broker would
ignore, extend the consumer-visible history).
"""

from __future__ import annotations

import math
from dataclasses import replace
from itertools import permutations

import z3

from checker.symbolic import numbers as num
from checker.symbolic.state import (
    Dims,
    SReplica,
    SState,
    count,
    eq,
    ite,
    leaves,
    rebuild,
    sel,
    zmax,
    zmin,
)
from model.actions import ACTION_PARAMS, Action
from model.constants import ALTER_ACCEPTED, ALTER_REFUSED, ALTER_SENT, ALTER_STUCK
from model.errors import ConfigError

GIVEN_UP = -1
"""A record's sequence once the producer gave it up (``ProducerBumpEpoch``; the kernel's
``GIVEN_UP``, model/kernel/actions/producer.py): never sent again."""

NO_LEADER = -1
UNDEFINED = -1
UNORDERED = "unordered-leader-moves"
IN_ORDER = "leader-and-isr-in-order"


class UnsupportedVariant(Exception):
    """The protocol variant has no symbolic encoding."""


class Encoder:
    """The symbolic transition relation of ``model`` (a ``ReplicationModel``)."""

    def __init__(self, model, *, bounded: bool = True, unbounded: frozenset = frozenset()) -> None:
        self.model = model  # the oracle's model, or scope.KernelReplayed (the operator's moves)
        self.config = model.config
        self.d = Dims.of(model.config)
        if "crashes" in unbounded:  # kmc prove --unbounded crashes (issue 29y; unbounded.py)
            self.d = replace(self.d, unbounded_crashes=True)
        big = {k: v for k, v in model.config.bounds.as_dict().items() if v > num.MAX_BOUND}
        if big:
            raise ConfigError(f"the symbolic engine handles bounds up to {num.MAX_BOUND} (8-bit "
                              f"arithmetic); got {', '.join(f'{k}={v}' for k, v in big.items())}")
        self.n = self.d.n
        self.bounded = bounded
        self.protocol = model.name
        if self.protocol not in ("hw-truncation", "kip-101", "kip-279", "kip-320"):
            raise UnsupportedVariant(f"protocol {self.protocol!r} has no symbolic encoding")
        self.power_loss = model.power_loss
        crash_model = getattr(getattr(model, "config", None), "crash_model", "process")
        if crash_model not in ("process", "power-loss", "disk-loss"):  # scope.CRASH_MODELS
            raise ConfigError(f"the symbolic engine has no encoding of --crash-model {crash_model}")
        # ``--crash-model disk-loss`` (issue 29aj): a crash may replace the broker's disk
        # (``lose_disk``); the oracle lacks it, so ``model`` is then ``scope.KernelReplayed``
        self.disk_loss = crash_model == "disk-loss"
        self.acks = model.acks
        self.min_isr = model.min_isr
        # KRaft (rule ``kraft``, 3.3+): the controller ignores unclean.leader.election.enable
        # until 3.9 (``kraft-unclean-election``, KAFKA-12670; the kernel's ``unclean_allowed``)
        self.kraft = "kraft" in model.config.rules
        self.unclean = model.unclean and (not self.kraft
                                          or "kraft-unclean-election" in model.config.rules)
        # KIP-320's four fixes (Kafka 2.1), each a switch read from the rules as the kernel reads
        # it (model/kernel/transitions.py, actions/leader.py), so a 2.1 rule set with one of them
        # taken away is encoded too (issue 29ah; the oracle has only the kip-320 preset):
        # ``fenced-fetch`` (Partition.localReplicaWithEpochOrException at 2.1.0),
        # ``truncate-on-epoch-change`` (Partition.makeFollower at 2.1.0, KAFKA-7164),
        # ``epoch-cache-on-election`` (Partition.makeLeader at 2.1.0, KAFKA-7415) and
        # ``isr-join-needs-epoch-start`` (Partition.maybeExpandIsr at 2.1.0, KAFKA-7128)
        self.fenced = "fenced-fetch" in model.config.rules
        self.truncate_every_epoch = "truncate-on-epoch-change" in model.config.rules
        self.cache_on_election = "epoch-cache-on-election" in model.config.rules
        self.isr_needs_epoch_start = "isr-join-needs-epoch-start" in model.config.rules
        self.reset_remote_every_epoch = model.reset_remote_on_every_epoch
        self.timed_shrink = model.timed_shrink
        self.timed_hw = "hw-waits-for-caught-up-replica" in model.config.rules  # (timed group)
        self.expand_isr_on_fetch = model.expand_isr_on_fetch
        oracle = getattr(model, "oracle", model)  # scope.KernelReplayed wraps the oracle's model
        self.has_truncate = getattr(type(oracle), "follower_truncate", None) is not None
        rules = set(model.config.rules)
        # Kafka's ordered elections (every release): without reassignments the assignment is
        # brokers 0..n-1 in that order (the kernel's initial ``assignment_rank`` is the broker's
        # index, model/kernel/spec.py), so "first in assignment order" is "lowest broker id".
        # ``unordered-leader-moves`` is kmc 0.1's over-approximation: any eligible broker wins and
        # ControllerElectLeader moves a healthy leader.
        self.ordered = UNORDERED not in rules
        # ``leader-and-isr-in-order`` (ZooKeeper 0.8-3.x): one request queue per broker
        # (KRaft: the metadata log, not a request queue; a lagging broker skips to the newest
        # record, so the kernel drops the rule under ``kraft``: ``become_leader_or_follower``)
        self.in_order = IN_ORDER in rules and not self.kraft
        if self.d.expiries:  # the kernel does not enforce the order under session expiries
            self.in_order = False  # (the queue an expired session drops is not tracked)
        # the operator's leader moves (issue 29): preferred-replica elections and reassignments,
        # each bounded; the oracle has neither, so ``model`` is then the oracle of the
        # configuration without them, for its switches, and ``scope.symbolic_model`` replays
        # traces in the kernel. Without reassignments the assignment order stays the kernel's
        # initial ``assignment_rank``, the broker index, which ``state.fresh`` makes constants.
        self.max_preferred = self.d.max_preferred  # (0 under unordered-leader-moves: Dims.of)
        self.max_reassign = self.d.max_reassign
        # broker-epoch (KIP-380, Kafka 2.2): a restart the controller has not noticed waits for
        # ControllerHandleBrokerFailure (``restart_waits_for_failure``, issue 29e)
        self.bounce_noticed = self.d.bounce_noticed  # (``Dims.of`` reads the rule)
        # KIP-497 (Kafka 2.7, rule alter-partition; issue 29i): the leader proposes ISR changes
        # to the controller (the state's AlterPartition fields) and counts the maximal ISR
        self.alter = self.d.alter
        # ZooKeeper controller failovers (``--max-controller-failovers``, issue 29ak): the
        # controller epoch, and with ``controller-epoch`` (every release since 0.8) a broker
        # refuses a LeaderAndIsr of an older controller than one it has obeyed
        # (``ReplicaManager.becomeLeaderOrFollower`` at 2.1.0: ``leaderAndIsrRequest.controllerEpoch
        # < controllerEpoch`` -> STALE_CONTROLLER_EPOCH)
        self.failovers = self.d.failovers
        self.stale_refused = "controller-epoch" in rules
        # with broker-epoch (KIP-380, 2.2) a broker that registered since the failover refuses
        # the zombie's requests (STALE_BROKER_EPOCH; the kernel's ``refuses_zombie``, issue 29bi)
        self.zombie_epoch = self.d.zombie_epoch
        if self.d.elr and not self.bounce_noticed:  # KIP-966 (issue 29l): see _restart_with_elr
            raise ConfigError("the symbolic engine encodes the ELR (eligible-leader-replicas) "
                              "with broker epochs (broker-epoch, KIP-380) only")
        # the producer's retries without idempotence (``--max-retries``, issue 29aq): the
        # kernel's ``producer_retry`` and ``may_send`` (model/kernel/actions/producer.py);
        # ``max.in.flight.requests.per.connection`` and, since 0.10, KAFKA-3197's one request
        # in flight per partition (rule ``in-flight-per-partition``)
        self.max_retries = self.d.retries
        self.max_in_flight = model.config.max_in_flight_requests_per_connection
        self.per_partition = "in-flight-per-partition" in rules
        # the idempotent producer (KIP-98) with retries (issue 29at): the leader's sequence check
        # (the kernel's ``send_record``, ``ProducerStateManager``/``ProducerAppendInfo`` at 2.1.0
        # and 2.5.0), read off the leader's log: the last 5 batches (1 before KAFKA-5494, 1.0:
        # ``producer-state-five-batches``) are duplicates; a log without the producer's batches
        # accepts any sequence since KIP-360 (2.5, ``unknown-producer-accepts-any-sequence``)
        self.idempotent = bool(self.max_retries) and bool(model.config.idempotent)
        self.window = 5 if "producer-state-five-batches" in rules else 1
        self.any_first = "unknown-producer-accepts-any-sequence" in rules
        # KIP-360's epoch bumps (``--max-producer-epoch-bumps``, issue 29at; the kernel's
        # ``producer_bump_epoch`` and ``check_sequence_by_epoch``): the producer epoch, each
        # record's sequence as last sent, and each batch's producer epoch (``Dims.bumps``)
        self.bumps = self.d.bumps
        self.may_bump = bool(self.bumps) and "idempotent-epoch-bump" in rules
        self.rewrites_in_flight = "epoch-bump-rewrites-in-flight" in rules  # KAFKA-14034
        self._instances = self._build_instances()

    # ------------------------------------------------------------------ action instances

    def _domain(self, param: str) -> range:
        if param == "new_leader":
            return range(-1, self.n)
        if param == "leader_epoch":
            return range(self.d.max_epoch + 1)
        if param == "ordering":  # ControllerReassignReplicas: the index of an ordering
            return range(math.factorial(self.n)) if self.max_reassign else range(0)
        if param == "record":  # ProducerRetry, ProducerBumpEpoch: a record id (issues 29aq, 29at)
            return range(1, self.d.records + 1) if self.max_retries or self.bumps else range(0)
        if param == "followers":  # LeaderShrinkIsrSet: a set of brokers as a mask (issue 29l)
            return range(1 << self.n) if self.d.shrink_set else range(0)
        if param == "offset":  # the consumer's actions: an offset in the log (issue 29be)
            return range(self.d.slots + 1) if self.d.consumer else range(0)
        return range(self.n)

    def _build_instances(self) -> list:
        out = []
        for name, params in ACTION_PARAMS.items():
            if not hasattr(self, f"_enc_{name}"):
                continue  # an action of the fault or KRaft model: no symbolic encoding (the
                # engine refuses the configurations that enable it, see reference_supports)
            combos = [()]
            for p in params:
                combos = [c + (v,) for c in combos for v in self._domain(p)]
            out += [Action(name, c) for c in combos]
        return out

    def instances(self) -> list:
        """Every action of the configuration, in ``ACTION_PARAMS`` order."""
        return self._instances

    def cases(self, s: SState, act: Action) -> list:
        enc = getattr(self, f"_enc_{act.name}")
        return enc(s, *act.args)

    def all_cases(self, pre: SState) -> list:
        """Every ``(action index, guard, next state)`` case, unsatisfiable guards left out."""
        out = []
        for i, act in enumerate(self._instances):
            for guard, nxt in self.cases(pre, act):
                if z3.is_false(z3.simplify(guard)):
                    continue
                out.append((i, guard, nxt))
        return out

    def step(self, pre: SState, post: SState, act_var, tag: str = "t", exact: bool = True) -> z3.BoolRef:
        """The transition relation with the action taken as the integer ``act_var``.

        The next state is built functionally: one Bool ``fire`` per case, and every field of the
        successor an if-then-else over the cases that change it (frame conditions come free).
        ``exact`` equates every slot of ``post`` (for fresh variables, as in BMC); otherwise only
        the meaningful parts (for comparing with an encoded explicit state)."""
        cases = self.all_cases(pre)
        fires = [z3.Bool(f"{tag}_fire{c}") for c in range(len(cases))]
        cons = [z3.Or(fires)] if fires else [z3.BoolVal(False)]
        for f, (i, guard, _) in zip(fires, cases):
            cons.append(z3.Implies(f, z3.And(guard, act_var == i)))
        base = leaves(pre)
        outs = [leaves(nxt) for _, _, nxt in cases]
        merged = []
        for k, default in enumerate(base):
            term = default
            for f, out in zip(reversed(fires), reversed(outs)):
                v = out[k]
                if not v.eq(default):
                    term = z3.If(f, v, term)
            merged.append(term)
        nxt = self.finish(rebuild(pre, merged))
        if exact:
            cons += [a == b for a, b in zip(leaves(post), leaves(nxt))]
        else:
            cons.append(eq(post, nxt))
        return z3.And(cons)

    def action_formula(self, pre: SState, post: SState, act: Action) -> z3.BoolRef:
        """``post`` is the state ``act`` leads to from ``pre``."""
        disj = [z3.And(g, eq(post, self.finish(nxt))) for g, nxt in self.cases(pre, act)]
        return z3.Or(disj) if disj else z3.BoolVal(False)

    # ------------------------------------------------------------------ shared pieces

    def is_true_leader(self, s: SState, l: int):
        r = s.reps[l]
        return z3.And(s.c_leader == l, r.alive, r.leader == l, r.lep == s.c_epoch)

    def finish(self, s: SState) -> SState:
        """``ReplicationModel._finish``."""
        lai = [[z3.And(s.lai[b][e], self.kept_request(s, b, e)) for e in range(len(s.lai[b]))]
               for b in range(self.n)]
        if self.failovers:  # the zombie's request b now ignores (the kernel's ``finish``)
            s = s.put_all([r.but(zreq=z3.And(r.zreq, z3.Not(z3.Or(
                self.stale_to(s, r), self.refuses_zombie(r), s.z_lep <= r.lep)))) for r in s.reps])
        cv_len, cv = s.cv_len, list(s.cv)
        for l in range(self.n):
            r = s.reps[l]
            new_len = zmin(r.hw, r.leo)
            matches = z3.And([z3.Implies(i < s.cv_len, z3.And(i < new_len, r.log_id[i] == s.cv[i]))
                              for i in range(self.d.slots)])
            grow = z3.And(self.is_true_leader(s, l), r.hw > s.cv_len, matches)
            cv_len = ite(grow, new_len, cv_len)
            cv = [ite(grow, r.log_id[i], cv[i]) for i in range(self.d.slots)]
        s = self.drop_superseded_changes(s.but(lai=lai, cv_len=cv_len, cv=cv))
        return self.record_reads(s) if self.d.reads else s  # (issue 29bf)

    def kept_request(self, s: SState, b: int, e: int):
        """Does broker ``b`` still take the LeaderAndIsr of leader epoch ``e`` in flight to it (the
        kernel's ``finish``)? One of a newer leader epoch than its own; with controller failovers
        also one of a newer controller (it teaches the broker that controller epoch), and not one
        of an older controller than it has obeyed (``controller-epoch``: STALE_CONTROLLER_EPOCH)."""
        newer_epoch = e > s.reps[b].lep
        if not self.failovers:
            return newer_epoch
        sender, seen = s.lai_cep[b][e], s.reps[b].cseen
        stale = z3.And(sender < seen) if self.stale_refused else z3.BoolVal(False)
        return z3.Or(sender > seen, z3.And(newer_epoch, z3.Not(stale)))

    def stale_to(self, s: SState, r: SReplica):
        """The zombie controller is older than the controller ``r`` has obeyed, and the rule
        ``controller-epoch`` refuses its requests (STALE_CONTROLLER_EPOCH)."""
        return z3.And(s.z_cep < r.cseen) if self.stale_refused else z3.BoolVal(False)

    def refuses_zombie(self, r: SReplica):
        """KIP-380 (rule ``broker-epoch``, issue 29bi): ``r`` registered since the failover, so
        the broker epoch the zombie holds for it is older than its own and it answers the
        zombie's LeaderAndIsr STALE_BROKER_EPOCH (``KafkaApis.handleLeaderAndIsrRequest`` /
        ``isBrokerEpochStale`` at 2.2.0; the kernel's ``refuses_zombie``)."""
        return r.zreg if self.zombie_epoch else z3.BoolVal(False)

    def registered(self, s: SState, nxt: SState, b: int) -> SState:
        """Broker ``b`` registers (a restart, a new session): with a zombie about it now holds a
        broker epoch the zombie never saw (the kernel's ``controller_register_broker``)."""
        if not self.zombie_epoch:
            return nxt
        return nxt.put(b, nxt.reps[b].but(zreg=z3.Or(nxt.reps[b].zreg, s.zomb)))

    def stopped(self, r: SReplica) -> SReplica:
        """A stopped broker has obeyed no controller yet and no zombie request is on its way to
        it (the kernel's ``stop_broker`` under ``--max-controller-failovers``, issue 29ak); its
        ``Partition`` object, with the epoch start offset it recorded, is gone."""
        if self.d.epoch_start:
            r = r.but(esta=num.val(-1))
        if not self.failovers:
            return r
        return r.but(cseen=num.val(0), zreq=z3.BoolVal(False), zreg=z3.BoolVal(False))

    def send_leader_and_isr(self, s: SState, c_epoch, c_leader, c_isr, targets) -> SState:
        """Queue LeaderAndIsr(epoch, leader, isr) to the alive brokers among ``targets``
        (``targets[b]`` a Bool). The request replaces whatever the (broker, epoch) slot held:
        the kernel's ``send_leader_and_isr``, which since issue 29am replaces too when a newer
        controller's resend makes a leader already in that epoch leader with another ISR (two
        ZooKeeper failovers; only the controller epoch of either is read, docs/model.md) and
        stops with ``SlotOverflow`` on any other collision, so an overwrite here never hides
        one the kernel refuses."""
        lai = [list(row) for row in s.lai]
        lai_leader = [list(row) for row in s.lai_leader]
        lai_isr = [[list(x) for x in row] for row in s.lai_isr]
        for b in range(self.n):
            for e in range(len(lai[b])):
                hit = z3.And(targets[b], s.reps[b].alive, c_epoch == e)
                lai[b][e] = z3.Or(lai[b][e], hit)
                lai_leader[b][e] = ite(hit, c_leader, lai_leader[b][e])
                lai_isr[b][e] = [ite(hit, c_isr[j], lai_isr[b][e][j]) for j in range(self.n)]
        s = s.but(lai=lai, lai_leader=lai_leader, lai_isr=lai_isr)
        if self.failovers:  # each request carries the active controller's epoch (issue 29ak)
            s = s.but(lai_cep=[[ite(z3.And(targets[b], s.reps[b].alive, c_epoch == e), s.cep,
                                    s.lai_cep[b][e]) for e in range(len(lai[b]))]
                               for b in range(self.n)])
        return self.mark_current(s, c_epoch, c_leader, targets)

    def maybe_increment_leader_hw(self, s: SState, l: int) -> SState:
        """``Partition.maybeIncrementLeaderHW`` then ``DelayedProduce.tryComplete``."""
        r = s.reps[l]
        isr = self.maximal_isr(r)
        new_hw = r.leo
        for j in range(self.n):
            if j != l:
                waits = isr[j]
                if self.timed_hw:  # the kernel's waits_for_caught_up (hw-waits-for-caught-up-replica)
                    rj = s.reps[j]
                    caught = [r.remote[j] >= 0, rj.alive, rj.leader == l, rj.lep == r.lep]
                    caught += self.not_shutting_down(rj)
                    if self.kraft and self.d.shrink_keeps:  # KAFKA-15021: isReplicaIsrEligible
                        caught += [self.may_lead(s, j), self.fetch_is_current(r, j)]
                    waits = z3.Or(waits, z3.And(caught))
                new_hw = ite(z3.And(waits, r.remote[j] < new_hw), r.remote[j], new_hw)
        grows = z3.And(new_hw > r.hw, self.hw_may_advance(r))
        s = s.put(l, r.but(hw=ite(grows, new_hw, r.hw)))
        enough = count(isr) >= self.min_isr
        pend, acked, acked_off = list(s.pend), list(s.acked), list(s.acked_off)
        for k in range(self.d.records):
            done = z3.And(grows, s.pend[k], s.pend_leader[k] == l, s.pend_off[k] < new_hw)
            pend[k] = z3.And(s.pend[k], z3.Not(done))
            ok = z3.And(done, enough)
            acked[k] = z3.Or(s.acked[k], ok)
            acked_off[k] = ite(ok, s.pend_off[k], s.acked_off[k])
        return s.but(pend=pend, acked=acked, acked_off=acked_off)

    def drop_pending_acks(self, s: SState, b: int, cond=True) -> SState:
        return s.but(pend=[z3.And(p, z3.Not(z3.And(cond, pl == b)))
                           for p, pl in zip(s.pend, s.pend_leader)])

    def trim_flushed(self, r: SReplica) -> SReplica:
        if not self.power_loss:
            return r
        return r.but(flushed=ite(r.flushed > r.leo, r.leo, r.flushed))

    def no_fetch(self, r: SReplica) -> SReplica:
        return r.but(fr=z3.BoolVal(False))

    def unknown(self) -> list:
        return [num.val(-1)] * self.n

    @staticmethod
    def truncate_to(leo, target):
        """The LEO after ``truncate_to(log, target)``."""
        return ite(target >= leo, leo, zmax(target, 0))

    # ------------------------------------------------------------------ epoch cache (checker.reference.log)

    def _last_epoch(self, eps, n):
        return ite(n > 0, sel(eps, n - 1), num.val(UNDEFINED))

    def _first_above(self, eps, n, requested):
        """(exists, offset): the first offset < n whose epoch is > requested."""
        found, off = z3.BoolVal(False), num.val(0)
        for i in range(len(eps) - 1, -1, -1):
            hit = z3.And(i < n, eps[i] > requested)
            found, off = z3.Or(found, hit), ite(hit, num.val(i), off)
        return found, off

    def end_offset_for_epoch(self, eps, n, requested, current):
        """``checker.reference.log.end_offset_for_epoch``: ``(epoch, end_offset)``."""
        last = self._last_epoch(eps, n)
        has_cur = current > last
        empty = z3.And(n == 0, z3.Not(has_cur))
        last_entry = ite(has_cur, current, last)
        rec_above, first_rec_above = self._first_above(eps, n, requested)
        cur_above = z3.And(has_cur, current > requested)
        sub_exists = z3.Or(rec_above, cur_above)
        sub_start = ite(rec_above, first_rec_above, n)
        # previous[-1].epoch: the current entry if it is <= requested, else the last record <= it
        prev_found, prev_epoch = z3.BoolVal(False), num.val(0)
        for i in range(len(eps)):
            hit = z3.And(i < n, eps[i] <= requested)
            prev_found, prev_epoch = z3.Or(prev_found, hit), ite(hit, eps[i], prev_epoch)
        cur_prev = z3.And(has_cur, current <= requested)
        prev_found = z3.Or(prev_found, cur_prev)
        prev_epoch = ite(cur_prev, current, prev_epoch)
        U = num.val(UNDEFINED)
        epoch = ite(z3.Or(requested == UNDEFINED, empty), U,
                    ite(last_entry == requested, requested,
                        ite(z3.Not(sub_exists), U, ite(z3.Not(prev_found), requested, prev_epoch))))
        offset = ite(z3.Or(requested == UNDEFINED, empty), U,
                     ite(last_entry == requested, n, ite(z3.Not(sub_exists), U, sub_start)))
        return epoch, offset

    def end_offset_for_epoch_v0_11(self, eps, n, requested, current):
        """``checker.reference.log.end_offset_for_epoch_v0_11``."""
        last = self._last_epoch(eps, n)
        has_cur = current > last
        empty = z3.And(n == 0, z3.Not(has_cur))
        last_entry = ite(has_cur, current, last)
        first_entry = ite(n > 0, eps[0] if eps else num.val(0), current)
        rec_above, first_rec_above = self._first_above(eps, n, requested)
        sub_exists = z3.Or(rec_above, z3.And(has_cur, current > requested))
        sub_start = ite(rec_above, first_rec_above, n)
        U = num.val(UNDEFINED)
        return ite(z3.Or(requested == UNDEFINED, empty), U,
                   ite(last_entry == requested, n,
                       ite(z3.Or(z3.Not(sub_exists), requested < first_entry), U, sub_start)))

    def truncation_offset(self, f: SReplica, l: SReplica):
        """The variant's ``truncation_offset(follower, leader)``."""
        # the leader's cache has its current epoch up front only since Kafka 2.1 (KAFKA-7415):
        # ``leader_cache_epoch`` in checker/reference/kip101.py
        cache_epoch = l.lep if self.cache_on_election else num.val(UNDEFINED)
        if self.protocol == "kip-101":
            answer = self.end_offset_for_epoch_v0_11(
                l.log_ep, l.leo, self._last_epoch(f.log_ep, f.leo), cache_epoch)
            return ite(answer == UNDEFINED, f.hw, zmin(answer, f.leo))
        # kip-279 / kip-320: the OffsetsForLeaderEpoch loop, unrolled len(log)+2 times
        m = f.leo
        done, result = z3.BoolVal(False), num.val(0)
        for k in range(self.d.slots + 2):
            active = z3.And(z3.Not(done), k < f.leo + 2)
            requested = self._last_epoch(f.log_ep, m)
            le, lend = self.end_offset_for_epoch(l.log_ep, l.leo, requested, cache_epoch)
            fe, fend = self.end_offset_for_epoch(f.log_ep, m, le, num.val(UNDEFINED))
            r1 = lend == UNDEFINED
            r2 = z3.And(z3.Not(r1), le == UNDEFINED)
            r3 = z3.And(z3.Not(r1), z3.Not(r2), fend == UNDEFINED)
            again = z3.And(z3.Not(r1), z3.Not(r2), z3.Not(r3), fe != le)
            value = ite(r1, zmin(f.hw, m), ite(z3.Or(r2, r3), zmin(lend, m), zmin(zmin(lend, fend), m)))
            result = ite(z3.And(active, z3.Not(again)), value, result)
            m = ite(z3.And(active, again), self.truncate_to(m, zmin(fend, m)), m)
            done = z3.Or(done, z3.And(active, z3.Not(again)))
        return ite(done, result, m)

    def truncate_on_become_follower(self, r: SReplica) -> SReplica:
        if self.protocol == "hw-truncation":
            return r.but(leo=self.truncate_to(r.leo, r.hw), truncating=z3.BoolVal(False))
        return r.but(truncating=r.leo > 0)

    def first_offset_of_epoch(self, r: SReplica, epoch):
        """``r``'s first record of ``epoch``, or its LEO if it has none (the kernel's
        ``first_offset_of_epoch``)."""
        off = r.leo
        for i in range(self.d.slots - 1, -1, -1):
            off = ite(z3.And(i < r.leo, r.log_ep[i] == epoch), num.val(i), off)
        return off

    def leader_epoch_start_offset(self, r: SReplica):
        """``Partition.leaderEpochStartOffsetOpt``: the LEO when ``r`` took up its epoch, which
        is its first record of the epoch (or its LEO while it has none) unless it restarted into
        its own epoch (Kafka 2.1, ``Dims.epoch_start``: ``esta``; the kernel's
        ``leader_epoch_start_offset``)."""
        derived = self.first_offset_of_epoch(r, r.lep)
        if not self.d.epoch_start:
            return derived
        return ite(r.esta >= 0, r.esta, derived)

    def is_caught_up_for_isr(self, r: SReplica, follower_leo):
        ok = follower_leo >= r.hw
        if self.isr_needs_epoch_start:
            ok = z3.And(ok, follower_leo >= self.leader_epoch_start_offset(r))
        return ok

    def count_up(self, counter):
        """A crash counter plus one; saturating (``num.saturating_inc``) when the crash bound is
        off (``kmc prove --unbounded crashes``, issue 29y), so it never wraps."""
        return num.saturating_inc(counter) if self.d.unbounded_crashes else counter + 1

    def epoch_available(self, s: SState):
        return s.c_epoch < self.d.max_epoch if self.bounded else z3.BoolVal(True)

    # ------------------------------------------------------------------ actions

    def _enc_ProduceRecord(self, s: SState, b: int) -> list:
        r = s.reps[b]
        guard = [r.alive, r.leader == b, r.leo < self.d.slots]
        if self.bounded:
            guard.append(s.written < self.d.records)
        if self.acks == "all":
            guard.append(count(r.isr) >= self.min_isr)
        rid = s.written + 1
        if self.max_retries:  # max.in.flight.requests.per.connection (issue 29aq)
            guard.append(self.may_send(s, rid, b))
        if self.bumps:  # RecordAccumulator.drain: the next sequence (issue 29at)
            base = s.but(seqs=[ite(rid == k + 1, s.nseq, x) for k, x in enumerate(s.seqs)],
                         nseq=s.nseq + 1)
            return [(z3.And(guard + [g]), nxt) for g, nxt in self.send_by_epoch(base, b, rid)]
        if self.idempotent:  # the leader's sequence check (issue 29at)
            return [(z3.And(guard + [g]), nxt) for g, nxt in self.send_idempotent(s, b, rid)]
        return [(z3.And(guard), self.append_produced(s, b, rid))]

    def may_send(self, s: SState, rid, b: int):
        """May the producer send record ``rid`` to broker ``b`` now (the kernel's ``may_send``,
        ``NetworkClient.canSendRequest``)? Fewer requests than
        ``max.in.flight.requests.per.connection`` wait for an answer, ``rid``'s own aside: since
        0.10 (``in-flight-per-partition``, KAFKA-3197: ``Sender`` mutes the partition it drains)
        all of the partition's, before only those waiting at ``b``. With one in flight and
        retries left, every earlier record is acknowledged (0.10+), or at least in flight
        (before: a record waits for its retry at the head of the queue only when it has no
        request out, ``RecordAccumulator.reenqueue``)."""
        waiting = [z3.And(rid != k + 1, s.pend[k],
                          z3.BoolVal(True) if self.per_partition else s.pend_leader[k] == b)
                   for k in range(self.d.records)]
        out = [count(waiting) < self.max_in_flight]
        if self.max_in_flight == 1:
            earlier = [z3.Implies(z3.And(k + 1 < rid, z3.Not(self.given_up(s, k + 1))), z3.And(
                z3.Or(s.pend[k], s.acked[k]), s.acked[k] if self.per_partition else z3.BoolVal(True)))
                for k in range(self.d.records)]
            out.append(z3.Implies(s.retr < self.max_retries, z3.And(earlier)))
        return z3.And(out)

    def _enc_ProducerRetry(self, s: SState, rec: int, b: int) -> list:
        """ProducerRetry(record, leader), without idempotence (the kernel's ``producer_retry``,
        issue 29aq): an acks=all record not yet acknowledged, whose request failed or timed out
        (``Sender.canRetry``, ``RecordAccumulator.reenqueue``), goes again to a broker that
        believes it leads, at most ``--max-retries`` times in all; NOT_ENOUGH_REPLICAS refuses it
        (nothing changes). The retry is appended again wherever that leader's log is (a
        duplicate, or a record after later ones: KAFKA-3197) and waits in its purgatory; the
        timed-out request's answer goes nowhere."""
        if not self.max_retries or self.acks != "all":
            return []
        r = s.reps[b]
        guard = [s.retr < self.max_retries, rec <= s.written, z3.Not(s.acked[rec - 1]),
                 z3.Not(self.given_up(s, rec)),
                 r.alive, r.leader == b, r.leo < self.d.slots, self.may_send(s, rec, b),
                 count(r.isr) >= self.min_isr]
        if self.idempotent or self.bumps:  # the timed-out request's answer goes nowhere; the
            # sequence check
            base = s.but(retr=s.retr + 1,
                         pend=[z3.BoolVal(False) if k == rec - 1 else p for k, p in enumerate(s.pend)])
            send = self.send_by_epoch if self.bumps else self.send_idempotent
            return [(z3.And(guard + [g]), nxt) for g, nxt in send(base, b, num.val(rec), new=False)]
        nxt = self.append_produced(s.but(retr=s.retr + 1), b, num.val(rec), new=False)
        return [(z3.And(guard), nxt)]

    def send_idempotent(self, s: SState, b: int, rid, new: bool = True) -> list:
        """Leader ``b`` handles a PRODUCE of record ``rid`` from the idempotent producer (issue
        29at; the kernel's ``send_record``): ``(guard, next state)`` cases. Record ``r``'s
        sequence is ``r - 1``, and the leader's producer state is its log's last batches
        (``UnifiedLog.rebuildProducerState``). Kafka 2.1.0 ``Log.analyzeAndValidateProducerState``
        -> ``ProducerStateEntry.findDuplicateBatch``: ``rid`` among the last ``window`` batches is a
        DuplicateSequence, answered with the original offset (acks=all: parked, then
        ``DelayedProduce.tryComplete``; the lowest such offset, as the kernel scans); else
        ``ProducerAppendInfo.checkSequence`` (2.1.0; 2.5.0 for KIP-360): a log without batches
        wants sequence 0 (UNKNOWN_PRODUCER_ID; since 2.5 any), else the last one + 1
        (OUT_OF_ORDER_SEQUENCE_NUMBER): a refused record is not pending (the producer may retry
        it); otherwise appended as without idempotence. (core/src/main/scala/kafka/log/Log.scala and
        ProducerStateManager.scala at 2.1.0: ``ProducerStateEntry.NumBatchesToRetain`` = 5.)"""
        r = s.reps[b]
        rid = rid if z3.is_expr(rid) else num.val(rid)
        base = s if not new else s.but(written=rid)
        lo = [r.leo - self.window <= o for o in range(self.d.slots)]
        hit = [z3.And(o < r.leo, lo[o], r.log_id[o] == rid) for o in range(self.d.slots)]
        out = []
        for o in range(self.d.slots):
            first = z3.And([hit[o]] + [z3.Not(hit[p]) for p in range(o)])
            R = range(self.d.records)
            if self.acks == "all":
                nxt = base.but(pend=[z3.Or(base.pend[k], rid == k + 1) for k in R],
                               pend_leader=[ite(rid == k + 1, num.val(b), base.pend_leader[k]) for k in R],
                               pend_off=[ite(rid == k + 1, num.val(o), base.pend_off[k]) for k in R])
                nxt = self.complete_delayed_produce(nxt, b)
            else:
                nxt = base.but(acked=[z3.Or(base.acked[k], rid == k + 1) for k in R],
                               acked_off=[ite(rid == k + 1, num.val(o), base.acked_off[k]) for k in R],
                               pend=[z3.And(base.pend[k], rid != k + 1) for k in R])
            out.append((first, nxt))
        fresh_ = z3.Not(z3.Or(hit))
        last = ite(r.leo == 0, num.val(0), self.at(r.log_id, r.leo - 1))
        follows = z3.Or(z3.And(r.leo == 0, z3.BoolVal(True) if self.any_first else rid == 1),
                        z3.And(r.leo > 0, rid == last + 1))
        refused = base.but(pend=[z3.And(base.pend[k], rid != k + 1) for k in range(self.d.records)])
        out.append((z3.And(fresh_, z3.Not(follows)), refused))
        out.append((z3.And(fresh_, follows), self.append_produced(base, b, rid, new=False)))
        return out

    def given_up(self, s: SState, rec: int):
        """Has the producer given record ``rec`` up (``ProducerBumpEpoch``; issue 29at)?"""
        return s.seqs[rec - 1] == GIVEN_UP if self.bumps else z3.BoolVal(False)

    def answer_duplicate(self, s: SState, b: int, rid, o: int) -> SState:
        """DuplicateSequence: record ``rid`` is answered with its original offset ``o`` (acks=all:
        parked, then ``DelayedProduce.tryComplete``)."""
        R = range(self.d.records)
        if self.acks == "all":
            nxt = s.but(pend=[z3.Or(s.pend[k], rid == k + 1) for k in R],
                        pend_leader=[ite(rid == k + 1, num.val(b), s.pend_leader[k]) for k in R],
                        pend_off=[ite(rid == k + 1, num.val(o), s.pend_off[k]) for k in R])
            return self.complete_delayed_produce(nxt, b)
        return s.but(acked=[z3.Or(s.acked[k], rid == k + 1) for k in R],
                     acked_off=[ite(rid == k + 1, num.val(o), s.acked_off[k]) for k in R],
                     pend=[z3.And(s.pend[k], rid != k + 1) for k in R])

    def refused(self, s: SState, rid) -> SState:
        """The leader refuses record ``rid`` (OUT_OF_ORDER_SEQUENCE_NUMBER, UNKNOWN_PRODUCER_ID,
        INVALID_PRODUCER_EPOCH): not pending, not acknowledged; the producer may retry it."""
        return s.but(pend=[z3.And(s.pend[k], rid != k + 1) for k in range(self.d.records)])

    def send_by_epoch(self, s: SState, b: int, rid, new: bool = True) -> list:
        """Leader ``b`` handles a PRODUCE of record ``rid`` from the idempotent producer with an
        epoch (``--max-producer-epoch-bumps``, issue 29at; the kernel's
        ``check_sequence_by_epoch``): ``(guard, next state)`` cases. The batch carries the
        producer epoch ``pe`` and ``rid``'s sequence as the producer keeps it; the leader's
        producer state is its log's: the last batch's epoch, and that epoch's last ``window``
        batches. Kafka 2.5.0, core/src/main/scala/kafka/log/: ``Log.analyzeAndValidateProducerState``
        -> ``ProducerStateEntry.findDuplicateBatch`` in ProducerStateManager.scala (a batch of
        another epoch is never a duplicate; one of the state's epoch among its last batches is a
        DuplicateSequence, the newest such offset as the kernel scans);
        ``ProducerAppendInfo.checkProducerEpoch`` (an older epoch: ProducerFencedException,
        refused; the model's one producer never meets it); ``checkSequence`` (a newer epoch starts
        at 0; the same epoch wants the last sequence + 1; no batches: any sequence since KIP-360,
        before only 0). Appended with ``pe``."""
        r = s.reps[b]
        rid = rid if z3.is_expr(rid) else num.val(rid)
        if new:
            s = s.but(written=rid)
        seq = self.at(s.seqs, rid - 1)
        last_pe = self.at(r.log_pe, r.leo - 1)
        same = z3.And(r.leo > 0, last_pe == s.pe)
        # offsets o with every batch from o to the end of the log of epoch pe, within the window
        run = [z3.And(o < r.leo, r.leo - self.window <= o,
                      z3.And([z3.Implies(p < r.leo, r.log_pe[p] == s.pe)
                              for p in range(o, self.d.slots)]))
               for o in range(self.d.slots)]
        hit = [z3.And(same, run[o], r.log_id[o] == rid) for o in range(self.d.slots)]
        out = []
        for o in range(self.d.slots):  # the newest hit wins
            newest = z3.And([hit[o]] + [z3.Not(hit[p]) for p in range(o + 1, self.d.slots)])
            out.append((newest, self.answer_duplicate(s, b, rid, o)))
        last_seq = self.at(s.seqs, self.at(r.log_id, r.leo - 1) - 1)
        ok = z3.Or(z3.And(r.leo == 0, z3.BoolVal(True) if self.any_first else seq == 0),
                   z3.And(same, seq == last_seq + 1),
                   z3.And(r.leo > 0, last_pe != s.pe, s.pe > last_pe, seq == 0))
        no_dup = z3.Not(z3.Or(hit))
        out.append((z3.And(no_dup, z3.Not(ok)), self.refused(s, rid)))
        out.append((z3.And(no_dup, ok), self.append_produced(s, b, rid, new=False)))
        return out

    def _enc_ProducerBumpEpoch(self, s: SState, rec: int) -> list:
        """ProducerBumpEpoch(record): the idempotent producer gives record ``rec`` up and bumps
        its epoch (KIP-360, rule ``idempotent-epoch-bump``, 2.5+; issue 29at; the kernel's
        ``producer_bump_epoch``). Kafka 2.5.0 ``Sender.completeBatch`` -> ``failBatch`` ->
        ``TransactionManager.handleFailedBatch`` asks for it after an error it does not retry,
        and ``bumpIdempotentEpochAndResetIdIfNeeded`` bumps; a record whose last request was
        answered with an error (not pending, not acknowledged, not given up) may be the one.
        The records still in flight get sequences 0, 1, ... at the new epoch in send order
        (``TransactionManager.bumpIdempotentProducerEpoch`` ->
        ``TopicPartitionBookkeeper.startSequencesAtBeginning``, clients/src/main/java/org/apache/
        kafka/clients/producer/internals/TransactionManager.java at 2.5.0), at once (KAFKA-14034, rule
        ``epoch-bump-rewrites-in-flight``), or only when none is (the proposed fix)."""
        if not self.may_bump:
            return []
        R = range(self.d.records)
        live = [z3.And(k + 1 <= s.written, z3.Not(s.acked[k]), z3.Not(self.given_up(s, k + 1)))
                for k in R]  # in flight: sent, neither acknowledged nor given up
        guard = [s.pe < self.bumps, rec <= s.written, z3.Not(s.pend[rec - 1]),
                 z3.Not(s.acked[rec - 1]), z3.Not(self.given_up(s, rec))]
        if not self.rewrites_in_flight:
            guard += [z3.Not(live[k]) for k in R if k != rec - 1]
        rest = [z3.And(live[k], k != rec - 1) for k in R]
        seqs = [num.val(GIVEN_UP) if k == rec - 1 else ite(rest[k], count(rest[:k]), s.seqs[k])
                for k in R]
        nxt = s.but(seqs=seqs, pe=s.pe + 1, nseq=count(rest))
        return [(z3.And(guard), nxt)]

    def at(self, xs: list, i):
        """``xs[i]`` for a symbolic index ``i`` within ``xs``."""
        out = xs[0]
        for j in range(1, len(xs)):
            out = ite(i == j, xs[j], out)
        return out

    def complete_delayed_produce(self, s: SState, l: int) -> SState:
        """``DelayedProduce.tryComplete`` at leader ``l`` without a HW change (the kernel's
        ``complete_delayed_produce``): a parked request below the HW is answered, acknowledged if
        the maximal ISR has min.insync.replicas members (``checkEnoughReplicasReachOffset``)."""
        r = s.reps[l]
        enough = count(self.maximal_isr(r)) >= self.min_isr
        pend, acked, acked_off = list(s.pend), list(s.acked), list(s.acked_off)
        for k in range(self.d.records):
            done = z3.And(s.pend[k], s.pend_leader[k] == l, s.pend_off[k] < r.hw)
            pend[k] = z3.And(s.pend[k], z3.Not(done))
            ok = z3.And(done, enough)
            acked[k] = z3.Or(s.acked[k], ok)
            acked_off[k] = ite(ok, s.pend_off[k], s.acked_off[k])
        return s.but(pend=pend, acked=acked, acked_off=acked_off)

    def append_produced(self, s: SState, b: int, rid, new: bool = True) -> SState:
        """Leader ``b`` appends record ``rid`` at its LEO with its leader epoch
        (``UnifiedLog.appendAsLeader``); acks=1 is answered at once, acks=all parks in the
        purgatory; then ``maybeIncrementLeaderHW``. The record count moves to ``rid`` when it is
        ``new`` (not a retry)."""
        r = s.reps[b]
        off = r.leo
        ids = [ite(off == i, rid, r.log_id[i]) for i in range(self.d.slots)]
        eps = [ite(off == i, r.lep, r.log_ep[i]) for i in range(self.d.slots)]
        r2 = r.but(log_id=ids, log_ep=eps, leo=off + 1)
        if r.log_pe:  # the batch's producer epoch (issue 29at)
            r2 = r2.but(log_pe=[ite(off == i, s.pe, r.log_pe[i]) for i in range(self.d.slots)])
        nxt = s.put(b, r2).but(written=rid if new else s.written)
        R = range(self.d.records)
        if self.acks == "1":
            nxt = nxt.but(acked=[z3.Or(nxt.acked[k], rid == k + 1) for k in R],
                          acked_off=[ite(rid == k + 1, off, nxt.acked_off[k]) for k in R])
        elif self.acks == "all":
            nxt = nxt.but(pend=[z3.Or(nxt.pend[k], rid == k + 1) for k in R],
                          pend_leader=[ite(rid == k + 1, num.val(b), nxt.pend_leader[k]) for k in R],
                          pend_off=[ite(rid == k + 1, off, nxt.pend_off[k]) for k in R])
        return self.maybe_increment_leader_hw(nxt, b)

    def _enc_LeaderHandleFetch(self, s: SState, lead: int, f: int) -> list:
        if lead == f:
            return []
        fr, lr = s.reps[f], s.reps[lead]
        guard = [fr.alive, fr.leader == lead, z3.Not(fr.truncating), z3.Not(fr.fr),
                 lr.alive, lr.leader == lead] + self.not_shutting_down(fr)
        if self.fenced:
            guard.append(fr.lep == lr.lep)
        offset, leader_leo = fr.leo, lr.leo
        out_of_range = offset > leader_leo
        # OFFSET_OUT_OF_RANGE: nothing recorded on the leader
        resp_a = fr.but(fr=z3.BoolVal(True), fr_leader=num.val(lead), fr_epoch=fr.lep,
                        fr_offset=offset, fr_hw=lr.hw, fr_leo=leader_leo)
        case_a = (z3.And(guard + [out_of_range]), s.put(f, resp_a))
        # Partition.maybeExpandIsr inside the fetch (not under isr-expansion-as-own-step)
        expand = z3.BoolVal(False)
        if self.expand_isr_on_fetch and self.alter:
            return self._fetch_with_alter_partition(s, lead, f, guard, case_a)
        if self.expand_isr_on_fetch:
            expand = z3.And(z3.Not(lr.isr[f]), self._isr_change_allowed(s, lead, lr),
                            self.is_caught_up_for_isr(lr, offset))
        pruned = z3.And(lr.remote[f] == offset, offset == leader_leo, zmin(offset, lr.hw) == fr.hw,
                        z3.Not(expand), self.fetch_is_current(lr, f))
        remote = [offset if j == f else lr.remote[j] for j in range(self.n)]
        isr = [z3.Or(lr.isr[j], expand) if j == f else lr.isr[j] for j in range(self.n)]
        c_isr = [z3.Or(s.c_isr[j], expand) if j == f else s.c_isr[j] for j in range(self.n)]
        lr2 = self.record_current_fetch(lr.but(remote=remote, isr=isr), f)
        nxt = self.maybe_increment_leader_hw(s.put(lead, lr2).but(c_isr=c_isr), lead)
        resp_b = fr.but(fr=z3.BoolVal(True), fr_leader=num.val(lead), fr_epoch=fr.lep,
                        fr_offset=offset, fr_id=list(lr.log_id), fr_ep=list(lr.log_ep),
                        fr_pe=list(lr.log_pe), fr_hw=nxt.reps[lead].hw, fr_leo=leader_leo)
        case_b = (z3.And(guard + [z3.Not(out_of_range), z3.Not(pruned)]), nxt.put(f, resp_b))
        return [case_a, case_b]

    def _enc_FollowerHandleFetchResponse(self, s: SState, f: int) -> list:
        r = s.reps[f]
        base = [r.alive, r.fr]
        stale = z3.Or(r.leader != r.fr_leader, r.lep != r.fr_epoch, r.leo != r.fr_offset, r.truncating)
        case_stale = (z3.And(base + [stale]), s.put(f, self.no_fetch(r)))
        oor = r.fr_offset > r.fr_leo
        leo = self.truncate_to(r.leo, r.fr_leo)
        r_oor = self.trim_flushed(self.no_fetch(r.but(leo=leo, hw=zmin(r.hw, leo))))
        case_oor = (z3.And(base + [z3.Not(stale), oor]), s.put(f, r_oor))
        ids = [ite(i < r.fr_offset, r.log_id[i], r.fr_id[i]) for i in range(self.d.slots)]
        eps = [ite(i < r.fr_offset, r.log_ep[i], r.fr_ep[i]) for i in range(self.d.slots)]
        r_app = self.no_fetch(r.but(log_id=ids, log_ep=eps, leo=r.fr_leo, hw=zmin(r.fr_leo, r.fr_hw)))
        if r.log_pe:  # the batches' producer epochs (issue 29at)
            r_app = r_app.but(log_pe=[ite(i < r.fr_offset, r.log_pe[i], r.fr_pe[i])
                                      for i in range(self.d.slots)])
        case_app = (z3.And(base + [z3.Not(stale), z3.Not(oor)]), s.put(f, r_app))
        return [case_stale, case_oor, case_app]

    def _enc_FollowerTruncate(self, s: SState, f: int) -> list:
        if not self.has_truncate:
            return []
        fr = s.reps[f]
        out = []
        for l in range(self.n):
            lr = s.reps[l]
            guard = [fr.alive, fr.truncating, fr.leader == l, lr.alive, lr.leader == l]
            if self.fenced:
                guard.append(lr.lep == fr.lep)
            leo = self.truncate_to(fr.leo, self.truncation_offset(fr, lr))
            r2 = self.trim_flushed(fr.but(leo=leo, hw=zmin(fr.hw, leo), truncating=z3.BoolVal(False)))
            out.append((z3.And(guard), s.put(f, r2)))
        return out

    def _isr_change_allowed(self, s: SState, b: int, r: SReplica):
        return z3.And(s.c_leader == b, s.c_epoch == r.lep)

    def _enc_LeaderShrinkIsr(self, s: SState, b: int, f: int) -> list:
        if f == b:
            return []
        if self.alter:
            return self._shrink_by_alter_partition(s, b, f)
        r = s.reps[b]
        guard = [r.alive, r.leader == b, count(r.isr) > 1, self._isr_change_allowed(s, b, r),
                 r.isr[f], r.remote[f] < r.leo]
        if self.timed_shrink:  # replica.lag.time.max.ms (docs/model.md, "Time")
            rf = s.reps[f]
            guard.append(z3.Or([z3.Not(rf.alive), rf.leader != b, rf.lep != r.lep]
                               + self.shutting_down(rf)))
        isr = [z3.BoolVal(False) if j == f else r.isr[j] for j in range(self.n)]
        nxt = s.put(b, r.but(isr=isr)).but(c_isr=isr)
        return [(z3.And(guard), self.maybe_increment_leader_hw(nxt, b))]

    def _enc_LeaderExpandIsr(self, s: SState, b: int, f: int) -> list:
        if self.expand_isr_on_fetch:
            return []  # Kafka's rule: the expansion happens inside LeaderHandleFetch
        r = s.reps[b]
        leo = r.remote[f]
        guard = [r.alive, r.leader == b, count(r.isr) != self.n, self._isr_change_allowed(s, b, r),
                 z3.Not(r.isr[f]), leo >= 0, self.is_caught_up_for_isr(r, leo)]
        isr = [z3.BoolVal(True) if j == f else r.isr[j] for j in range(self.n)]
        return [(z3.And(guard), s.put(b, r.but(isr=isr)).but(c_isr=isr))]

    def _enc_BecomeLeaderOrFollower(self, s: SState, b: int, e: int) -> list:
        r = s.reps[b]
        # with controller failovers (issue 29ak) a request of a newer controller than b has
        # obeyed is taken even in b's own leader epoch: it only teaches b the controller epoch
        newer_controller = s.lai_cep[b][e] > r.cseen if self.failovers else z3.BoolVal(False)
        guard = [s.lai[b][e], r.alive]
        if self.in_order:
            # leader-and-isr-in-order: the kernel's older_request_on_its_way
            # (model/kernel/actions/broker.py): the request waits while an older one newer than
            # b's epoch is still queued (ControllerChannelManager's one queue and
            # RequestSendThread per broker, at 2.1.0); with failovers only one of the same
            # controller (a failover loses the old controller's queue)
            guard += [z3.Not(z3.And(r.lep < older, s.lai[b][older],
                                    s.lai_cep[b][older] == s.lai_cep[b][e] if self.failovers
                                    else z3.BoolVal(True)))
                      for older in range(e)]
        leader, isr = s.lai_leader[b][e], s.lai_isr[b][e]
        lai = [list(row) for row in s.lai]
        lai[b][e] = z3.BoolVal(False)
        base = s.but(lai=lai)
        if self.failovers:
            base = base.put(b, r.but(cseen=ite(newer_controller, s.lai_cep[b][e], r.cseen)))
            r = base.reps[b]
        as_leader, as_follower = self.become(base, b, num.val(e), leader, isr,
                                             s.lai_cur[b][e] if self.alter else None)
        out = [(z3.And(guard + [r.lep < e, leader == b]), as_leader),
               (z3.And(guard + [r.lep < e, leader != b]), as_follower)]
        if self.failovers:  # the teaching case: nothing but the controller epoch changes
            out.append((z3.And(guard + [r.lep >= e, newer_controller]), base))
        return out

    def become(self, base: SState, b: int, e, leader, isr, pec) -> tuple:
        """Broker ``b`` of ``base`` takes leader epoch ``e`` with ``leader`` and ``isr``: the
        states ``(as leader, as follower)`` (``Partition.makeLeader``, ``Partition.makeFollower``;
        the kernel's ``make_leader`` and ``make_follower``); ``pec``, the partition-epoch bit a
        new leader takes (``None``: kept)."""
        r = base.reps[b]
        # Partition.makeLeader
        was_leader = r.leader == b
        reset = z3.BoolVal(True) if self.reset_remote_every_epoch else z3.Not(was_leader)
        # a re-elected leader keeps its ISR members' LEOs only (the kernel's make_leader says why)
        remote = [ite(z3.Or(reset, z3.Not(isr[j])), num.val(-1), r.remote[j]) for j in range(self.n)]
        rl = r.but(lep=e, leader=num.val(b), isr=list(isr), remote=remote,
                   truncating=z3.BoolVal(False), fr=z3.BoolVal(False))
        if self.d.epoch_start:  # leaderEpochStartOffsetOpt: the LEO, kept if records of e precede it
            rl = rl.but(esta=ite(self.first_offset_of_epoch(r, e) < r.leo, r.leo, num.val(-1)))
        if self.d.fetch_epochs:  # the kernel's make_leader: brokerEpoch := None with the LEO
            rl = rl.but(rcur=[z3.And(z3.Not(reset), isr[j], r.rcur[j]) for j in range(self.n)])
        # KIP-497: the request's partition-epoch bit becomes the leader's; a pending ISR change is
        # replaced by the new state (the kernel's make_leader; Partition.makeLeader at 2.7.0 ->
        # updateAssignmentAndIsr sets isrState to CommittedIsr, dropping a PendingExpandIsr or
        # PendingShrinkIsr)
        rl = self.clear_alter(rl, pec=pec)
        as_leader = self.maybe_increment_leader_hw(base.put(b, rl), b)
        # Partition.makeFollower
        new_leader = r.leader != leader
        rf = r.but(lep=e, leader=leader, isr=[z3.BoolVal(False)] * self.n,
                   remote=self.unknown(), fr=z3.BoolVal(False))
        if self.d.epoch_start:  # (the kernel's make_follower)
            rf = rf.but(esta=num.val(-1))
        rf = self.clear_alter(rf, pec=z3.BoolVal(False))  # a follower never uses it (make_follower)
        truncated = self.trim_flushed(self.truncate_on_become_follower(rf))
        retrunc = z3.BoolVal(True) if self.truncate_every_epoch else new_leader
        rf2 = SReplica(**{
            k: (ite(leader == NO_LEADER, getattr(rf, k), ite(retrunc, getattr(truncated, k), getattr(rf, k)))
                if not isinstance(getattr(rf, k), list) else
                [ite(leader == NO_LEADER, x, ite(retrunc, y, x))
                 for x, y in zip(getattr(rf, k), getattr(truncated, k))])
            for k in rf.__dataclass_fields__})
        rf2 = rf2.but(truncating=ite(leader == NO_LEADER, z3.BoolVal(False), rf2.truncating))
        as_follower = self.drop_pending_acks(base.put(b, rf2), b)
        return as_leader, as_follower

    def ranked_before(self, s: SState, j: int, c: int):
        """Broker ``j`` comes before ``c`` in the assignment (``assignment_rank``): a Python bool
        while the ranks are the constant broker index (no reassignments)."""
        if not self.max_reassign:
            return j < c
        return s.rank[j] < s.rank[c]

    def first_in_assignment(self, s: SState, mask: list, c: int):
        """``c`` is the member of ``mask`` (a Bool per broker) an election picks: under Kafka's
        ordered elections the first in assignment order, i.e. no member of ``mask`` comes before
        it (the kernel's ``first_in_assignment``, model/kernel/controller.py;
        ``PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection``,
        ``assignment.find(...)``, in PartitionStateMachine.scala at 2.1.0); under ``unordered-leader-moves`` any member."""
        if not self.ordered:
            return mask[c]
        before = [z3.Not(mask[j]) if self.ranked_before(s, j, c) is True
                  else z3.Not(z3.And(mask[j], self.ranked_before(s, j, c)))
                  for j in range(self.n) if j != c and self.ranked_before(s, j, c) is not False]
        return z3.And([mask[c]] + before)

    def _enc_ControllerElectLeader(self, s: SState, new: int) -> list:
        # the kernel's controller_elect_leader (model/kernel/actions/controller.py): only the
        # over-approximation moves a healthy leader; Kafka has no such step
        if new < 0 or self.ordered:
            return []
        guard = [s.c_leader != NO_LEADER, self.epoch_available(s), s.c_isr[new], s.c_leader != new,
                 self.may_lead(s, new)]
        epoch = s.c_epoch + 1
        nxt = self.send_leader_and_isr(self.commit(s), epoch, num.val(new), s.c_isr, s.c_live)
        nxt = self.elr_change(s, nxt, s.c_isr, num.val(new))  # KIP-966 (issue 29l)
        return [(z3.And(guard), nxt.but(c_leader=num.val(new), c_epoch=epoch))]

    def is_preferred(self, s: SState, b: int):
        """``b`` is the preferred replica, the first of the assignment (the kernel's
        ``preferred_replica``: ``assignment.head`` at 2.1.0)."""
        return b == 0 if not self.max_reassign else s.rank[b] == 0

    def _enc_ControllerPreferredElection(self, s: SState, new: int) -> list:
        """The kernel's ``controller_preferred_election`` (model/kernel/actions/controller.py):
        leadership moves to the preferred replica if it is live and in the ISR, the leader epoch
        goes up with the ISR unchanged and the live brokers get LeaderAndIsr (Kafka at 2.1.0:
        ``KafkaController.onPreferredReplicaElection`` ->
        ``PartitionStateMachine.handleStateChanges`` with ``PreferredReplicaPartitionLeaderElectionStrategy``
        -> ``PartitionLeaderElectionAlgorithms.preferredReplicaPartitionLeaderElection``,
        ``assignment.headOption.filter(id => liveReplicas.contains(id) && isr.contains(id))``).
        Bounded by max-preferred-elections."""
        if new < 0 or not self.max_preferred:
            return []
        preferred = self.is_preferred(s, new)
        if preferred is False:
            return []
        guard = [s.pref < self.max_preferred, s.c_leader != NO_LEADER, s.c_leader != new,
                 s.c_isr[new], self.may_lead(s, new), self.epoch_available(s)]
        if preferred is not True:
            guard.append(preferred)
        epoch = s.c_epoch + 1
        nxt = self.send_leader_and_isr(self.commit(s), epoch, num.val(new), s.c_isr, s.c_live)
        nxt = self.elr_change(s, nxt, s.c_isr, num.val(new))  # KIP-966 (issue 29l)
        return [(z3.And(guard), nxt.but(c_leader=num.val(new), c_epoch=epoch, pref=s.pref + 1))]

    def _enc_ControllerReassignReplicas(self, s: SState, first: int, ordering: int) -> list:
        """The kernel's ``controller_reassign_replicas`` (ZooKeeper mode): the same replicas in
        the ``ordering``-th order (lexicographic, ``order_of``), ``first`` its preferred replica,
        if that is not the order already; the leader, live in the controller's view, stays and
        gets a new leader epoch with the same ISR, sent to the live brokers as LeaderAndIsr
        (Kafka at 2.1.0: ``KafkaController.onPartitionReassignment`` ->
        ``moveReassignedPartitionLeaderIfRequired`` -> ``updateLeaderEpochAndSendRequest``).
        Bounded by max-reassignments."""
        order = list(permutations(range(self.n)))[ordering]
        if not self.max_reassign or order[0] != first:
            return []
        if self.kraft:
            return self._reassign_by_record(s, order)
        leader_live = z3.Or([z3.And(s.c_leader == b, s.c_live[b]) for b in range(self.n)])
        already = z3.And([s.rank[b] == i for i, b in enumerate(order)])
        guard = [s.reass < self.max_reassign, leader_live, self.epoch_available(s), z3.Not(already)]
        epoch = s.c_epoch + 1
        nxt = self.send_leader_and_isr(self.commit(s), epoch, s.c_leader, s.c_isr, s.c_live)
        rank = [num.val(order.index(b)) for b in range(self.n)]
        return [(z3.And(guard), nxt.but(c_epoch=epoch, rank=rank, reass=s.reass + 1))]

    def _enc_ControllerHandleBrokerFailure(self, s: SState, b: int, new: int, running=False) -> list:
        # ``running``: ControllerFenceBroker, the same removal of a broker still running (29ac)
        if self.d.elr:  # KIP-966 (issue 29l)
            return self.done_shutting_down(self._failure_with_elr(s, b, new, running), b, running)
        base = [b < self.n, s.c_live[b], self.down_or_running(s, b, running)]
        live = [z3.BoolVal(False) if j == b else s.c_live[j] for j in range(self.n)]
        epoch = s.c_epoch + 1
        out = []
        # the failed broker led: elect
        shrink = count(s.c_isr) > 1
        isr = [z3.And(s.c_isr[j], z3.Not(shrink)) if j == b else s.c_isr[j] for j in range(self.n)]
        may = self.leadable(s, live)  # (29ac: not a broker in a controlled shutdown)
        clean = z3.Or([z3.And(isr[j], may[j]) for j in range(self.n)])
        any_live = z3.Or(may)
        if new >= 0:
            # the kernel's controller_remove_broker -> leader_candidates: the first live member of
            # the ISR in assignment order, else (unclean.leader.election.enable) the first live
            # replica (KafkaController.onBrokerFailure -> triggerOnlinePartitionStateChange ->
            # PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection, at 2.1.0)
            is_clean = self.first_in_assignment(s, [z3.And(isr[j], may[j]) for j in range(self.n)], new)
            is_unclean = (z3.And(z3.Not(clean), self.first_in_assignment(s, may, new))
                          if self.unclean else z3.BoolVal(False))
            chosen = z3.Or(is_clean, is_unclean)
            c_isr = [ite(is_unclean, z3.BoolVal(j == new), isr[j]) for j in range(self.n)]
        else:
            chosen = z3.And(z3.Not(clean), z3.Not(any_live) if self.unclean else z3.BoolVal(True))
            c_isr = isr
        nxt = self.send_leader_and_isr(self.commit(s), epoch, num.val(new), c_isr, live)
        nxt = nxt.but(c_leader=num.val(new), c_epoch=epoch, c_isr=c_isr, c_live=live)
        if new >= 0 and self.unclean:
            nxt = self.recovering_after(nxt, is_unclean)
        out.append((z3.And(base + [s.c_leader == b, self.epoch_available(s), chosen]), nxt))
        # a follower in the ISR failed: shrink the ISR
        isr2 = [z3.BoolVal(False) if j == b else s.c_isr[j] for j in range(self.n)]
        in_isr = z3.And(s.c_isr[b], count(s.c_isr) > 1)
        if self.kraft and self.d.shrink_keeps:
            # KAFKA-15021 (3.6, ``isr-shrink-keeps-leader-epoch``): the shrink keeps the leader
            # epoch, so no epoch bound applies and the record reaches the leader as a change
            # (the kernel's ``controller_remove_broker``, ``isr_shrink_bumps_epoch``)
            nxt2 = self.put_change(self.commit(s), s.c_epoch, isr2, live).but(c_isr=isr2, c_live=live)
            out.append((z3.And(base + [s.c_leader != b, in_isr, s.c_leader == new]), nxt2))
        else:
            nxt2 = self.send_leader_and_isr(self.commit(s), epoch, s.c_leader, isr2, live)
            nxt2 = nxt2.but(c_epoch=epoch, c_isr=isr2, c_live=live)
            out.append((z3.And(base + [s.c_leader != b, in_isr, self.epoch_available(s),
                                       s.c_leader == new]), nxt2))
        # otherwise only the live set changes
        out.append((z3.And(base + [s.c_leader != b, z3.Not(in_isr), s.c_leader == new]),
                    s.but(c_live=live)))
        return self.done_shutting_down(out, b, running)

    def _enc_BrokerCrash(self, s: SState, b: int) -> list:
        r = s.reps[b]
        guard = [r.alive]
        counted = self.bounded and not self.d.unbounded_crashes  # (issue 29y: no crash bound)
        if counted:
            guard.append(s.crashes < self.d.max_crashes)
        cases = [(r, s.losses, z3.BoolVal(True))]
        if self.power_loss:
            lossy = r.flushed < r.leo
            cases = [(r, s.losses, z3.Not(lossy)),
                     (r.but(leo=r.flushed), self.count_up(s.losses),
                      z3.And(lossy, s.losses < self.d.max_losses) if counted else lossy)]
        if self.disk_loss:
            lossy = z3.Or(r.leo > 0, r.hw > 0)  # (the kernel's ``broker_crash``: a disk with data)
            cases = [(r, s.losses, z3.Not(lossy)),
                     (self.lose_disk(r), self.count_up(s.losses),
                      z3.And(lossy, s.losses < self.d.max_losses) if counted else lossy)]
        out = []
        for kept, losses, cond in cases:
            leo = kept.leo
            # the HW read back on restart: the checkpoint file's (``stop_broker``), capped at the LEO
            r2 = r.but(alive=z3.BoolVal(False), leo=leo, hw=zmin(self.hw_on_disk(kept), leo),
                       lep=num.val(-1),
                       leader=num.val(NO_LEADER), isr=[z3.BoolVal(False)] * self.n,
                       remote=self.unknown(), truncating=z3.BoolVal(False), fr=z3.BoolVal(False),
                       flushed=r.flushed if self.power_loss else num.val(0))
            r2 = self.clear_alter(r2, pec=z3.BoolVal(False))  # the kernel's stop_broker
            r2 = self.stopped(self.clear_change(r2))  # (kraft: a restart starts from the log again)
            lai = [list(row) for row in s.lai]
            lai[b] = [z3.BoolVal(False)] * len(lai[b])
            nxt = self.drop_pending_acks(s.put(b, r2), b).but(
                lai=lai, crashes=self.count_up(s.crashes), losses=losses)
            out.append((z3.And(guard + [cond]), nxt))
        return out

    def lose_disk(self, r: SReplica) -> SReplica:
        """``r`` after its disk is replaced (``--crash-model disk-loss``, the kernel's
        ``broker_crash``): the log is gone (LEO 0: ``LogManager.loadLogs`` finds an empty log
        directory and the partition's log is created empty), and with it the leader-epoch
        cache (the log's epochs: ``LeaderEpochCheckpointFile.LeaderEpochCheckpointFilename``,
        ``leader-epoch-checkpoint``, at 3.3.1, lived in the lost partition directory) and the
        HW checkpoint (``ReplicaManager.HighWatermarkFilename``, ``replication-offset-checkpoint``
        at 3.3.1: no entry, so the HW read back is 0). Nothing
        else of the broker's survives a crash in any model (``stop_broker``). The broker then
        restarts as after any crash (``BrokerRestart``): under KIP-903 with a new broker epoch,
        which is what keeps a stale AlterPartition from putting the empty replica back in the
        ISR (KAFKA-14139, fixed in 3.5); before it nothing tells the controller the disk is new.
        Slots at or above the LEO are don't-care (``state.py``), as the kernel zeroes them."""
        return r.but(leo=num.val(0), hw=num.val(0), ckpt=num.val(0) if self.d.ckpt else r.ckpt)

    # ------------------------------------------------------------------ the HW checkpoint file
    #
    # ``--hw-checkpoint interval`` (the kernel's ``checkpoint_high_watermark`` and
    # ``stop_broker``, model/kernel/actions/broker.py): a broker writes its HW to
    # ``replication-offset-checkpoint`` every ``replica.high.watermark.checkpoint.interval.ms``
    # (``ReplicaManager.checkpointHighWatermarks`` at 2.1.0, scheduled in
    # ``ReplicaManager.startHighWaterMarksCheckPointThread``), so at any time as far as the order of
    # events goes, and a broker that stops reads its HW back from that file when it starts
    # (``Partition.getOrCreateReplica`` at 2.1.0: the file's offset for the partition, 0 if it
    # has none, capped at the log end offset). A controlled shutdown writes it last
    # (``ReplicaManager.shutdown(checkpointHW = true)``); a lost disk loses it. Without the
    # setting the file follows the HW (kmc's default abstraction) and ``ckpt`` is the constant 0,
    # never read.

    def hw_on_disk(self, r: SReplica):
        """The HW ``r`` would restart with, before the cap at its LEO."""
        return r.ckpt if self.d.ckpt else r.hw

    def _enc_CheckpointHighWatermark(self, s: SState, b: int) -> list:
        """CheckpointHighWatermark(broker): a running broker writes its HW to its checkpoint file
        (an action only when that changes the file, as the kernel's)."""
        if not self.d.ckpt:
            return []
        r = s.reps[b]
        return [(z3.And(r.alive, r.ckpt != r.hw), s.put(b, r.but(ckpt=r.hw)))]

    def _enc_BrokerRestart(self, s: SState, b: int) -> list:
        if self.d.elr:  # KIP-966 (issue 29l)
            return self._restart_with_elr(s, b)
        r = s.reps[b]
        r2 = r.but(alive=z3.BoolVal(True), flushed=r.leo if self.power_loss else num.val(0))
        nxt = self.new_incarnation(s.put(b, self.restarted(r2)), b)
        only_b = [z3.BoolVal(j == b) for j in range(self.n)]
        known = s.c_live[b]
        out = []
        # already known alive: resend the current state to b (not with broker epochs)
        # (KRaft: a leader already at the current epoch also gets the latest change, the
        # kernel's ``controller_register_broker``)
        if not self.restart_waits_for_failure():
            out.append((z3.And(z3.Not(r.alive), known), self.put_change(
                self.send_leader_and_isr(nxt, s.c_epoch, s.c_leader, s.c_isr, only_b),
                s.c_epoch, s.c_isr, only_b)))
        return out + [(z3.And(z3.Not(r.alive), g), x) for g, x in self.register_broker(s, nxt, b)]

    def register_broker(self, s: SState, nxt: SState, b: int) -> list:
        """The kernel's ``controller_register_broker`` for a broker ``b`` the controller does not
        have as live (``KafkaController.onBrokerStartup`` -> ``triggerOnlinePartitionStateChange``,
        at 2.1.0), from the controller's state in ``s`` onto ``nxt`` (``s`` with ``b`` running):
        ``(guard, next state)`` cases. An offline partition elects with ``b`` live, and ``b``
        leads only if the election picks it (``leader_candidates``, in assignment order; not a
        broker in a controlled shutdown, ``may_lead``); else ``b`` joins the live set and is sent
        the current state. Shared by BrokerRestart and ControllerUnfenceBroker (issue 29ac)."""
        only_b = [z3.BoolVal(j == b) for j in range(self.n)]
        known = s.c_live[b]
        nxt = self.registered(s, nxt, b)  # (issue 29bi)
        live = [z3.BoolVal(True) if j == b else s.c_live[j] for j in range(self.n)]
        elect = z3.And(z3.Not(known), s.c_leader == NO_LEADER, self.epoch_available(s))
        with_b = self.leadable(nxt, live)
        live_isr = [z3.And(s.c_isr[j], with_b[j]) for j in range(self.n)]
        clean = z3.And(elect, self.first_in_assignment(s, live_isr, b))
        unclean = (z3.And(elect, z3.Not(z3.Or(live_isr)), self.first_in_assignment(s, with_b, b))
                   if self.unclean else z3.BoolVal(False))
        # registers again, no election
        plain = z3.And(z3.Not(known), z3.Not(clean), z3.Not(unclean))
        out = [(plain, self.put_change(
            self.send_leader_and_isr(nxt, s.c_epoch, s.c_leader, s.c_isr, only_b).but(c_live=live),
            s.c_epoch, s.c_isr, only_b))]
        epoch = s.c_epoch + 1
        out.append((clean,
                    self.send_leader_and_isr(self.commit(nxt), epoch, num.val(b), s.c_isr, live).but(
                        c_live=live, c_leader=num.val(b), c_epoch=epoch)))
        if self.unclean:
            isr_b = [z3.BoolVal(j == b) for j in range(self.n)]
            out.append((unclean, self.recovering_after(
                self.send_leader_and_isr(self.commit(nxt), epoch, num.val(b), isr_b, live).but(
                    c_live=live, c_leader=num.val(b), c_epoch=epoch, c_isr=isr_b), True)))
        return out

    def restart_waits_for_failure(self) -> bool:
        """``broker-epoch`` (KIP-380, Kafka 2.2): a dead broker the controller still counts live
        cannot restart until ControllerHandleBrokerFailure has run for it, so BrokerRestart has
        no case in which the controller already knows it alive.

        Kafka at 2.2.0: a broker registers in ZooKeeper with a new broker epoch (the czxid of its
        ephemeral node) every time it starts; ``KafkaController.BrokerChange.process`` counts a
        broker whose registered epoch is newer than the one it holds as *bounced*
        (``bouncedBrokerIds``) and runs ``onBrokerFailure`` and then ``onBrokerStartup`` for it,
        so a restart the controller had not noticed is handled as a failure first. Before 2.2
        (``BrokerChange`` at 2.1.0) such a broker was neither new nor dead to the controller, no
        failure was handled and no new leader epoch made: kmc's model (the kernel's
        ``controller_register_broker``) resends it the current state, the case left out here.
        The kernel's
        ``broker_restart`` (model/kernel/actions/broker.py) skips a dead broker still in
        ``controller_live`` under the rule; ControllerHandleBrokerFailure, the kernel's model of
        the failure half, is unchanged, so the encoding differs from 2.1's in this guard only."""
        return self.bounce_noticed

    def _enc_FlushLog(self, s: SState, b: int) -> list:
        if not self.power_loss:
            return []
        r = s.reps[b]
        return [(z3.And(r.alive, r.flushed < r.leo), s.put(b, r.but(flushed=r.leo)))]

    # ------------------------------------------------------------------ AlterPartition (KIP-497, issue 29i)
    #
    # Kafka 2.7 (rule ``alter-partition``): a leader no longer writes the ISR to ZooKeeper itself
    # (``Partition.expandIsr`` / ``shrinkIsr`` -> ``zkClient.conditionalUpdatePath`` at 2.6.0); it
    # sends AlterIsr to the controller and waits (``Partition.expandIsr`` / ``shrinkIsr`` ->
    # ``sendAlterIsrRequest`` with ``PendingExpandIsr`` / ``PendingShrinkIsr`` at 2.7.0), one change
    # at a time (``isrState.isInflight``). The encoding is the compiled kernel's
    # (model/kernel/transitions.py ``propose_isr``, ``maximal_isr``; model/kernel/actions/
    # controller.py ``controller_handle_alter_partition``; leader.py
    # ``leader_handle_alter_partition_response``; controller.py ``commit``), which keeps one bit
    # per holder of a partition epoch ("this is the current one") instead of the number.

    def maximal_isr(self, r: SReplica) -> list:
        """``IsrState.maximalIsr`` (2.7.0; ``PartitionState.maximalIsr`` 3.2.0+): the ISR the HW
        waits for: the leader's ISR and, while an AlterPartition is pending, the members it
        proposes (an expansion counts the added follower at once; a shrink still counts the
        removed one, which the committed ISR holds). ``maybeIncrementLeaderHW`` and
        ``checkEnoughReplicasReachOffset`` (min.insync.replicas for a parked produce) read it,
        2.7.0."""
        if not self.alter:
            return r.isr
        return [z3.Or(r.isr[j], z3.And(r.alt != 0, r.alt_isr[j])) for j in range(self.n)]

    def clear_alter(self, r: SReplica, pec=None) -> SReplica:
        """No AlterPartition pending (the kernel's ``clear_alter``), and the partition-epoch bit
        ``pec`` if given."""
        if not self.alter:
            return r
        return r.but(alt=num.val(0), alt_isr=[z3.BoolVal(False)] * self.n, alt_ep=num.val(0),
                     alt_cur=z3.BoolVal(False), pec=r.pec if pec is None else pec,
                     alt_mcur=z3.BoolVal(False))  # (the member bit: don't-care without a request)

    def propose_isr(self, r: SReplica, isr: list) -> SReplica:
        """The leader sends AlterPartition(its leader epoch, its partition epoch, ``isr``) and
        waits (the kernel's ``propose_isr``; ``Partition.sendAlterIsrRequest`` at 2.7.0)."""
        r = r.but(alt=num.val(ALTER_SENT), alt_isr=list(isr), alt_ep=r.lep, alt_cur=r.pec)
        return r.but(alt_mcur=z3.BoolVal(True)) if self.d.fetch_epochs else r

    def commit(self, s: SState) -> SState:
        """The controller writes a new partition state (the kernel's ``commit``; the znode's
        version, the partition epoch, goes up): every partition epoch held so far is stale, the
        brokers', the pending AlterPartition requests' and the LeaderAndIsr requests'."""
        if not self.alter:
            return s
        reps = [r.but(pec=z3.BoolVal(False), alt_cur=z3.BoolVal(False)) for r in s.reps]
        if self.kraft:  # a pending change loses its current partition epoch too
            reps = [r.but(chg_cur=z3.BoolVal(False)) for r in reps]
        lai_cur = [[z3.BoolVal(False)] * len(row) for row in s.lai_cur]
        return s.but(reps=reps, lai_cur=lai_cur)

    def mark_current(self, s: SState, c_epoch, c_leader, targets) -> SState:
        """A LeaderAndIsr sent to its leader carries the current partition epoch (the kernel's
        ``send_leader_and_isr``: only a leader uses it, in its AlterPartition requests)."""
        if not self.alter:
            return s
        lai_cur = [list(row) for row in s.lai_cur]
        for b in range(self.n):
            for e in range(len(lai_cur[b])):
                hit = z3.And(targets[b], s.reps[b].alive, c_epoch == e, c_leader == b)
                lai_cur[b][e] = z3.Or(lai_cur[b][e], hit)
        return s.but(lai_cur=lai_cur)

    def _shrink_by_alter_partition(self, s: SState, b: int, f: int) -> list:
        """LeaderShrinkIsr under KIP-497: the same lag test, but the leader proposes the smaller
        ISR instead of writing it, only if no change is pending, and its HW still counts ``f``
        (``Partition.shrinkIsr`` at 2.7.0: ``PendingShrinkIsr``, whose ``maximalIsr`` is the old
        ISR). No compare-and-set here: the controller checks the epochs when it handles it."""
        r = s.reps[b]
        guard = [r.alive, r.leader == b, count(r.isr) > 1, r.alt == 0, r.isr[f],
                 r.remote[f] < r.leo]
        if self.timed_shrink:  # replica.lag.time.max.ms, as in _enc_LeaderShrinkIsr
            rf = s.reps[f]
            guard.append(z3.Or([z3.Not(rf.alive), rf.leader != b, rf.lep != r.lep]
                               + self.shutting_down(rf)))
        smaller = [z3.BoolVal(False) if j == f else r.isr[j] for j in range(self.n)]
        return [(z3.And(guard), s.put(b, self.propose_isr(r, smaller)))]

    def _fetch_with_alter_partition(self, s: SState, lead: int, f: int, guard: list, case_a) -> list:
        """LeaderHandleFetch under KIP-497: a follower found in sync is proposed, not added
        (``Partition.maybeExpandIsr`` -> ``expandIsrWithAlterIsr`` at 2.7.0:
        ``PendingExpandIsr``), if no change is pending (``canAddReplicaToIsr``: not
        ``isInflight``); its LEO counts in the HW at once (the maximal ISR)."""
        fr, lr = s.reps[f], s.reps[lead]
        offset, leader_leo = fr.leo, lr.leo
        expand = z3.And(z3.Not(lr.isr[f]), lr.alt == 0, self.is_caught_up_for_isr(lr, offset),
                        self.isr_eligible(s, f))
        pruned = z3.And(lr.remote[f] == offset, offset == leader_leo, zmin(offset, lr.hw) == fr.hw,
                        z3.Not(expand), self.fetch_is_current(lr, f))
        remote = [offset if j == f else lr.remote[j] for j in range(self.n)]
        lr2 = self.record_current_fetch(lr.but(remote=remote), f)
        larger = [z3.BoolVal(True) if j == f else lr.isr[j] for j in range(self.n)]
        proposed = self.propose_isr(lr2, larger)
        lr2 = SReplica(**{k: (ite(expand, getattr(proposed, k), getattr(lr2, k))
                              if not isinstance(getattr(lr2, k), list) else
                              [ite(expand, x, y) for x, y in zip(getattr(proposed, k), getattr(lr2, k))])
                          for k in lr2.__dataclass_fields__})
        nxt = self.maybe_increment_leader_hw(s.put(lead, lr2), lead)
        resp_b = fr.but(fr=z3.BoolVal(True), fr_leader=num.val(lead), fr_epoch=fr.lep,
                        fr_offset=offset, fr_id=list(lr.log_id), fr_ep=list(lr.log_ep),
                        fr_pe=list(lr.log_pe), fr_hw=nxt.reps[lead].hw, fr_leo=leader_leo)
        case_b = (z3.And(guard + [z3.Not(offset > leader_leo), z3.Not(pruned)]), nxt.put(f, resp_b))
        return [case_a, case_b]

    def _enc_ControllerHandleAlterPartition(self, s: SState, b: int) -> list:
        """The controller handles leader ``b``'s AlterPartition (the kernel's
        ``controller_handle_alter_partition``, ZooKeeper mode; ``KafkaController.processAlterIsr``
        at 2.7.0): from an older leader epoch FENCED_LEADER_EPOCH (the kernel also refuses a
        broker that is not the leader; in ZooKeeper mode only the leader of an epoch sends in
        it, so the epoch test already covers that); the ISR asked for already the partition's
        (``equalsIgnoreZk``): success; a stale ``zkVersion`` (the partition epoch)
        INVALID_UPDATE_VERSION (``zkClient.updateLeaderAndIsr``'s ``badVersionUpdates``). On
        either error ``Partition.handleAlterIsrResponse`` (2.7.0) gives up and leaves the state
        in flight until new metadata comes: stuck. Otherwise the new ISR is written (a new
        ``zkVersion``: ``commit``), with no new leader epoch and no LeaderAndIsr, and the answer
        carries it back."""
        if not self.alter:
            return []
        r = s.reps[b]
        fenced = z3.Or(r.alt_ep < s.c_epoch, s.c_leader != b)
        same = z3.And([r.alt_isr[j] == s.c_isr[j] for j in range(self.n)])
        base = [r.alt == ALTER_SENT]
        stuck = s.put(b, r.but(alt=num.val(ALTER_STUCK), alt_cur=z3.BoolVal(False)))
        accepted = r.but(alt=num.val(ALTER_ACCEPTED), alt_ep=s.c_epoch, alt_cur=z3.BoolVal(True))
        written = self.put_change(self.commit(s), s.c_epoch, r.alt_isr, s.c_live, at=b)
        written = written.put(b, written.reps[b].but(
            alt=num.val(ALTER_ACCEPTED), alt_ep=s.c_epoch, alt_cur=z3.BoolVal(True))).but(
            c_isr=list(r.alt_isr))
        written = self.elr_change(s, written, list(r.alt_isr), s.c_leader)  # KIP-966 (29l)
        written = self.recovered(written)
        # a stale partition epoch: ZooKeeper mode answers success if the ISR asked for is already
        # the partition's; KRaft has no such shortcut (``alterPartition`` at 3.3.0 answers
        # INVALID_UPDATE_VERSION whenever the partition epoch differs)
        stale_same = stuck if self.kraft else s.put(b, accepted)
        cases = [
            (z3.And(base + [fenced]), stuck),
            (z3.And(base + [z3.Not(fenced), z3.Not(r.alt_cur), same]), stale_same),
            (z3.And(base + [z3.Not(fenced), z3.Not(r.alt_cur), z3.Not(same)]), stuck),
            (z3.And(base + [z3.Not(fenced), r.alt_cur, same]), self.recovered(s.put(b, accepted))),
        ]
        if self.d.eligibility or self.d.fetch_epochs:  # KIP-841, KIP-903: INELIGIBLE_REPLICA,
            # before the ISR is compared
            eligible = self.members_eligible(s, r)
            refused = s.put(b, r.but(alt=num.val(ALTER_REFUSED), alt_cur=z3.BoolVal(False)))
            cases[3] = (z3.And(cases[3][0], eligible), cases[3][1])
            cases.append((z3.And(base + [z3.Not(fenced), r.alt_cur, z3.Not(eligible)]), refused))
            base = base + [eligible]
        write = base + [z3.Not(fenced), r.alt_cur, z3.Not(same)]
        if not self.d.shrink_bumps:
            return cases + [(z3.And(write), written)]
        shrink = z3.Or([z3.And(s.c_isr[j], z3.Not(r.alt_isr[j])) for j in range(self.n)])
        return cases + [(z3.And(write + [z3.Not(shrink)]), written),
                        (z3.And(write + [shrink, self.epoch_available(s)]),
                         self._shrink_with_new_leader_epoch(s, b))]

    def isr_eligible(self, s: SState, j: int):
        """May broker ``j`` join the ISR (rule ``isr-eligibility``, KIP-841, Kafka 3.3; the
        kernel's ``may_lead``)? The leader asks only for one the metadata has unfenced and not
        shutting down (``Partition.isReplicaIsrEligible`` at 3.3.0) and the controller refuses
        any other with INELIGIBLE_REPLICA (``ReplicationControlManager.ineligibleReplicasForIsr``
        at 3.3.0). Without controlled shutdowns and session expiries (fault bounds the encoding
        lacks) that is the controller's live set. True without the rule."""
        return self.may_lead(s, j) if self.d.eligibility else z3.BoolVal(True)

    def _shrink_with_new_leader_epoch(self, s: SState, b: int) -> SState:
        """The controller accepts leader ``b``'s AlterPartition that removes a replica from the
        ISR with a new leader epoch (rule ``alter-partition-shrink-bumps-leader-epoch``, Kafka
        3.3-3.5, issue 29f; the kernel's ``controller_handle_alter_partition``):
        ``PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded`` at 3.3.0 sets the record's
        leader (a new leader epoch) when the target ISR does not contain the current one, and
        ``ReplicationControlManager.alterPartition`` answers with the record's leader epoch. The
        new epoch goes to every live broker (a ``PartitionChangeRecord`` with a new leader epoch
        is a leader change, ``publish_leader_change``), and the leader, whose epoch is older
        than the answer's, ignores the answer until it applies the change (the kernel's
        ``leader_handle_alter_partition_response``). At the max-leader-epoch bound the change
        cannot be written: no step (the kernel's ``continue``). KAFKA-15021 (3.6,
        ``isr-shrink-keeps-leader-epoch``) drops the bump."""
        r = s.reps[b]
        epoch = s.c_epoch + 1
        nxt = self.send_leader_and_isr(self.commit(s), epoch, s.c_leader, list(r.alt_isr), s.c_live)
        nxt = nxt.put(b, nxt.reps[b].but(alt=num.val(ALTER_ACCEPTED), alt_ep=epoch,
                                         alt_cur=z3.BoolVal(True)))
        nxt = self.elr_change(s, nxt, list(r.alt_isr), s.c_leader)  # KIP-966 (issue 29l)
        return self.recovered(nxt.but(c_epoch=epoch, c_isr=list(r.alt_isr)))

    def _enc_LeaderHandleAlterPartitionResponse(self, s: SState, b: int) -> list:
        """The controller's answer reaches leader ``b`` (the kernel's
        ``leader_handle_alter_partition_response``; ``Partition.handleAlterIsrResponse`` at
        2.7.0): an answer for its leader epoch commits the ISR it carries, with its partition
        epoch; one for another epoch leaves it waiting for new metadata; a refusal takes it
        back to its ISR. Since 3.1 (``hw-on-alter-partition-answer``, KAFKA-13091:
        ``handleAlterIsrUpdate`` calls ``maybeIncrementLeaderHW`` at 3.1.0) the HW may move
        then (after a shrink, whose pending state still counted the removed follower)."""
        if not self.alter:
            return []
        r = s.reps[b]
        accepted = z3.And(r.alive, r.alt == ALTER_ACCEPTED)
        mine = r.alt_ep == r.lep
        done = self.clear_alter(r.but(isr=list(r.alt_isr)), pec=r.alt_cur)
        nxt = s.put(b, done)
        if self.d.hw_on_answer:
            nxt = self.maybe_increment_leader_hw(nxt, b)
        return [
            (z3.And(r.alive, r.alt == ALTER_REFUSED), s.put(b, self.clear_alter(r))),
            (z3.And(accepted, z3.Not(mine)),
             s.put(b, r.but(alt=num.val(ALTER_STUCK), alt_cur=z3.BoolVal(False)))),
            (z3.And(accepted, mine), nxt),
        ]

    # ------------------------------------------------------------------ the ELR (KIP-966, issue 29l)
    #
    # Kafka 4.1 (rule ``eligible-leader-replicas``): the KRaft controller keeps, beside the ISR,
    # the eligible leader replicas (ELR) and the last known leader
    # (``PartitionChangeBuilder.maybePopulateTargetElr`` and ``maybeUpdateLastKnownLeader``,
    # kafka-metadata 4.1.0; the mirror has no 4.x tag, so the rule table's 4.1 sources-jar
    # citations are the kernel's and this encoding's). The encoding is the compiled kernel's
    # (model/kernel/controller.py ``update_elr``, ``leader_candidates``, ``target_isr_without``,
    # ``write_partition``; model/kernel/actions/controller.py ``handle_unclean_shutdown``,
    # ``forget_unclean_member``; model/kernel/actions/leader.py ``leader_shrink_isr_set``). It
    # needs broker epochs (every KRaft release has them: a restart follows the controller's
    # handling of the failure) and no controlled shutdown (a fault bound the encoding lacks), so
    # every restart is an unclean shutdown: no broker has the clean-shutdown file. With ``kraft``
    # (issue 29n) the ISR removals follow KRaft (``shrink_without``) and an election from the last
    # known leader sets KIP-704's recovery (``recovering_after``).

    def elr_change(self, pre: SState, nxt: SState, new_isr: list, new_leader,
                   unclean=False) -> SState:
        """``nxt`` with the ELR and last known leader a partition change from ``pre`` to
        ``new_isr`` and ``new_leader`` leaves (the kernel's ``write_partition`` ->
        ``update_elr``). An unclean election (``unclean``, a Bool) clears both
        (``PartitionChangeBuilder.maybeUpdateRecordElr``: the winner's log is all there is). A
        change of the ISR or the leader recomputes them (``maybePopulateTargetElr``): with the
        new ISR at least min.insync.replicas both are empty; below it, every replica leaving the
        ISR joins the ELR and a member back in the ISR leaves it. The last known leader becomes
        the old leader when the ISR becomes empty (4.0, 4.1.0) or, with
        ``last-known-leader-when-leaderless`` (PR #20629, 4.1.1 and 4.2), when the change leaves
        the partition without a leader and none is recorded; it is cleared once the partition
        has a leader. Unchanged without the rule."""
        if not self.d.elr:
            return nxt
        n, F = self.n, z3.BoolVal(False)
        new_leader = num.val(new_leader) if isinstance(new_leader, int) else new_leader
        unclean = z3.BoolVal(unclean) if isinstance(unclean, bool) else unclean
        changed = z3.Or([new_isr[j] != pre.c_isr[j] for j in range(n)] + [new_leader != pre.c_leader])
        big = count(new_isr) >= self.d.min_isr
        elr = [ite(big, F, z3.And(z3.Or(pre.elr[j], pre.c_isr[j]), z3.Not(new_isr[j])))
               for j in range(n)]
        last = [ite(big, F, pre.lke[j]) for j in range(n)]
        old = pre.c_leader
        if self.d.leaderless:
            trigger = z3.And(new_leader == NO_LEADER, old != NO_LEADER, z3.Not(z3.Or(pre.lke)))
        else:
            trigger = z3.And(z3.Not(z3.Or(new_isr)), z3.Or(pre.c_isr), old != NO_LEADER)
        last = [z3.And(new_leader == NO_LEADER, ite(trigger, old == j, last[j])) for j in range(n)]
        elr = [ite(unclean, F, ite(changed, elr[j], pre.elr[j])) for j in range(n)]
        lke = [ite(unclean, F, ite(changed, last[j], pre.lke[j])) for j in range(n)]
        return nxt.but(elr=elr, lke=lke)

    def elect_with_elr(self, s: SState, target: list, live: list, exclude: int):
        """The kernel's ``leader_candidates`` under KIP-966, for every broker: ``(picks,
        from_isr, unclean)``, ``picks[c]`` that the election picks ``c``. In order
        (``PartitionChangeBuilder.electAnyLeader``, ``isValidNewLeader``, 4.1): a live member
        of the target ISR; if that ISR is empty, a live eligible leader replica; if the ELR is
        empty too and one last known leader is recorded, that one (``canElectLastKnownLeader``:
        3.7-4.0 take it even when it is fenced; KAFKA-19522, rule ``last-known-leader-check``,
        4.1, only when it may lead), an unclean election; then, where unclean election is
        allowed, any live replica. Each step takes the first candidate in assignment order.
        ``exclude`` is the broker being removed (-1 for none); ``live[c]`` that the controller
        has ``c`` live."""
        n, F = self.n, z3.BoolVal(False)
        ok = lambda c, mask: F if c == exclude else z3.And(mask[c], live[c])  # noqa: E731
        isr_mask = [ok(c, target) for c in range(n)]
        from_isr = z3.Or(isr_mask)
        picks = [self.first_in_assignment(s, isr_mask, c) for c in range(n)]
        empty = z3.Not(z3.Or(target))
        elr_mask = [ok(c, s.elr) for c in range(n)]
        from_elr = z3.And(z3.Not(from_isr), empty, z3.Or(elr_mask))
        picks = [z3.Or(picks[c], z3.And(from_elr, self.first_in_assignment(s, elr_mask, c)))
                 for c in range(n)]
        one = z3.PbEq([(x, 1) for x in s.lke], 1)
        lk = z3.And(z3.Not(from_isr), empty, z3.Not(z3.Or(s.elr)), one)
        lk_picks = [z3.And(lk, s.lke[c], ok(c, [z3.BoolVal(True)] * n)
                           if self.d.last_known_check else z3.BoolVal(True)) for c in range(n)]
        from_lk = z3.Or(lk_picks)
        picks = [z3.Or(picks[c], lk_picks[c]) for c in range(n)]
        unclean = from_lk
        if self.unclean:
            any_mask = [ok(c, [z3.BoolVal(True)] * n) for c in range(n)]
            rest = z3.And(z3.Not(from_isr), z3.Not(from_elr), z3.Not(from_lk))
            un_picks = [z3.And(rest, self.first_in_assignment(s, any_mask, c)) for c in range(n)]
            picks = [z3.Or(picks[c], un_picks[c]) for c in range(n)]
            unclean = z3.Or(unclean, z3.Or(un_picks))
        return picks, from_isr, unclean

    def _failure_with_elr(self, s: SState, b: int, new: int, running=False) -> list:
        """ControllerHandleBrokerFailure under KIP-966 (the kernel's ``controller_remove_broker``
        with ``target_isr_without``): ``b`` leaves the ISR even as its last member
        (``PartitionChangeBuilder`` may write an empty ISR with the ELR on). If it led, the
        election (``elect_with_elr``) picks ``new`` or nobody; a winner from the ELR or the last
        known leader gets the ISR ``[new]``; the ELR follows the change (``elr_change``).
        Otherwise a follower in the ISR leaves it (``shrink_without``: a new leader epoch in
        ZooKeeper mode and KRaft 3.3-3.5, a pending change to the leader since 3.6), or only the
        live set changes. Under ``kraft`` a winner from the last known leader (or an unclean
        one) is RECOVERING (KIP-704, ``recovering_after``; issue 29n)."""
        n = self.n
        base = [s.c_live[b], self.down_or_running(s, b, running)]
        live = [z3.BoolVal(False) if j == b else s.c_live[j] for j in range(n)]
        target = [z3.BoolVal(False) if j == b else s.c_isr[j] for j in range(n)]
        epoch = s.c_epoch + 1
        picks, from_isr, unclean = self.elect_with_elr(s, target, self.leadable(s, s.c_live), b)
        if new >= 0:
            chosen = picks[new]
            c_isr = [ite(from_isr, target[j], z3.BoolVal(j == new)) for j in range(n)]
        else:
            chosen = z3.Not(z3.Or(picks))
            c_isr, unclean = target, z3.BoolVal(False)
        nxt = self.send_leader_and_isr(self.commit(s), epoch, num.val(new), c_isr, live)
        nxt = self.elr_change(s, nxt, c_isr, num.val(new), unclean).but(
            c_leader=num.val(new), c_epoch=epoch, c_isr=c_isr, c_live=live)
        nxt = self.recovering_after(nxt, unclean)  # KIP-704 under kraft (issue 29n)
        out = [(z3.And(base + [s.c_leader == b, self.epoch_available(s), chosen]), nxt)]
        follower = base + [s.c_leader != b, s.c_leader == new]
        nxt2, may = self.shrink_without(s, s, target, live)
        out.append((z3.And(follower + [s.c_isr[b], may]), nxt2))
        out.append((z3.And(follower + [z3.Not(s.c_isr[b])]), s.but(c_live=live)))
        return out

    def shrink_without(self, s: SState, h: SState, target: list, live: list):
        """The controller's record that takes a broker out of the ISR while the leader stays
        (the kernel's ``controller_remove_broker`` and ``handle_unclean_shutdown`` ->
        ``write_partition``), from the controller's state in ``s`` onto ``h`` (``s`` itself, or
        ``s`` with a restarting broker running): ``(next state, guard)``. ZooKeeper mode and
        KRaft before 3.6 make a new leader epoch, sent to the live brokers as LeaderAndIsr, so
        the max-leader-epoch bound applies (``KafkaController.removeReplicasFromIsr`` at 2.1.0;
        ``PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded`` at 3.3.0, an ISR that loses
        a member). KRaft since 3.6 (``isr-shrink-keeps-leader-epoch``, KAFKA-15021; the
        kernel's ``isr_shrink_bumps_epoch``) keeps the leader epoch: only the partition epoch
        moves and the record reaches the leader, if live and running, as a pending change
        (``put_change``; ``ReplicaManager.applyLocalLeadersDelta`` at 3.6.0), with no bound.
        The ELR follows the new ISR (``elr_change``). Issue 29n: the ELR's paths with
        ``kraft``."""
        if self.kraft and self.d.shrink_keeps:
            nxt = self.put_change(self.commit(h), s.c_epoch, target, live)
            return (self.elr_change(s, nxt, target, s.c_leader).but(c_isr=target, c_live=live),
                    z3.BoolVal(True))
        epoch = s.c_epoch + 1
        nxt = self.send_leader_and_isr(self.commit(h), epoch, s.c_leader, target, live)
        return (self.elr_change(s, nxt, target, s.c_leader).but(c_epoch=epoch, c_isr=target,
                                                                c_live=live),
                self.epoch_available(s))

    def _restart_with_elr(self, s: SState, b: int) -> list:
        """BrokerRestart under KIP-966 (the kernel's ``broker_restart``): ``b`` comes back
        without the clean-shutdown file (with one, left by a controlled shutdown, it skips what follows and only registers: issue 29ac), so before it registers
        the controller takes it out of the ISR and the ELR
        (``ReplicationControlManager.handleBrokerUncleanShutdown``, 4.1; the kernel's
        ``handle_unclean_shutdown``): out of the ISR (``shrink_without``: with a new leader
        epoch to every live broker, no step at the epoch bound, where the shrink makes one; under
        KRaft 3.6+ a pending change to the leader, issue 29n), or out of the ELR alone by a record
        that keeps the leader epoch (``write_elr_change``, issue 29ad). Then it registers
        (``controller_register_broker``): a leaderless partition elects with ``b`` live (``elect_with_elr``: ``b`` no longer in the ELR, it can win from
        the ISR, as the last known leader, or uncleanly), else ``b`` is sent the current state.
        With broker epochs (required) a restart follows ControllerHandleBrokerFailure, so ``b``
        is not in the controller's live set."""
        n, F = self.n, z3.BoolVal(False)
        r = s.reps[b]
        h = s.put(b, self.restarted(
            r.but(alive=z3.BoolVal(True), flushed=r.leo if self.power_loss else num.val(0))))
        h = self.new_incarnation(h, b)  # KIP-903 (issue 29h), as on the plain restart
        guard = [z3.Not(r.alive), z3.Not(s.c_live[b])]
        kept = h.but(elr=[z3.And(s.elr[j], s.c_isr[j]) if j == b else s.elr[j] for j in range(n)])
        target = [F if j == b else s.c_isr[j] for j in range(n)]
        # out of the ISR: a new leader epoch, or under KRaft 3.6+ a change to the leader
        # (``shrink_without``; issue 29n)
        out_of_isr, may = self.shrink_without(s, h, target, s.c_live)
        bump = z3.And(s.c_isr[b], may)
        out_of_isr = out_of_isr.but(elr=[F if j == b else out_of_isr.elr[j] for j in range(n)])
        # in the ELR only: a record that changes only the ELR still bumps the partition epoch
        # and reaches the leader as a change (the kernel's ``write_elr_change``, issue 29ad)
        elr_only = z3.And(s.elr[b], z3.Not(s.c_isr[b]))
        elr_record = self.put_change(self.commit(kept), s.c_epoch, s.c_isr, s.c_live)
        # the record also elects (the kernel's ``unclean_shutdown_election``, issue 29ae)
        elections, no_election = self._unclean_shutdown_elections(s, kept, b, target)
        out = []
        handlings = [(z3.And(no_election, z3.Not(bump), z3.Not(elr_only)), kept),
                     (z3.And(no_election, z3.Not(bump), elr_only), elr_record),
                     (z3.And(no_election, bump), out_of_isr)] + elections
        if self.d.shutdowns:  # issue 29ac: a clean-shutdown file, so no unclean handling
            handlings = [(z3.And(z3.Not(r.clean), g), hh) for g, hh in handlings] + [(r.clean, h)]
        for handled, hh in handlings:
            out += self.register_with_elr(hh, b, guard + [handled])
        return out

    def _unclean_shutdown_elections(self, s: SState, kept: SState, b: int, target: list):
        """The election in the record that handles ``b``'s unclean shutdown (the kernel's
        ``unclean_shutdown_election`` and ``handle_unclean_shutdown``; Kafka's
        ``ReplicationControlManager.generateLeaderAndIsrUpdates`` with
        ``brokerWithUncleanShutdown``, whose ``PartitionChangeBuilder.build`` runs
        ``tryElection``: kafka-metadata 4.1.0-sources.jar; issue 29ae). It runs when ``b`` is in
        the ISR or the ELR, the leader is not valid (none, ``b`` itself, or not an acceptable
        member of the target ISR: ``isValidNewLeader(partition.leader)``) and a leader epoch is
        left: ``elect_with_elr`` on ``kept`` (the ELR without ``b``), ``b`` never acceptable
        (but, without ``last-known-leader-check``, 3.7-4.0, elected as the last known leader).
        Returns ``(cases, no_election)``: one ``(guard, state before registering)`` per winner,
        plus the partition left leaderless when a leader that is not valid has no successor;
        ``no_election`` guards the records that elect nobody (ISR, ELR-only, none)."""
        n, F = self.n, z3.BoolVal(False)
        may = self.leadable(kept, s.c_live)
        valid = z3.Or([z3.And(s.c_leader == j, target[j], may[j]) for j in range(n) if j != b])
        runs = z3.And(z3.Or(s.c_isr[b], s.elr[b]), z3.Not(valid), self.epoch_available(s))
        picks, from_isr, unclean = self.elect_with_elr(kept, target, may, b)
        epoch = s.c_epoch + 1
        out = []
        for c in range(n):  # (``b`` too: without KAFKA-19522's check, as the last known leader)
            isr = [ite(from_isr, target[j], z3.BoolVal(j == c)) for j in range(n)]
            nxt = self.send_leader_and_isr(self.commit(kept), epoch, num.val(c), isr, s.c_live)
            nxt = self.elr_change(kept, nxt, isr, num.val(c), unclean).but(
                c_leader=num.val(c), c_epoch=epoch, c_isr=isr)
            nxt = self.recovering_after(nxt, unclean)
            nxt = nxt.but(elr=[F if j == b else nxt.elr[j] for j in range(n)])
            out.append((z3.And(runs, picks[c]), nxt))
        nobody = z3.Not(z3.Or(picks))
        lost = self.send_leader_and_isr(self.commit(kept), epoch, num.val(NO_LEADER), target,
                                        s.c_live)
        lost = self.elr_change(kept, lost, target, num.val(NO_LEADER)).but(
            c_leader=num.val(NO_LEADER), c_epoch=epoch, c_isr=target)
        lost = lost.but(elr=[F if j == b else lost.elr[j] for j in range(n)])
        out.append((z3.And(runs, nobody, s.c_leader != NO_LEADER), lost))
        return out, z3.Not(z3.And(runs, z3.Or(z3.Not(nobody), s.c_leader != NO_LEADER)))

    def register_with_elr(self, hh: SState, b: int, guard: list) -> list:
        """``register_broker`` under KIP-966 (the kernel's ``controller_register_broker``), on
        ``hh`` (the state with ``b`` running and its unclean shutdown handled, if any): a
        leaderless partition elects with ``b`` live (``elect_with_elr``), else ``b`` is sent the
        current state. ``guard`` is the case's. Shared by BrokerRestart and
        ControllerUnfenceBroker (issue 29ac)."""
        n = self.n
        new_live = [z3.BoolVal(True) if j == b else hh.c_live[j] for j in range(n)]
        picks, from_isr, unclean = self.elect_with_elr(hh, hh.c_isr, self.leadable(hh, new_live), -1)
        won = z3.And(hh.c_leader == NO_LEADER, self.epoch_available(hh), picks[b])
        isr = [ite(from_isr, hh.c_isr[j], z3.BoolVal(j == b)) for j in range(n)]
        epoch = hh.c_epoch + 1
        elected = self.send_leader_and_isr(self.commit(hh), epoch, num.val(b), isr, new_live)
        elected = self.elr_change(hh, elected, isr, num.val(b), unclean).but(
            c_leader=num.val(b), c_epoch=epoch, c_isr=isr, c_live=new_live)
        elected = self.recovering_after(elected, unclean)  # KIP-704 under kraft (29n)
        only_b = [z3.BoolVal(j == b) for j in range(n)]
        plain = self.send_leader_and_isr(hh.but(c_live=new_live), hh.c_epoch, hh.c_leader,
                                         hh.c_isr, only_b)
        # KRaft: a leader at the current epoch also gets the latest change (the kernel's
        # ``controller_register_broker``; never ``b`` here, whose failure was handled)
        plain = self.put_change(plain, hh.c_epoch, hh.c_isr, only_b)
        return [(z3.And(guard + [won]), elected), (z3.And(guard + [z3.Not(won)]), plain)]

    def _enc_LeaderShrinkIsrSet(self, s: SState, b: int, removed: int) -> list:
        """LeaderShrinkIsrSet(leader, followers) (rule ``isr-shrink-out-of-sync-set``, 4.0; the
        kernel's ``leader_shrink_isr_set``): ``Partition.maybeShrinkIsr`` proposes the ISR
        without every out-of-sync follower (``getOutOfSyncReplicas``) in one AlterPartition.
        kmc writes the step only where one-follower steps differ under the ELR: two or more
        lagging followers whose removal takes an ISR whose first one-follower shrink stays at
        min.insync.replicas or more below it (each removed one then joins the ELR). Same guards
        as LeaderShrinkIsr under KIP-497; the HW still counts the whole old ISR while pending."""
        members = [j for j in range(self.n) if removed >> j & 1]
        if not (self.d.shrink_set and self.d.elr and self.alter) or len(members) < 2 or b in members:
            return []
        r = s.reps[b]
        need = self.d.min_isr
        smaller = [z3.And(r.isr[j], z3.BoolVal(j not in members)) for j in range(self.n)]
        guard = [r.alive, r.leader == b, count(r.isr) - 1 >= need, r.alt == 0,
                 count(smaller) < need]
        for f in members:
            guard += [r.isr[f], r.remote[f] < r.leo]
            if self.timed_shrink:  # replica.lag.time.max.ms, as in _enc_LeaderShrinkIsr
                rf = s.reps[f]
                guard.append(z3.Or([z3.Not(rf.alive), rf.leader != b, rf.lep != r.lep]
                                   + self.shutting_down(rf)))
        return [(z3.And(guard), s.put(b, self.propose_isr(r, smaller)))]

    # ------------------------------------------------------------------ KRaft's metadata log (KIP-500/631, issue 29m)
    #
    # Kafka 3.3 (rule ``kraft``): the controller is a Raft quorum and the partition's state a
    # ``PartitionRegistration`` in one metadata log; every change is a ``PartitionChangeRecord``
    # (``PartitionChangeBuilder.build`` at 3.3.0) that moves the partition epoch, and brokers
    # apply the log in order (``BrokerMetadataListener`` -> ``ReplicaManager.applyDelta`` at
    # 3.3.0). The encoding is the compiled kernel's (model/kernel/controller.py ``write_partition``,
    # ``commit``, ``controller_register_broker``; actions/broker.py
    # ``broker_apply_partition_change``; transitions.py ``finish``): a record with a new leader
    # epoch travels in the LeaderAndIsr slots (a lagging broker applies the newest, as one delta
    # does), one that keeps the leader epoch goes to the leader as a *change* (the newest
    # replacing an older), and the Raft log itself is abstracted as one linearizable log.

    def put_change(self, s: SState, epoch, isr: list, live: list, at=None) -> SState:
        """The kernel's ``put_change`` from ``write_partition``: a ``PartitionChangeRecord`` that
        keeps the leader epoch reaches the leader (broker ``at``, or the controller's leader of
        ``s``) if it is live in ``live`` and running, replacing a change it has not applied yet.
        Every broker applies the record in Kafka, but only the leader acts on an ISR change
        (``ReplicaManager.applyLocalLeadersDelta`` -> ``Partition.makeLeader`` at 3.3.0; a
        follower's ``makeFollower`` sees only the partition epoch move), so the kernel sends it
        to the leader alone. No-op without ``kraft``."""
        if not self.kraft:
            return s
        reps = []
        for b, r in enumerate(s.reps):
            leads = (z3.BoolVal(at == b) if at is not None else s.c_leader == b)
            hit = z3.And(leads, live[b], r.alive)
            if z3.is_false(z3.simplify(hit)):
                reps.append(r)
                continue
            reps.append(r.but(chg=z3.Or(r.chg, hit), chg_isr=[ite(hit, x, y) for x, y in zip(isr, r.chg_isr)],
                              chg_ep=ite(hit, epoch, r.chg_ep),
                              chg_cur=z3.Or(r.chg_cur, hit)))
        return s.but(reps=reps)

    def clear_change(self, r: SReplica, cond=True) -> SReplica:
        """No pending change (the kernel's ``clear_change``: every field zeroed), if ``cond``."""
        if not self.kraft:
            return r
        F = z3.BoolVal(False)
        return r.but(chg=ite(cond, F, r.chg), chg_isr=[ite(cond, F, x) for x in r.chg_isr],
                     chg_ep=ite(cond, num.val(0), r.chg_ep), chg_cur=ite(cond, F, r.chg_cur))

    def drop_superseded_changes(self, s: SState) -> SState:
        """The kernel's ``finish`` under ``kraft``: a pending change of an older leader epoch
        than the broker's is superseded (the record of the newer leader epoch already carried
        the partition's state: ``ReplicaManager.applyDelta`` applies the newest registration)."""
        if not self.kraft:
            return s
        return s.but(reps=[self.clear_change(r, z3.And(r.chg, r.chg_ep < r.lep)) for r in s.reps])

    def recovered(self, s: SState) -> SState:
        """An accepted AlterPartition ends KIP-704's leader recovery (the kernel's
        ``controller_handle_alter_partition``: ``PartitionChangeBuilder`` at 3.3.0 writes
        ``LeaderRecoveryState.RECOVERED`` with the leader's first ISR change after an unclean
        election)."""
        return s.but(recovering=z3.BoolVal(False)) if self.kraft else s

    def recovering_after(self, s: SState, unclean) -> SState:
        """KIP-704: an unclean election under KRaft marks the leader RECOVERING (the kernel's
        ``write_partition``; ``PartitionChangeBuilder.tryElection`` at 3.3.0 sets
        ``LeaderRecoveryState.RECOVERING`` when the new leader is not from the ISR)."""
        if not self.kraft:
            return s
        return s.but(recovering=z3.Or(s.recovering, unclean))

    def _enc_BrokerApplyPartitionChange(self, s: SState, b: int) -> list:
        """A broker applies the ``PartitionChangeRecord`` that keeps its leader epoch (the
        kernel's ``broker_apply_partition_change``; ``ReplicaManager.applyDelta`` ->
        ``applyLocalLeadersDelta`` -> ``Partition.makeLeader`` at 3.3.0, which takes the new ISR
        and partition epoch (``updateAssignmentAndIsr``: ``CommittedPartitionState``, dropping a
        pending AlterPartition) and may advance the HW (``maybeIncrementLeaderHW``)). Only once
        the broker has the record's leader epoch (the record of that epoch comes first in the
        log). A follower only takes the partition epoch."""
        if not self.kraft:
            return []
        r = s.reps[b]
        guard = z3.And(r.alive, r.chg, r.chg_ep == r.lep)
        done = self.clear_change(r)
        if self.alter:
            done = done.but(pec=r.chg_cur)
        follower = s.put(b, done)
        led = self.clear_alter(done.but(isr=list(r.chg_isr)))
        leader = self.maybe_increment_leader_hw(s.put(b, led), b)
        return [(z3.And(guard, r.leader == b), leader),
                (z3.And(guard, r.leader != b), follower)]

    def _reassign_by_record(self, s: SState, order: tuple) -> list:
        """ControllerReassignReplicas under KRaft (the kernel's ``controller_reassign_replicas``):
        ``ReplicationControlManager.alterPartitionReassignments`` -> ``PartitionChangeBuilder``
        at 3.3.0 with target replicas that contain the old ones, so
        ``triggerLeaderEpochBumpIfNeeded`` leaves the leader epoch alone and the current leader
        stays (``electAnyLeader``): one record that moves only the partition epoch (any pending
        AlterPartition is now stale) and reaches the leader, if live and running, as a change.
        No leader or epoch bound is needed (the ZooKeeper controller's new leader epoch is not
        made)."""
        already = z3.And([s.rank[b] == i for i, b in enumerate(order)])
        guard = [s.reass < self.max_reassign, z3.Not(already)]
        nxt = self.put_change(self.commit(s), s.c_epoch, s.c_isr, s.c_live)
        rank = [num.val(order.index(b)) for b in range(self.n)]
        return [(z3.And(guard), nxt.but(rank=rank, reass=s.reass + 1))]

    # ------------------------------------------------------------------ fencing (issue 29h)
    #
    # KIP-903 (Kafka 3.5, rule ``broker-epoch-in-fetch``): a follower's fetch carries its broker
    # epoch (``FetchRequest.json`` ReplicaEpoch, version 15), the leader stores it with the
    # follower's fetch state (``Replica.updateFetchStateOrThrow`` -> ``ReplicaState.brokerEpoch``
    # at 3.5.0) and sends it with every member of a proposed ISR (``Partition.
    # prepareIsrExpand`` / ``addBrokerEpochToIsr`` at 3.5.0); the controller refuses an ISR
    # whose member's epoch is not the registered one (``ReplicationControlManager.
    # ineligibleReplicasForIsr`` at 3.5.0: "broker epoch mismatch", INELIGIBLE_REPLICA). The
    # kernel keeps a bit where Kafka keeps the number: the leader's ``remote_current`` per
    # follower and the request's ``member_epoch_current`` for the member it adds (model/kernel/
    # actions/broker.py ``new_incarnation``, controller.py ``members_eligible``). Every fresh
    # fetch comes from the follower's current incarnation, so the bits go false only on a
    # restart, or on a fetch held up in flight from before one (``--max-delayed-fetches``,
    # issue 29z, the block "delayed fetches" below), where KAFKA-15221's
    # ``stale-fetch-rejected`` (3.7, ``Replica.updateFetchStateOrThrow`` throws on a fetch whose
    # broker epoch is older than the cached one) acts; without that bound it changes nothing.
    #
    # KAFKA-15583 (Kafka 3.7, rule ``hw-needs-min-isr``): ``Partition.maybeIncrementLeaderHW``
    # returns at once while ``isUnderMinIsr`` (the committed ISR smaller than
    # min.insync.replicas) at 3.7.0, not at 3.6.0.

    def hw_may_advance(self, r: SReplica):
        """May leader ``r``'s HW move (the kernel's ``maybe_increment_leader_hw``)? Under
        ``hw-needs-min-isr`` only while its committed ISR (not the maximal one: ``isUnderMinIsr``
        reads ``partitionState.isr`` at 3.7.0) has min.insync.replicas members; parked acks=all
        requests wait with it (``DelayedProduce.tryComplete`` runs only on a new HW)."""
        if not self.d.hw_min_isr:
            return z3.BoolVal(True)
        return count(r.isr) >= self.min_isr

    def fetch_is_current(self, lr: SReplica, f: int):
        """Leader ``lr``'s last fetch from ``f`` came from ``f``'s current incarnation (True
        without ``broker-epoch-in-fetch``): a fetch that would change nothing else still records
        the current broker epoch, so the kernel prunes it only when this holds
        (``leader_handle_fetch``)."""
        return lr.rcur[f] if self.d.fetch_epochs else z3.BoolVal(True)

    def record_current_fetch(self, lr: SReplica, f: int) -> SReplica:
        """A fetch from ``f``'s current incarnation reached leader ``lr`` (``set_remote_current``
        in the kernel's ``leader_handle_fetch``): the broker epoch it stores is the current one."""
        if not self.d.fetch_epochs:
            return lr
        return lr.but(rcur=[z3.BoolVal(True) if j == f else lr.rcur[j] for j in range(self.n)])

    def new_incarnation(self, s: SState, b: int) -> SState:
        """Broker ``b`` restarts and registers with a new broker epoch (the kernel's
        ``new_incarnation``; KIP-903 at 3.5.0: ``BrokerRegistration.epoch`` is the offset of
        its ``RegisterBrokerRecord``, new on every registration): every leader's stored epoch
        for ``b`` is stale, and so is a pending AlterPartition that adds ``b`` (in any state:
        the kernel's ``alter_in_flight``)."""
        if not self.d.fetch_epochs:
            return s
        reps = list(s.reps)
        for l in range(self.n):
            r = reps[l]
            adds_b = z3.And(r.alt != 0, r.alt_isr[b], z3.Not(r.isr[b]))
            rcur = [z3.BoolVal(False) if j == b else r.rcur[j] for j in range(self.n)]
            reps[l] = r.but(rcur=rcur, alt_mcur=z3.And(r.alt_mcur, z3.Not(adds_b)))
        if self.d.delayed:  # b's fetch still in flight now carries a stale broker epoch (29z)
            reps[b] = reps[b].but(dreq_cur=z3.BoolVal(False))
        return s.but(reps=reps)

    def members_eligible(self, s: SState, r: SReplica):
        """May every member of leader ``r``'s proposed ISR be in it (the kernel's
        ``members_eligible``)? KIP-841 (``isr-eligibility``): each is in the controller's live set
        (``isr_eligible``); KIP-903 (``broker-epoch-in-fetch``): the broker epoch the leader sent
        for the member it adds is the registered one. Else INELIGIBLE_REPLICA, checked after the
        epochs and before the ISR is compared."""
        out = [z3.Implies(r.alt_isr[j], self.isr_eligible(s, j)) for j in range(self.n)]
        if self.d.fetch_epochs:
            out.append(r.alt_mcur)
        return z3.And(out)

    # ------------------------------------------------------------------ delayed fetches (issue 29z)
    #
    # ``--max-delayed-fetches``: a follower's fetch request is held up on its way (or parked in
    # the leader's fetch purgatory, ``DelayedFetch``) while the follower moves on: it fetches
    # again, truncates, crashes, restarts. The leader handles the old request later, on evidence
    # that may be stale: ``Partition.updateFollowerFetchState`` records its fetch offset as the
    # follower's LEO and ``maybeExpandIsr`` may add the follower to the ISR (2.1.0, and
    # ``Partition.fetchRecords`` -> ``updateFollowerFetchState`` at 3.5.0). The encoding is the
    # compiled kernel's (model/kernel/actions/faults.py ``fetch_delayed``, leader.py
    # ``leader_handle_delayed_fetch``, broker.py ``new_incarnation``): one request per follower,
    # a counter against the bound, and the answer goes nowhere (the follower no longer waits for
    # it: ``FollowerHandleFetchResponse`` never sees it). What refuses it: a broker that no
    # longer leads (NOT_LEADER_OR_FOLLOWER), KIP-320's epoch check (2.1, FENCED_LEADER_EPOCH /
    # UNKNOWN_LEADER_EPOCH), and since KAFKA-15221 (rule ``stale-fetch-rejected``, 3.7.0:
    # ``Replica.updateFetchStateOrThrow`` throws NOT_LEADER_OR_FOLLOWER when the request's
    # broker epoch is older than the one the leader stored) a request from an earlier
    # incarnation of its sender; KIP-903 (``broker-epoch-in-fetch``, 3.5.0:
    # ``Partition.isBrokerEpochIsrEligible``) already keeps such a request from adding the
    # follower to the ISR.

    def may_fetch(self, s: SState, f: int):
        """Does follower ``f`` fetch from the leader it believes in now (the kernel's
        ``may_fetch``)? It runs, follows another broker, is done truncating and has no response
        on its way."""
        r = s.reps[f]
        return z3.And([r.alive, r.leader >= 0, r.leader != f, z3.Not(r.truncating), z3.Not(r.fr)]
                      + self.not_shutting_down(r))

    def _enc_FetchDelayed(self, s: SState, f: int) -> list:
        """FetchDelayed(follower): ``f``'s fetch, as it would send it now (to its leader, in its
        leader epoch, from its LEO, from its current incarnation), is held up in flight; at most
        one per follower, bounded by max-delayed-fetches (the kernel's ``fetch_delayed``, which
        does not run ``finish``: nothing the controller or a leader holds changes)."""
        if not self.d.delayed:
            return []
        r = s.reps[f]
        guard = [self.may_fetch(s, f), z3.Not(r.dreq)]
        if self.bounded:
            guard.append(s.delayed < self.d.delayed)
        held = r.but(dreq=z3.BoolVal(True), dreq_leader=r.leader, dreq_epoch=r.lep,
                     dreq_offset=r.leo, dreq_cur=z3.BoolVal(True))
        return [(z3.And(guard), s.put(f, held).but(delayed=s.delayed + 1))]

    def _enc_LeaderHandleDelayedFetch(self, s: SState, f: int) -> list:
        """LeaderHandleDelayedFetch(follower): the leader ``f``'s held request was sent to
        handles it (the kernel's ``leader_handle_delayed_fetch``): unless refused (see above) or
        out of range (an offset past its LEO records nothing), it records the request's offset
        as ``f``'s LEO and, under KIP-903, the request's broker epoch as ``f``'s (current or
        not), may add ``f`` to the ISR on that evidence (``delayed_expand``) and advance its HW.
        The request is gone either way."""
        if not self.d.delayed:
            return []
        r = s.reps[f]
        off = r.dreq_offset
        gone = s.put(f, r.but(dreq=z3.BoolVal(False), dreq_leader=num.val(0),
                              dreq_epoch=num.val(0), dreq_offset=num.val(0),
                              dreq_cur=z3.BoolVal(False)))
        out = []
        for l in range(self.n):
            if l == f:
                continue  # never sent to itself (``may_fetch``; ``well_formed``)
            lr = gone.reps[l]
            sent_to_l = z3.And(r.dreq, r.dreq_leader == l)
            refused = z3.Not(z3.And(lr.alive, lr.leader == l))
            if self.fenced:
                refused = z3.Or(refused, r.dreq_epoch != lr.lep)
            if self.d.stale_rejected:  # KAFKA-15221 (3.7)
                refused = z3.Or(refused, z3.Not(r.dreq_cur))
            applies = z3.And(z3.Not(refused), off <= lr.leo)
            remote = [off if j == f else lr.remote[j] for j in range(self.n)]
            lr2 = lr.but(remote=remote)
            if self.d.fetch_epochs:
                lr2 = lr2.but(rcur=[r.dreq_cur if j == f else lr.rcur[j] for j in range(self.n)])
            nxt = self.delayed_expand(gone.put(l, lr2), l, f, off, r.dreq_cur)
            nxt = self.maybe_increment_leader_hw(nxt, l)
            out += [(z3.And(sent_to_l, z3.Not(applies)), gone), (z3.And(sent_to_l, applies), nxt)]
        return out

    def delayed_expand(self, s: SState, l: int, f: int, offset, current) -> SState:
        """The kernel's ``maybe_expand_isr`` on a delayed fetch from ``f`` at ``offset`` (now
        ``f``'s remote LEO on leader ``l``): the same test as on a fresh fetch (in sync: the HW
        and, since KAFKA-7128, the epoch's start; no change pending; KIP-841's eligibility),
        and under KIP-903 only if the request came from ``f``'s current incarnation
        (``current``), which the AlterPartition then carries as the member's broker epoch. None
        under ``isr-expansion-as-own-step`` (kmc 0.1: LeaderExpandIsr reads the remote LEO)."""
        if not self.expand_isr_on_fetch:
            return s
        lr = s.reps[l]
        caught_up = self.is_caught_up_for_isr(lr, offset)
        if not self.alter:
            expand = z3.And(z3.Not(lr.isr[f]), self._isr_change_allowed(s, l, lr), caught_up)
            isr = [z3.Or(lr.isr[j], expand) if j == f else lr.isr[j] for j in range(self.n)]
            c_isr = [z3.Or(s.c_isr[j], expand) if j == f else s.c_isr[j] for j in range(self.n)]
            return s.put(l, lr.but(isr=isr)).but(c_isr=c_isr)
        expand = z3.And(z3.Not(lr.isr[f]), lr.alt == 0, caught_up, self.isr_eligible(s, f))
        if self.d.fetch_epochs:
            expand = z3.And(expand, current)
        larger = [z3.BoolVal(True) if j == f else lr.isr[j] for j in range(self.n)]
        proposed = self.propose_isr(lr, larger)
        if self.d.fetch_epochs:
            proposed = proposed.but(alt_mcur=current)
        lr2 = SReplica(**{k: (ite(expand, getattr(proposed, k), getattr(lr, k))
                              if not isinstance(getattr(lr, k), list) else
                              [ite(expand, x, y) for x, y in zip(getattr(proposed, k), getattr(lr, k))])
                          for k in lr.__dataclass_fields__})
        return s.put(l, lr2)

    # ------------------------------------------------------------------ controlled shutdown and session expiry (issue 29ac)
    #
    # ``--max-controlled-shutdowns``: a broker asks the controller to stop
    # (``controlled.shutdown.enable``); the controller moves its leadership away and takes it out
    # of the ISR, and marks it shutting down, which keeps it out of every election and of the ISR
    # (``ControllerContext.shuttingDownBrokerIds`` at 2.1.0, ``KafkaController.
    # doControlledShutdown``; KRaft ``ReplicationControlManager.handleBrokerInControlledShutdown``
    # and ``ClusterControlManager.isActive`` at 3.3.0, KIP-841), and it stops its fetchers
    # (ZooKeeper's StopReplica; KRaft ``ReplicaManager.applyLocalFollowersDelta``). It then stops
    # cleanly (BrokerShutdown): log flushed, HW checkpointed and, under KIP-966, the clean-shutdown
    # file written (``LogManager`` at 4.1, read by ``handleBrokerUncleanShutdown`` on the next
    # registration). ``--max-session-expiries``: the controller loses a broker that still runs
    # (its ZooKeeper session expires, KRaft heartbeats stop) and removes it as it removes a failed
    # one (ControllerFenceBroker), until it registers or heartbeats again
    # (ControllerUnfenceBroker). The encoding is the compiled kernel's (model/kernel/actions/
    # controller.py ``controller_handle_controlled_shutdown``, ``controller_unfence_broker``;
    # broker.py ``broker_shutdown``, ``stop_broker``, ``broker_restart``; faults.py
    # ``controller_fence_broker``; controller.py ``may_lead``; follower.py ``may_fetch``;
    # transitions.py ``may_stay_behind``, since issue 29al).

    def shutting_down(self, r: SReplica) -> list:
        """``[r.sd]`` under controlled shutdowns, else ``[]`` (a disjunct for the guards)."""
        return [r.sd] if self.d.shutdowns else []

    def not_shutting_down(self, r: SReplica) -> list:
        """``[Not(r.sd)]`` under controlled shutdowns, else ``[]``: a broker in a controlled
        shutdown has stopped its fetchers (the kernel's ``may_fetch``)."""
        return [z3.Not(r.sd)] if self.d.shutdowns else []

    def may_lead(self, s: SState, j: int):
        """The kernel's ``may_lead``: live in the controller's view and not in a controlled
        shutdown (``ControllerContext.liveBrokerIds`` leaves out ``shuttingDownBrokerIds`` at
        2.1.0; KRaft ``ClusterControlManager.isActive`` at 3.3.0)."""
        return self.leadable(s, s.c_live)[j]

    def leadable(self, s: SState, live: list) -> list:
        """``live`` (one Bool per broker) without the brokers ``s`` has shutting down."""
        if not self.d.shutdowns:
            return list(live)
        return [z3.And(live[j], z3.Not(s.reps[j].sd)) for j in range(self.n)]

    def down_or_running(self, s: SState, b: int, running: bool):
        """The guard on ``b`` of a removal: dead (ControllerHandleBrokerFailure) or still running
        (ControllerFenceBroker)."""
        return s.reps[b].alive if running else z3.Not(s.reps[b].alive)

    def done_shutting_down(self, cases: list, b: int, running: bool) -> list:
        """ControllerHandleBrokerFailure ends ``b``'s controlled shutdown (the kernel's
        ``controller_handle_broker_failure``: ``KafkaController.onBrokerFailure`` at 2.1.0 removes
        it from ``shuttingDownBrokerIds``); a fence does not."""
        if running or not self.d.shutdowns:
            return cases
        return [(g, nxt.put(b, nxt.reps[b].but(sd=z3.BoolVal(False)))) for g, nxt in cases]

    def restarted(self, r: SReplica) -> SReplica:
        """A restarting broker is not shutting down, and its clean-shutdown file is read once
        (the kernel's ``broker_restart``)."""
        if not self.d.shutdowns:
            return r
        return r.but(sd=z3.BoolVal(False), clean=z3.BoolVal(False))

    def _enc_ControllerHandleControlledShutdown(self, s: SState, b: int, new: int) -> list:
        """ControllerHandleControlledShutdown(broker, new_leader) (the kernel's
        ``controller_handle_controlled_shutdown``): a running broker the controller has live and
        not yet shutting down asks to stop; bounded by max-controlled-shutdowns. If it leads,
        leadership moves to the first live ISR member in assignment order that may lead, with
        the ISR without it and a new leader epoch to every live broker, itself included
        (``KafkaController.doControlledShutdown`` ->
        ``ControlledShutdownLeaderElectionStrategy`` at 2.1.0); with no such member ZooKeeper's
        controller cannot move it (no step: the broker retries, then stops as a crash would),
        while KRaft elects as for any removal (``PartitionChangeBuilder`` at 3.3.0: the ELR, the
        last known leader, or where allowed any replica) or leaves the partition leaderless. If
        it follows, it leaves the ISR (as ControllerHandleBrokerFailure's shrink:
        ``shrink_without``), or nothing changes. It stays live and running until BrokerShutdown."""
        if not self.d.shutdowns:
            return []
        n, F = self.n, z3.BoolVal(False)
        r = s.reps[b]
        base = [r.alive, s.c_live[b], z3.Not(r.sd)]
        if self.bounded:
            base.append(s.cshut < self.d.shutdowns)
        others = z3.Or([s.c_isr[j] for j in range(n) if j != b])
        target = [(F if self.d.elr else z3.And(s.c_isr[b], z3.Not(others))) if j == b
                  else s.c_isr[j] for j in range(n)]
        may = self.leadable(s, s.c_live)
        out = []
        epoch = s.c_epoch + 1
        if self.d.elr:
            picks, from_isr, unclean = self.elect_with_elr(s, target, may, b)
        else:
            isr_mask = [z3.And(target[j], may[j]) if j != b else F for j in range(n)]
            from_isr = z3.Or(isr_mask)
            picks = [self.first_in_assignment(s, isr_mask, c) for c in range(n)]
            unclean = F
            if self.kraft and self.unclean:
                any_mask = [may[j] if j != b else F for j in range(n)]
                un = [z3.And(z3.Not(from_isr), self.first_in_assignment(s, any_mask, c))
                      for c in range(n)]
                picks = [z3.Or(p, u) for p, u in zip(picks, un)]
                unclean = z3.Or(un)
        if not self.kraft:  # ZooKeeper: the live ISR only
            picks = [z3.And(p, from_isr) for p in picks]
            unclean = F
        if new >= 0:
            chosen = picks[new]
            c_isr = [ite(from_isr, target[j], z3.BoolVal(j == new)) for j in range(n)]
        else:
            chosen = z3.Not(z3.Or(picks)) if self.kraft else F
            c_isr, unclean = target, F
        nxt = self.send_leader_and_isr(self.commit(s), epoch, num.val(new), c_isr, s.c_live)
        nxt = self.elr_change(s, nxt, c_isr, num.val(new), unclean).but(
            c_leader=num.val(new), c_epoch=epoch, c_isr=c_isr)
        nxt = self.recovering_after(nxt, unclean)
        out.append((z3.And(base + [s.c_leader == b, self.epoch_available(s), chosen]), nxt))
        follower = base + [s.c_leader != b, s.c_leader == new]
        shrinks = z3.And(s.c_isr[b], z3.Not(target[b]))
        nxt2, ok = self.shrink_without(s, s, target, s.c_live)
        out.append((z3.And(follower + [shrinks, ok]), nxt2))
        out.append((z3.And(follower + [z3.Not(shrinks)]), s))
        return [(g, x.put(b, x.reps[b].but(sd=z3.BoolVal(True))).but(cshut=s.cshut + 1))
                for g, x in out]

    def _enc_BrokerShutdown(self, s: SState, b: int) -> list:
        """BrokerShutdown(broker) (the kernel's ``broker_shutdown`` -> ``stop_broker``): a broker
        whose controlled shutdown was handled stops cleanly (``KafkaServer.shutdown`` at 2.1.0):
        its log is flushed (nothing lost under power loss), its memory gone as in a crash, and
        under KIP-966 its clean-shutdown file written. It stays shutting down until the
        controller handles its failure or it restarts. No crash is counted."""
        if not self.d.shutdowns:
            return []
        r = s.reps[b]
        r2 = r.but(alive=z3.BoolVal(False), hw=zmin(r.hw, r.leo), lep=num.val(-1),
                   ckpt=r.hw if self.d.ckpt else r.ckpt,  # (written on a clean stop)
                   leader=num.val(NO_LEADER), isr=[z3.BoolVal(False)] * self.n,
                   remote=self.unknown(), truncating=z3.BoolVal(False), fr=z3.BoolVal(False),
                   flushed=r.leo if self.power_loss else num.val(0),
                   clean=z3.BoolVal(True) if self.d.elr else r.clean)
        r2 = self.stopped(self.clear_change(self.clear_alter(r2, pec=z3.BoolVal(False))))
        lai = [list(row) for row in s.lai]
        lai[b] = [z3.BoolVal(False)] * len(lai[b])
        return [(z3.And(r.alive, r.sd), self.drop_pending_acks(s.put(b, r2), b).but(lai=lai))]

    def _enc_ControllerFenceBroker(self, s: SState, b: int, new: int) -> list:
        """ControllerFenceBroker(broker, new_leader) (the kernel's ``controller_fence_broker``):
        the controller loses a broker that still runs (its ZooKeeper session expires:
        ``KafkaController.processBrokerChange`` -> ``onBrokerFailure`` at 2.1.0; KRaft
        ``BrokerHeartbeatManager`` -> ``handleBrokerFenced`` at 3.3.0) and removes it as a failed
        one (ControllerHandleBrokerFailure's cases, with ``b`` running); the broker does not know
        yet. Bounded by max-session-expiries."""
        if not self.d.expiries:
            return []
        cases = self._enc_ControllerHandleBrokerFailure(s, b, new, running=True)
        bound = [s.sexp < self.d.expiries] if self.bounded else []
        return [(z3.And([g] + bound), x.but(sexp=s.sexp + 1)) for g, x in cases]

    def _enc_ControllerUnfenceBroker(self, s: SState, b: int) -> list:
        """ControllerUnfenceBroker(broker) (the kernel's ``controller_unfence_broker`` ->
        ``controller_register_broker``): a running broker the controller does not have as live
        registers again (a new ZooKeeper session: ``onBrokerStartup`` at 2.1.0) or heartbeats
        again (KRaft ``handleBrokerUnfenced`` at 3.3.0): it joins the live set and gets the
        partition's state, elected first if the partition is offline and it may lead."""
        if not self.d.expiries:
            return []
        guard = [s.reps[b].alive, z3.Not(s.c_live[b])]
        if self.d.elr:
            return self.register_with_elr(s, b, guard)
        return [(z3.And(guard + [g]), x) for g, x in self.register_broker(s, s, b)]

    # ------------------------------------------------------------------ stale metadata reads (issue 29bc)
    #
    # ``--max-stale-metadata-reads`` (KRaft, 3.3+): a leader's metadata cache lags the
    # controller. ``Partition.canAddReplicaToIsr`` -> ``isReplicaIsrEligible`` (3.3.0; 3.5.0 adds
    # ``isBrokerEpochIsrEligible``) reads ``KRaftMetadataCache.isBrokerFenced`` /
    # ``isBrokerShuttingDown`` off the broker's own metadata image, which may still show a
    # follower the controller has fenced (a session expiry) or has in a controlled shutdown as
    # eligible. The leader then proposes it (``maybeExpandIsr`` -> ``prepareIsrExpand``) and,
    # while that AlterPartition is pending, its maximal ISR counts it (the HW waits for it,
    # ``checkEnoughReplicasReachOffset`` compares min.insync.replicas with the maximal ISR). The
    # controller refuses it as before (``ReplicationControlManager.ineligibleReplicasForIsr``,
    # INELIGIBLE_REPLICA; ``members_eligible``). The encoding is the compiled kernel's (model/
    # kernel/actions/leader.py ``leader_handle_fetch_on_stale_metadata``), which keeps no history
    # of the follower's fencing: any running follower the controller does not let lead may be
    # seen stale, within the bound.

    def _enc_LeaderHandleFetchOnStaleMetadata(self, s: SState, lead: int, f: int) -> list:
        """LeaderHandleFetchOnStaleMetadata(leader, follower) (the kernel's
        ``leader_handle_fetch_on_stale_metadata``): a fetch from ``f``, which may fetch but which
        the controller does not let lead (not live, or shutting down), handled by the broker it
        follows (a leader; KIP-320: in ``f``'s leader epoch) as LeaderHandleFetch handles it, but
        on a stale cache: if ``f`` is in sync (``is_caught_up_for_isr``), outside the ISR, its
        offset within the leader's log and no change pending, the leader records the offset
        (under KIP-903 from ``f``'s current incarnation), proposes the ISR with ``f``
        (``propose_isr``, the member's broker epoch current), may advance its HW on the maximal
        ISR and answers the fetch; the counter goes up. Only under KIP-841's eligibility and
        KIP-497 (``options.py`` refuses the bound otherwise); no step when nothing would be
        proposed (the kernel's guards, none of them pruning: the proposal always changes the
        state)."""
        if not self.d.stale_reads or not self.d.eligibility or not self.alter or lead == f:
            return []
        fr, lr = s.reps[f], s.reps[lead]
        offset, leader_leo = fr.leo, lr.leo
        guard = [self.may_fetch(s, f), self.stale_view_differs(s, f), fr.leader == lead,
                 lr.alive, lr.leader == lead, offset <= leader_leo, z3.Not(lr.isr[f]),
                 lr.alt == 0, self.is_caught_up_for_isr(lr, offset)]
        if self.fenced:
            guard.append(fr.lep == lr.lep)
        if self.bounded:
            guard.append(s.smr < self.d.stale_reads)
        remote = [offset if j == f else lr.remote[j] for j in range(self.n)]
        lr2 = self.record_current_fetch(lr.but(remote=remote), f)
        larger = [z3.BoolVal(True) if j == f else lr.isr[j] for j in range(self.n)]
        lr2 = self.propose_isr(lr2, larger)
        nxt = self.maybe_increment_leader_hw(s.put(lead, lr2).but(smr=s.smr + 1), lead)
        resp = fr.but(fr=z3.BoolVal(True), fr_leader=num.val(lead), fr_epoch=fr.lep,
                      fr_offset=offset, fr_id=list(lr.log_id), fr_ep=list(lr.log_ep),
                      fr_pe=list(lr.log_pe), fr_hw=nxt.reps[lead].hw, fr_leo=leader_leo)
        return [(z3.And(guard), nxt.put(f, resp))]

    def stale_view_differs(self, s: SState, f: int):
        """May leader's stale cache show ``f`` eligible where the controller does not: ``f`` is
        not one the controller lets lead (``may_lead``: fenced, or shutting down). An eligible
        ``f`` is LeaderHandleFetch's, on a fresh view (the kernel's ``continue``)."""
        return z3.Not(self.may_lead(s, f))

    # ------------------------------------------------------------------ controller failovers (issue 29ak)

    def _enc_ControllerFailover(self, s: SState) -> list:
        """ControllerFailover (the kernel's ``controller_failover``, ZooKeeper mode): the
        controller's session expires and another broker becomes controller with the next
        controller epoch (``KafkaController.onControllerFailover`` at 2.1.0:
        ``incrementControllerEpoch``, then ``initializeControllerContext`` reads the partition's
        state from ZooKeeper and ``ReplicaStateMachine.startup`` / ``sendUpdateMetadataRequest``
        send it to every live broker, the same leader epoch). The deposed controller keeps its
        frozen view as a zombie (an older zombie's requests are superseded). Bounded by
        max-controller-failovers."""
        if not self.failovers:
            return []
        guard = [s.cfail < self.failovers] if self.bounded else []
        nxt = s.but(zomb=z3.BoolVal(True), z_cep=s.cep, z_leader=s.c_leader, z_lep=s.c_epoch,
                    z_isr=list(s.c_isr), cep=s.cep + 1, cfail=s.cfail + 1)
        nxt = nxt.put_all([r.but(zreq=z3.BoolVal(False), zreg=z3.BoolVal(False)) if self.zombie_epoch
                           else r.but(zreq=z3.BoolVal(False)) for r in nxt.reps])
        # the new controller's requests: to the live brokers it has, as ``send_leader_and_isr``
        # (no new partition epoch: it only reads the partition, ``commit`` is not called)
        nxt = self.send_leader_and_isr(nxt, s.c_epoch, s.c_leader, s.c_isr, list(s.c_live))
        return [(z3.And(guard) if guard else z3.BoolVal(True), nxt)]

    def _enc_ZombieControllerSendLeaderAndIsr(self, s: SState, b: int) -> list:
        """ZombieControllerSendLeaderAndIsr(broker) (the kernel's
        ``zombie_controller_send_leader_and_isr``): the deposed controller, still draining its
        event queue, sends its stale view to a live broker with its old controller epoch
        (``ControllerChannelManager`` of the old controller, whose ``RequestSendThread`` runs
        until ``onControllerResignation``). Only a broker behind that view's leader epoch could
        take it, so no other is an action; nor, under KIP-380, one that registered since the
        failover (``refuses_zombie``, issue 29bi)."""
        if not self.failovers:
            return []
        r = s.reps[b]
        guard = z3.And(s.zomb, r.alive, z3.Not(r.zreq), s.z_lep > r.lep,
                       z3.Not(self.refuses_zombie(r)))  # KIP-380 (issue 29bi)
        return [(guard, s.put(b, r.but(zreq=z3.BoolVal(True))))]

    def _enc_BrokerHandleZombieLeaderAndIsr(self, s: SState, b: int) -> list:
        """BrokerHandleZombieLeaderAndIsr(broker) (the kernel's
        ``broker_handle_zombie_leader_and_isr``): the zombie's LeaderAndIsr reaches the broker.
        With ``controller-epoch`` a broker that has obeyed the new controller refuses it
        (``ReplicaManager.becomeLeaderOrFollower`` at 2.1.0: STALE_CONTROLLER_EPOCH), and with
        ``broker-epoch`` one that registered since the failover (STALE_BROKER_EPOCH,
        ``refuses_zombie``, issue 29bi); otherwise,
        if its leader epoch is newer than the broker's, the broker applies it as the zombie's
        view says (and learns its controller epoch if newer)."""
        if not self.failovers:
            return []
        r = s.reps[b]
        guard = [r.alive, r.zreq]
        r0 = r.but(zreq=z3.BoolVal(False))
        refused = s.put(b, r0)
        applies = z3.And(z3.Not(self.stale_to(s, r)), z3.Not(self.refuses_zombie(r)),
                         s.z_lep > r.lep)
        taught = s.put(b, r0.but(cseen=ite(s.z_cep > r.cseen, s.z_cep, r.cseen)))
        as_leader, as_follower = self.become(taught, b, s.z_lep, s.z_leader, list(s.z_isr), None)
        return [(z3.And(guard + [z3.Not(applies)]), refused),
                (z3.And(guard + [applies, s.z_leader == b]), as_leader),
                (z3.And(guard + [applies, s.z_leader != b]), as_follower)]

    # ------------------------------------------------------------------ the consumer (issue 29be)
    #
    # ``--consumer-commit`` and ``--max-consumer-restarts``: one consumer of the partition, as
    # the compiled kernel has it (model/kernel/actions/consumer.py). It reads what a consumer may
    # read, the true leader's log below its HW (``ReplicaManager.fetchMessages`` gives a consumer
    # at READ_UNCOMMITTED ``FetchHighWatermark``, and ``Partition.readRecords`` reads up to the
    # HW then, 2.1.0; ``fetchRecords`` in later releases), one record a poll
    # (``max.poll.records=1``), and commits its position before or after processing the record:
    # the KafkaConsumer javadoc, "Manual Offset Control", read at 2.8.0 (commit after processing
    # is at-least-once; a commit before it lets the committed offset pass a record not yet
    # processed, so a crash between the two skips it). A restart (a new member of the group)
    # resumes from the committed offset (``ConsumerCoordinator.refreshCommittedOffsetsIfNeeded``
    # -> ``fetchCommittedOffsets``, read at 2.8.0). The consumer changes no replica and no
    # controller state: its four actions read the true leader and its HW and write the
    # consumer's scalars only (``SState.cpos`` .. ``crst``).

    def _consumer_on(self) -> bool:
        return bool(self.d.consumer)

    def _enc_ConsumerFetch(self, s: SState, offset: int) -> list:
        """ConsumerFetch(offset) (the kernel's ``consumer_fetch``): ``poll`` returns the record
        at the consumer's position ``offset`` from the true leader, if the leader's HW has
        passed it, and the position moves past it. Only with nothing in hand and the last
        record processed and committed (the committed offset is the position), in either
        order. One case per possible true leader (the guards exclude each other: the
        controller names one leader)."""
        if not self._consumer_on():
            return []
        base = [z3.Not(s.chand), s.ccom == s.cpos, s.cpos == offset]
        nxt = s.but(cpos=num.val(offset + 1), chand=z3.BoolVal(True))
        return [(z3.And(base + [self.is_true_leader(s, l), offset < s.reps[l].hw]), nxt)
                for l in range(self.n)]

    def _enc_ConsumerProcess(self, s: SState, offset: int) -> list:
        """ConsumerProcess(offset) (the kernel's ``consumer_process``): the application
        processes the record it holds, at ``offset`` = position - 1; committing before
        processing, only once that commit is done (committed offset = position). An offset
        below where processing had reached is processed a second time (``ctwice``); otherwise
        processing reaches the position."""
        if not self._consumer_on():
            return []
        guard = [s.chand, s.cpos == offset + 1]
        if self.d.consumer == 1:  # commit before processing (the kernel's COMMIT_BEFORE)
            guard.append(s.ccom == s.cpos)
        again = num.val(offset) < s.cproc
        nxt = s.but(chand=z3.BoolVal(False), ctwice=z3.Or(s.ctwice, again),
                    cproc=ite(again, s.cproc, s.cpos))
        return [(z3.And(guard), nxt)]

    def _enc_ConsumerCommit(self, s: SState, offset: int) -> list:
        """ConsumerCommit(offset) (the kernel's ``consumer_commit``): the consumer commits its
        position ``offset`` (``commitSync``, or auto-commit in the next poll) if the group's
        committed offset differs from it: before processing while it holds the record, after
        processing once it has processed it (holds nothing)."""
        if not self._consumer_on():
            return []
        holds = s.chand if self.d.consumer == 1 else z3.Not(s.chand)
        guard = [s.cpos == offset, s.ccom != s.cpos, holds]
        return [(z3.And(guard), s.but(ccom=num.val(offset)))]

    def _enc_ConsumerRestart(self, s: SState) -> list:
        """ConsumerRestart (the kernel's ``consumer_restart``): the consumer crashes, what it
        held unprocessed is gone, and a new member of the group resumes from the committed
        offset; at most ``--max-consumer-restarts`` times. Only a restart that changes
        something (in the middle of a poll: a record in hand, or a position not yet
        committed), as the kernel explores."""
        if not self._consumer_on() or not self.d.consumer_restarts:
            return []
        guard = [z3.Or(s.chand, s.ccom != s.cpos)]
        if self.bounded:
            guard.append(s.crst < self.d.consumer_restarts)
        nxt = s.but(crst=s.crst + 1, chand=z3.BoolVal(False), cpos=s.ccom)
        return [(z3.And(guard), nxt)]

    # ------------------------------------------------------------------ what consumers read (issue 29bf)

    def record_reads(self, s: SState) -> SState:
        """The kernel's ``record_reads`` (model/kernel/transitions.py), the history
        ``no-read-loss`` judges (``SState.rd``, kept under ``track_reads``): every record below
        the HW of a broker that serves consumers is readable at its offset, and the first offset
        it was readable at is kept. A consumer reads up to the HW of the replica it fetches from
        (``ReplicaManager.fetchMessages`` at 2.4.0: ``FetchHighWatermark`` for a consumer). The
        brokers that serve: a live one that believes it leads (the true leader, and a zombie
        leader to a consumer whose metadata is stale: ``Partition.localLogWithEpochOrException``
        checks the leader epoch a fetch carries, and before KIP-320 (2.1) a consumer's fetch
        carries none; a stale consumer still sends the old one), and with KIP-392 (2.4,
        ``replica.selector.class``: ``fetchOnlyFromLeader`` false for a consumer that sends its
        client metadata, ``ReplicaManager.fetchMessages`` at 2.4.0) a live follower that knows
        a leader, up to its own HW.

        The kernel calls it in ``finish`` and after FollowerHandleFetchResponse (a follower's
        HW moves there); the encoding calls it in ``finish``, after every action. On the states
        the kernel reaches the two agree: an action that calls neither raises no serving
        broker's HW, makes no broker serve and changes no record below a serving broker's HW
        (so the history already holds what it would add; the cross-check's rows with
        ``track_reads`` compare every action). The kernel reads slots below the HW; the
        encoding below min(HW, LEO), the same slots wherever ``hw-le-leo`` holds (the kernel's
        truncation zeroes the freed slots, the encoding leaves them don't-care). Brokers in
        index order, offsets upward, as the kernel's loops: a record at two offsets (a retried
        send) is recorded at the first one met."""
        rd = list(s.rd)
        L = self.d.slots
        for b, r in enumerate(s.reps):
            serving = z3.And(r.alive, r.leader == b)
            if self.d.followers:
                serving = z3.And(r.alive, r.leader >= 0)  # (r.leader == b is one of them)
            top = zmin(r.hw, r.leo)
            for o in range(L):
                here = z3.And(serving, top > o)
                for k in range(self.d.records):
                    hit = z3.And(here, r.log_id[o] == k + 1, rd[k] < 0)
                    rd[k] = ite(hit, num.val(o), rd[k])
        return s.but(rd=rd)
