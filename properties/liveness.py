"""Liveness properties ("something good eventually happens") and the fairness they assume.

A safety invariant (``properties/invariants.py``) is judged state by state; a liveness property
is judged on infinite behaviours, so it needs two more things, both kept here as data:

* **the property**, ``P ~> Q`` (TLA+'s *leads-to*: whenever a state satisfies ``P``, a later or
  the same state satisfies ``Q``), with ``P`` and ``Q`` plain functions of the same
  ``ClusterState`` the invariants read. ``faults_stop=True`` makes it "once faults stop,
  ``P ~> Q``": ``P`` is judged only in states after which the behaviour takes no fault or
  operator step (crash, restart, shutdown, fencing, controller failover, delayed fetch, flush,
  preferred-leader election; ``STOPPING``): a fault may come before ``P``, none between ``P`` and
  for ever. (kmc bounds every fault, ``Bounds``, so every behaviour's faults stop somewhere; the
  question is what happens after.) With ``faults_stop=False``, faults may go on after ``P``.
* **fairness**, per action family (``FAMILIES``): *weak fairness* (an action continuously
  enabled from some point on is eventually taken) for the protocol's own steps, the ones a
  broker's or the controller's threads take by themselves (ReplicaFetcherThread's fetches and
  their handling on the leader, LeaderAndIsr / metadata application, AlterPartition and its
  answer, the ISR changes the leader's ``isr-expiration`` task and fetch path make, elections
  after a failure); *no fairness* for faults, operator actions and the producer: a broker may
  stay down for ever, and a client need not send anything.

Weak fairness is per action *instance*: the action's name with its arguments
(``LeaderHandleFetch(leader=0, follower=1)``), as TLA+'s ``\\A i: WF_vars(Fetch(i))``: one
follower's fetcher thread making progress does not excuse another's.

Three forms, all judged as leads-to by the same check (``checker/liveness.py``):

* ``@leads_to(name, description, q=...)`` on ``P``: ``P ~> Q``;
* ``@eventually(name, description)`` on ``Q``: ``<>Q``, every behaviour from the initial state
  reaches a ``Q`` state (``Init ~> Q``);
* ``@always_eventually(name, description)`` on ``Q``: ``[]<>Q``, from every state a ``Q`` state
  comes again (``true ~> Q``); with ``faults_stop``: once faults stop, ``Q`` recurs.

A predicate that needs the configuration (``min.insync.replicas``, ``acks``) is registered with
``with_config=True`` and called as ``fn(state, config)``. ``kmc check -p NAME`` checks any of them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

from model.actions import ACTION_NAMES
from model.constants import NO_LEADER
from model.errors import ConfigError

WEAK = "weak"
NONE = "none"

# action family -> (fairness, why, in Kafka's words)
FAIRNESS: dict[str, tuple[str, str]] = {
    "fetch": (WEAK, "a follower's ReplicaFetcherThread keeps fetching, and the leader keeps "
                    "answering, while both run"),
    "metadata": (WEAK, "a LeaderAndIsr request or a metadata record (KRaft) reaching a live "
                       "broker is applied (ReplicaManager.becomeLeaderOrFollower)"),
    "isr": (WEAK, "the leader's isr-expiration task shrinks, and its fetch path expands, the "
                  "ISR when the condition holds (Partition.maybeShrinkIsr / maybeExpandIsr), and "
                  "AlterPartition is handled and answered"),
    "high-watermark": (WEAK, "the high watermark checkpoint thread runs "
                             "(replica.high.watermark.checkpoint.interval.ms)"),
    "election": (WEAK, "the controller elects a leader after it notices a failure "
                       "(PartitionStateMachine / ReplicationControlManager)"),
    "heartbeat": (WEAK, "a running broker that the controller fenced registers again: a new "
                        "ZooKeeper session, or its next KRaft BrokerHeartbeatRequest "
                        "(BrokerLifecycleManager) unfencing it"),
    "fault": (NONE, "crashes, restarts, fencing, controller failover, delayed fetches, flushes: "
                    "the environment, which need never act"),
    "operator": (NONE, "controlled shutdowns and preferred-leader elections are an operator's "
                       "choice"),
    "produce": (NONE, "a client need not send another record"),
    "consume": (NONE, "a consumer application need not poll, process or commit again (the "
                      "consumer of --consumer-commit; no built-in liveness property is about it)"),
}

FAMILIES: dict[str, str] = {
    "ProduceRecord": "produce",
    "ProducerRetry": "produce",
    "ProducerBumpEpoch": "produce",
    "LeaderHandleFetch": "fetch",
    "FollowerHandleFetchResponse": "fetch",
    "FollowerTruncate": "fetch",
    "LeaderHandleDelayedFetch": "fetch",
    "LeaderShrinkIsr": "isr",
    "LeaderShrinkIsrSet": "isr",
    "LeaderExpandIsr": "isr",
    "ControllerHandleAlterPartition": "isr",
    "LeaderHandleAlterPartitionResponse": "isr",
    "BecomeLeaderOrFollower": "metadata",
    "BrokerApplyPartitionChange": "metadata",
    "BrokerHandleZombieLeaderAndIsr": "metadata",
    "CheckpointHighWatermark": "high-watermark",
    "ControllerHandleBrokerFailure": "election",
    "ControllerElectLeader": "operator",
    "ControllerHandleControlledShutdown": "operator",
    "BrokerShutdown": "operator",
    "BrokerCrash": "fault",
    "BrokerRestart": "fault",
    "FlushLog": "fault",
    "ControllerFenceBroker": "fault",
    "ControllerUnfenceBroker": "heartbeat",
    "FetchDelayed": "fault",
    "ControllerFailover": "fault",
    "ZombieControllerSendLeaderAndIsr": "fault",
    "ConsumerFetch": "consume",
    "ConsumerProcess": "consume",
    "ConsumerCommit": "consume",
    "ConsumerRestart": "fault",
    "ControllerPreferredElection": "operator",
    "ControllerReassignReplicas": "operator",
    "LeaderHandleFetchOnStaleMetadata": "fault",
}
"""Every action of ``model/actions.py`` and its family (``tests/unit/test_liveness.py`` checks
that none is missing)."""

STOPPING = frozenset({"fault", "operator"})
"""The families "once faults stop" excludes from a counterexample's loop."""


def weakly_fair(action_name: str) -> bool:
    return FAIRNESS[FAMILIES[action_name]][0] == WEAK


def stops(action_name: str) -> bool:
    return FAMILIES[action_name] in STOPPING


@dataclass(frozen=True)
class LeadsTo:
    """``p ~> q`` (with ``faults_stop``: once faults stop), judged under ``FAIRNESS``."""

    name: str
    description: str
    p: Callable
    q: Callable
    faults_stop: bool = True
    states: str = ""  # what of Kafka the predicates state, and what they leave out
    form: str = "leads-to"  # FORMS: how P is chosen
    with_config: bool = False  # p and q take (state, config)
    defined_by: str = ""  # the decorated function's qualified name (a second definition is an error)

    def predicates(self, config) -> tuple[Callable, Callable]:
        """``P`` and ``Q`` as functions of a state alone, for ``config``. For ``eventually``,
        ``P`` is a placeholder: the check takes the initial state as the only ``P`` state."""
        if not self.with_config:
            return self.p, self.q
        return (lambda s: self.p(s, config)), (lambda s: self.q(s, config))


LEADS_TO, EVENTUALLY, ALWAYS_EVENTUALLY = "leads-to", "eventually", "always-eventually"
FORMS = (LEADS_TO, EVENTUALLY, ALWAYS_EVENTUALLY)


LIVENESS: dict[str, LeadsTo] = {}


def _register(prop: LeadsTo, fn: Callable) -> None:
    old = LIVENESS.get(prop.name)
    if old is not None and old.defined_by != fn.__qualname__:
        raise ConfigError(f"liveness property {prop.name!r} is defined twice; pick another name")
    LIVENESS[prop.name] = dataclasses.replace(prop, defined_by=fn.__qualname__)


def _true(*_args) -> bool:
    return True


def leads_to(name: str, description: str, *, q: Callable, faults_stop: bool = True,
             states: str = "", with_config: bool = False) -> Callable:
    """Decorator: register ``fn(state) -> bool`` as ``P`` of the liveness property ``name``,
    ``P ~> q``."""

    def register(fn: Callable) -> Callable:
        _register(LeadsTo(name, description, fn, q, faults_stop, states, LEADS_TO, with_config), fn)
        return fn

    return register


def eventually(name: str, description: str, *, faults_stop: bool = True, states: str = "",
               with_config: bool = False) -> Callable:
    """Decorator: register ``fn(state) -> bool`` as ``Q`` of ``<>Q``: every fair behaviour from
    the initial state reaches a ``Q`` state."""

    def register(fn: Callable) -> Callable:
        _register(LeadsTo(name, description, _true, fn, faults_stop, states, EVENTUALLY,
                          with_config), fn)
        return fn

    return register


def always_eventually(name: str, description: str, *, faults_stop: bool = True, states: str = "",
                      with_config: bool = False) -> Callable:
    """Decorator: register ``fn(state) -> bool`` as ``Q`` of ``[]<>Q``: from every state of a
    fair behaviour (with ``faults_stop``: once faults stop) a ``Q`` state comes again."""

    def register(fn: Callable) -> Callable:
        _register(LeadsTo(name, description, _true, fn, faults_stop, states, ALWAYS_EVENTUALLY,
                          with_config), fn)
        return fn

    return register


def get_liveness(name: str) -> LeadsTo:
    if name not in LIVENESS:
        raise ConfigError(f"unknown liveness property {name!r}; choose from: {', '.join(LIVENESS)}")
    return LIVENESS[name]


assert set(FAMILIES) == set(ACTION_NAMES), "every action needs a family in properties/liveness.py"


# ------------------------------------------------------------------------------ built-in ones

def _live_unfenced(state, b: int) -> bool:
    """Broker ``b`` runs, the controller counts it alive (not fenced: its ZooKeeper session or
    KRaft heartbeats are current) and it is not in a controlled shutdown (which keeps it out of
    elections and of the ISR)."""
    r = state.replicas[b]
    return r.alive and b in state.controller.live_brokers and not getattr(r, "shutting_down", False)


def has_leader(state) -> bool:
    """The partition has a leader clients can use: the controller's leader, alive and acting on
    the controller's leader epoch (``ClusterState.true_leader``)."""
    return state.true_leader() != NO_LEADER


@leads_to(
    "leader-eventually",
    "once faults stop, a partition with a live, unfenced ISR or ELR member eventually has a "
    "leader clients can use",
    q=has_leader,
    states="P: some broker of the controller's ISR or, with KIP-966, of its eligible leader "
           "replicas (ClusterState.elr) runs, is in the controller's live brokers and is not "
           "shutting down; Q: ClusterState.true_leader() is a broker (the controller's leader, "
           "alive, on the controller's leader epoch). An ELR member is a candidate of "
           "PartitionChangeBuilder.electLeader as an ISR member is.",
)
def live_isr_member(state) -> bool:
    return any(_live_unfenced(state, b) for b in (*state.controller.isr, *state.elr))


def _caught_up_outside_isr(state) -> bool:
    leader = state.true_leader()
    if leader == NO_LEADER or not _live_unfenced(state, leader):
        return False
    hw = state.replicas[leader].high_watermark
    return any(b not in state.controller.isr and _live_unfenced(state, b)
               and len(state.replicas[b].log) >= hw
               for b in range(len(state.replicas)))


def _no_caught_up_outside_isr(state) -> bool:
    return not _caught_up_outside_isr(state)


@leads_to(
    "isr-eventually-complete",
    "once faults stop, a live, unfenced replica caught up to the leader's high watermark but "
    "outside the ISR is eventually in the ISR (or no longer such a replica)",
    q=_no_caught_up_outside_isr,
    states="P: the partition has a live, unfenced true leader and some other live, unfenced "
           "broker outside the controller's ISR whose LEO is at least the leader's HW (the "
           "condition of Partition.maybeExpandIsr, without its fetch-epoch check); Q: no broker "
           "is in that situation (it joined the ISR, or stopped being caught up). \"Every live "
           "caught-up replica\" is stated this way because a replica can fall behind again when "
           "new records arrive.",
)
def caught_up_outside_isr(state) -> bool:
    return _caught_up_outside_isr(state)


def _unanswered(state) -> bool:
    return bool(state.pending_acks)


def _answered(state) -> bool:
    return not state.pending_acks


@leads_to(
    "produce-eventually-answered",
    "a produce request waiting for its acknowledgement (acks=all: for the ISR to have the record) "
    "is eventually answered; faults may go on",
    q=_answered,
    faults_stop=False,
    states="P: ClusterState.pending_acks is not empty (a leader appended a record and holds the "
           "produce request until the high watermark passes it, DelayedProduce); Q: no produce "
           "request is pending. The model has no request.timeout.ms expiry of a DelayedProduce, "
           "so \"answered\" here means acknowledged or failed by a leader change; a request "
           "that only a timeout would answer shows as a violation.",
)
def unanswered_produce(state) -> bool:
    return _unanswered(state)


def _full_isr(state) -> bool:
    return len(state.controller.isr) == len(state.replicas)


@leads_to(
    "isr-eventually-full",
    "once faults stop, every replica of the partition is eventually in the ISR (Kafka does not "
    "promise this: a broker may stay down; it shows what fairness does and does not assume)",
    q=_full_isr,
    states="P: any state; Q: the controller's ISR holds every broker. Violated whenever a broker "
           "can stay down for ever, since restarting a broker is not a step Kafka takes by itself "
           "(no fairness).",
)
def any_state(state) -> bool:
    return True


def accepts_writes(state, config) -> bool:
    """A produce sent now would be appended: there is a leader clients can use and, with
    acks=all, its ISR has at least min.insync.replicas members
    (``Partition.appendRecordsToLeader``, read at 3.9.0-rc3: ``inSyncSize < minIsr && requiredAcks == -1``
    throws NotEnoughReplicasException; the leader's own view of the ISR counts)."""
    leader = state.true_leader()
    if leader == NO_LEADER:
        return False
    if config.acks != "all":
        return True
    return len(state.replicas[leader].isr) >= config.min_insync_replicas


@always_eventually(
    "writes-eventually-accepted",
    "once faults stop, the partition accepts produce requests again (a leader, and with acks=all "
    "an ISR of at least min.insync.replicas)",
    with_config=True,
    states="[]<>Q once faults stop; Q: ClusterState.true_leader() is a broker and, with acks=all, "
           "that leader's ISR has at least min.insync.replicas members (Partition."
           "appendRecordsToLeader, read at 3.9.0-rc3). A crashed broker need never return (restarting is "
           "a fault, no fairness), so with RF=2 and min.insync.replicas=2 one crash leaves the "
           "partition refusing acks=all writes for ever: NOT_ENOUGH_REPLICAS.",
)
def writes_accepted(state, config) -> bool:
    return accepts_writes(state, config)


def _every_broker_back(state, config) -> bool:
    return all(_live_unfenced(state, b) for b in range(len(state.replicas)))


@leads_to(
    "writes-accepted-once-brokers-return",
    "once faults stop with every broker running and registered, the partition eventually "
    "accepts produce requests (the ISR grows back to min.insync.replicas)",
    q=writes_accepted,
    with_config=True,
    states="P: every broker runs, is in the controller's live brokers and is not shutting down; "
           "Q: as writes-eventually-accepted. What it needs of Kafka: followers fetch, the "
           "leader expands the ISR (Partition.maybeExpandIsr, AlterPartition), an election "
           "happens where a leader is missing: the weakly fair families.",
)
def every_broker_back(state, config) -> bool:
    return _every_broker_back(state, config)


def _all_acked_readable(state) -> bool:
    """Every acknowledged record can be read: the partition has a leader clients can use and
    the record is in its log at the offset it was acknowledged at, below its high watermark
    (consumers read up to the HW: ``Partition.fetchRecords`` / ``LogReadInfo`` with
    ``FetchIsolation.HIGH_WATERMARK``, read_uncommitted and no transactions)."""
    leader = state.true_leader()
    if leader == NO_LEADER:
        return not state.acked
    r = state.replicas[leader]
    return all(offset < min(r.high_watermark, len(r.log)) and r.log[offset][0] == rid
               for rid, offset in state.acked)


@leads_to(
    "acked-eventually-visible",
    "once faults stop, every acknowledged record is eventually readable by consumers (in the "
    "leader's log, below its high watermark)",
    q=_all_acked_readable,
    states="P: some acknowledged record (ClusterState.acked: record id and offset) is not in the "
           "true leader's log at its offset below the leader's HW, or there is no leader; Q: every "
           "one is. A lost record (no-acked-loss violated) is never readable again, so this fails "
           "wherever no-acked-loss does; it also fails where the only broker holding a record "
           "stays down (a broker need never return), and it asks that a new leader's HW catch up "
           "(the weakly fair fetches and HW advance).",
)
def some_acked_unreadable(state) -> bool:
    return not _all_acked_readable(state)
