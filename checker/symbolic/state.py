"""The partition's replication state as z3 terms: ``SState``.

Every field of ``model.state.ClusterState`` has a fixed-size z3 counterpart, sized by the
configuration's bounds (``Dims``):

* a replica's log is ``L = max_records`` slots of ``(record id, epoch)`` plus its LEO; a record
  keeps its offset in every log it is copied to and ids are unique, so no log is longer than the
  number of records written. Slots at or above the LEO are don't-care.
* a fetch response in flight stores the leader's log *at absolute offsets* (the records it carries
  are the slots from ``fetch_offset`` up to ``leader_leo``), so no index shifting is needed.
* sets of brokers (ISRs, live brokers) are one Bool per broker.
* LeaderAndIsr requests in flight are one flag per ``(broker, leader_epoch)`` with the request's
  leader and ISR as payload: the controller only sends its current epoch, which only grows, and a
  broker's requests are dropped when it crashes, so no two requests share a (broker, epoch).
* pending acks and acks are one flag per record id (a record is produced once) with its leader
  and offset; the consumer-visible history is ``L`` slots plus a length.
* the operator's moves (``--max-preferred-elections``, ``--max-reassignments``): each replica's
  place in the assignment (``assignment_rank``, 0 = the preferred replica) and the two operation
  counters. Without reassignments the ranks are the constants ``0 .. n-1`` (the kernel's initial
  ``assignment_rank``, the broker index), without a bound its counter the constant 0, so a
  configuration without the operator's moves gets only constants, which the encoding folds.

``eq`` compares two states on their meaningful parts only (the explicit state's equality), which
is what the transition relation and the successor enumeration use; ``encode`` turns an explicit
``ClusterState`` into constants and ``decode`` reads one back out of a z3 model.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import z3

from checker.symbolic import numbers as num
from model.kernel.spec import layout_features
from model.state import ClusterState, PartitionState, ReplicaState

CONSUMER_ORDERS = {"before": 1, "after": 2}
"""``--consumer-commit`` as ``Dims.consumer`` (the kernel's ``COMMIT_BEFORE`` = 1, ``COMMIT_AFTER``
= 2; issue 29be)."""


@dataclass(frozen=True)
class Dims:
    """The sizes of the encoding: brokers, log slots, record ids, highest epoch, bounds."""

    n: int
    slots: int
    records: int
    max_epoch: int
    max_crashes: int
    max_losses: int
    min_isr: int = 1  # min.insync.replicas (some strengthening invariants depend on it)
    max_preferred: int = 0  # --max-preferred-elections (the operator's moves)
    max_reassign: int = 0  # --max-reassignments
    ordered: bool = False  # Kafka's elections: no leader moves without a failure (issue 29u)
    # kmc 0.1's isr-expansion-as-own-step: a leader may add a follower that has died since it
    # last fetched (its remote LEO stays), so the controller's ISR can hold a dead broker
    expands_dead: bool = False
    # Kafka's follower-LEO rule (``Partition.makeLeader``): a re-elected leader keeps its ISR
    # members' LEOs; kmc 0.1's ``reset-followers-on-epoch`` forgets them on every epoch (issue 29k)
    keeps_remote: bool = True
    # ``-leader-and-isr-in-order``: a broker may apply a LeaderAndIsr request while an older one
    # to it is queued, skipping the older (issue 29k: a leader then keeps a follower's LEO across
    # an epoch it did not lead)
    skips_requests: bool = False
    # KIP-497 (Kafka 2.7, rule ``alter-partition``): a leader's ISR change is an AlterPartition
    # request in flight, and the state holds it, the partition-epoch bits and the maximal ISR
    # (issue 29i); ``hw_on_answer``: 3.1's ``hw-on-alter-partition-answer``
    alter: bool = False
    hw_on_answer: bool = False
    # KAFKA-15021 (Kafka 3.3-3.5, rule ``alter-partition-shrink-bumps-leader-epoch``, issue 29f):
    # the controller answers an AlterPartition that removes a replica with a new leader epoch,
    # sent to every live broker as LeaderAndIsr
    shrink_bumps: bool = False
    # KIP-841 (Kafka 3.3, rule ``isr-eligibility``, issue 29f): only a broker the controller has
    # as live (registered, unfenced, not shutting down) may join the ISR
    eligibility: bool = False
    # KIP-966 (Kafka 4.1, rule ``eligible-leader-replicas``, issue 29l): the controller keeps the
    # eligible leader replicas and the last known leader, the ISR may become empty, and a broker
    # that restarts after an unclean shutdown leaves the ISR and the ELR. ``last_known_check``:
    # KAFKA-19522 (4.1, ``last-known-leader-check``); ``leaderless``: PR #20629 (4.2,
    # ``last-known-leader-when-leaderless``); ``shrink_set``: 4.0's ``isr-shrink-out-of-sync-set``
    # (action LeaderShrinkIsrSet)
    elr: bool = False
    last_known_check: bool = False
    leaderless: bool = False
    shrink_set: bool = False
    # ``--crash-model power-loss``: a crash may cut a broker's log at its flushed offset, so the
    # strengthening library takes its power-loss forms (strengthen/power_loss.py, issue 29p), and
    # a down ELR member may have lost what it had not flushed (it leaves the ELR when it
    # restarts; the ELR invariants, issue 29l)
    power_loss: bool = False
    # ``--crash-model disk-loss`` (issue 29aj): a crash may lose the broker's whole disk (its log,
    # and so its epoch cache, and its HW checkpoint); the library switches off the facts that
    # rest on a log surviving a crash (strengthen/disk_loss.py)
    disk_loss: bool = False
    # KIP-500/KIP-631 (Kafka 3.3, rule ``kraft``, issue 29m): partition changes are records of one
    # metadata log; one that keeps the leader epoch reaches the leader as a *change* (each
    # broker's pending ``PartitionChangeRecord``: ISR, leader epoch, partition-epoch bit), and an
    # unclean election marks the leader recovering (KIP-704)
    kraft: bool = False
    # KAFKA-15021 (3.6, ``isr-shrink-keeps-leader-epoch``): the controller's own ISR shrink keeps
    # the leader epoch; KAFKA-12670 (3.9, ``kraft-unclean-election``): KRaft honours
    # unclean.leader.election.enable (3.3-3.8 ignore it)
    shrink_keeps: bool = False
    kraft_unclean: bool = False
    # KIP-903 (Kafka 3.5, rule ``broker-epoch-in-fetch``, issue 29h): a leader keeps, per
    # follower, whether its last fetch came from the follower's current incarnation, and an
    # AlterPartition carries whether the added member's broker epoch is still current
    fetch_epochs: bool = False
    # KAFKA-15583 (Kafka 3.7, rule ``hw-needs-min-isr``, issue 29h): the HW does not advance
    # while the leader's ISR is smaller than min.insync.replicas
    hw_min_isr: bool = False
    # ``kmc prove --unbounded crashes`` (issue 29y): BrokerCrash has no guard on the crash count
    # (nor, under power loss, on the unflushed losses), and both counters saturate at
    # ``num.TOP`` instead of stopping at their bounds (``Encoder``, ``well_formed``)
    unbounded_crashes: bool = False
    # ``--max-delayed-fetches`` (issue 29z): a follower's fetch held up in flight while the
    # follower moves on, handled later by the leader it was sent to (the kernel's FetchDelayed and
    # LeaderHandleDelayedFetch); the bound, 0 when off
    delayed: int = 0
    # read by the library's delayed-fetch facts (strengthen/delayed.py): KIP-320's epoch in the
    # fetch (``fenced-fetch``, 2.1) and KAFKA-15221's stale-fetch refusal (3.7)
    fenced: bool = False
    stale_rejected: bool = False
    # ``--max-controlled-shutdowns`` and ``--max-session-expiries`` (issue 29ac): each broker's
    # shutting-down flag (and, under KIP-966, its clean-shutdown file) and the two counters
    # (the kernel's ControllerHandleControlledShutdown, BrokerShutdown, ControllerFenceBroker and
    # ControllerUnfenceBroker); the bounds, 0 when off
    shutdowns: int = 0
    expiries: int = 0
    # ``--max-stale-metadata-reads`` (issue 29bc): a KRaft leader proposes a follower the
    # controller has fenced (or has shutting down) on its lagging metadata cache (the kernel's
    # LeaderHandleFetchOnStaleMetadata); the counter's bound, 0 when off
    stale_reads: int = 0
    # ``--max-controller-failovers`` (issue 29ak, ZooKeeper mode): the controller epoch, each
    # broker's newest controller epoch obeyed, the epoch each LeaderAndIsr in flight carries,
    # the deposed (zombie) controller's frozen view and its request to each broker, and the
    # counter (the kernel's ControllerFailover, ZombieControllerSendLeaderAndIsr and
    # BrokerHandleZombieLeaderAndIsr); the bound, 0 when off
    failovers: int = 0
    # KIP-380's broker epoch in the zombie controller's requests (``--max-controller-failovers``
    # with rule ``broker-epoch``, issue 29bi): each broker's "registered since the failover" bit
    # (the kernel's ``registered_since_failover``, layout feature ``zombie_broker_epoch``)
    zombie_epoch: bool = False
    # ``--max-retries`` without idempotence (issue 29aq): the producer's retries so far (the
    # kernel's ``retries``); a retry appends its record again, so a log has ``max_records +
    # max_retries`` slots (``model/kernel/spec.py``); the bound, 0 when off
    retries: int = 0
    # ``--max-producer-epoch-bumps`` (KIP-360, issue 29at): the idempotent producer's epoch (the
    # kernel's ``producer_epoch``), its next sequence, each record's sequence (-1: given up) and
    # each batch's producer epoch in the logs and fetch responses; the bound, 0 when off
    bumps: int = 0
    # ``--hw-checkpoint interval``: each broker's HW checkpoint file (the kernel's
    # ``checkpointed_hw``), written by CheckpointHighWatermark at any time and read back when the
    # broker stops, so a restart may bring back an older HW than the last one it had
    ckpt: bool = False
    # KAFKA-7128 without KIP-380 (Kafka 2.1, rules ``isr-join-needs-epoch-start`` without
    # ``broker-epoch``): a broker may restart into its own leader epoch, and its epoch's start
    # offset (``Partition.makeLeader``'s LEO) is then state of its own (the kernel's
    # ``epoch_start_offset``); with KIP-380 it is the first record of the epoch, read off the log
    epoch_start: bool = False
    # KIP-380 (Kafka 2.2, rule ``broker-epoch``): a restart waits for the controller to handle the
    # failure, so a broker that leads an epoch has not restarted since it took it (read by
    # ``Encoder.restart_waits_for_failure`` and the library's lagging-checkpoint forms)
    bounce_noticed: bool = False
    # the consumer (``--consumer-commit``, issue 29be): 0 none, 1 commit before processing, 2
    # after (the kernel's ``COMMIT_BEFORE`` / ``COMMIT_AFTER``, model/kernel/actions/
    # consumer.py), and ``--max-consumer-restarts``; the consumer's scalars are constants when off
    consumer: int = 0
    consumer_restarts: int = 0
    # what consumers read (issue 29bf): ``track_reads`` (kept when ``no-read-loss`` is asked),
    # each record's first readable offset (the kernel's ``read_offsets``); ``followers``: KIP-392
    # fetch from followers (Kafka 2.4, ``replica.selector.class``): a follower serves reads too
    reads: bool = False
    followers: bool = False

    @classmethod
    def of(cls, config) -> Dims:
        b = config.bounds
        # under the over-approximation ``unordered-leader-moves`` the kernel has no assignment
        # order and makes neither operator move (``ordered`` in model/kernel/controller.py)
        ordered = "unordered-leader-moves" not in config.rules
        return cls(config.replication_factor, b.max_records + b.max_retries, b.max_records,
                   b.max_leader_epoch,
                   b.max_crashes, b.max_unflushed_losses, config.min_insync_replicas,
                   b.max_preferred_elections if ordered else 0,
                   b.max_reassignments if ordered else 0, ordered,
                   "isr-expansion-as-own-step" in config.rules,
                   "reset-followers-on-epoch" not in config.rules,
                   ("leader-and-isr-in-order" not in config.rules or "kraft" in config.rules
                    or b.max_session_expiries > 0),
                   alter="alter-partition" in config.rules,
                   hw_on_answer="hw-on-alter-partition-answer" in config.rules,
                   shrink_bumps="alter-partition-shrink-bumps-leader-epoch" in config.rules,
                   eligibility="isr-eligibility" in config.rules,
                   elr="eligible-leader-replicas" in config.rules,
                   last_known_check="last-known-leader-check" in config.rules,
                   leaderless="last-known-leader-when-leaderless" in config.rules,
                   shrink_set="isr-shrink-out-of-sync-set" in config.rules,
                   power_loss=config.crash_model == "power-loss",
                   disk_loss=config.crash_model == "disk-loss",
                   kraft="kraft" in config.rules,
                   shrink_keeps="isr-shrink-keeps-leader-epoch" in config.rules,
                   kraft_unclean="kraft-unclean-election" in config.rules,
                   fetch_epochs="broker-epoch-in-fetch" in config.rules,
                   hw_min_isr="hw-needs-min-isr" in config.rules,
                   delayed=b.max_delayed_fetches,
                   fenced="fenced-fetch" in config.rules,
                   stale_rejected="stale-fetch-rejected" in config.rules,
                   shutdowns=b.max_controlled_shutdowns, expiries=b.max_session_expiries,
                   stale_reads=b.max_stale_metadata_reads,
                   failovers=b.max_controller_failovers, retries=b.max_retries,
                   zombie_epoch=(b.max_controller_failovers > 0
                                 and "broker-epoch" in config.rules),
                   bumps=b.max_producer_epoch_bumps if b.max_retries else 0,
                   ckpt=config.hw_checkpoint != "immediate",
                   epoch_start="epoch_start_offset" in layout_features(config),
                   bounce_noticed="broker-epoch" in config.rules,
                   consumer=CONSUMER_ORDERS.get(config.consumer_commit, 0),
                   consumer_restarts=b.max_consumer_restarts if config.consumer_commit else 0,
                   reads=bool(config.track_reads),
                   followers=bool(config.track_reads and config.fetch_from_followers))

    @property
    def operators(self) -> bool:
        """The operator's leader moves are on: the encoding holds the assignment and the
        counters, and a trace is replayed in the kernel (the oracle has neither)."""
        return bool(self.max_preferred or self.max_reassign)


@dataclass
class SReplica:
    alive: object
    log_id: list
    log_ep: list
    leo: object
    hw: object
    lep: object
    leader: object
    isr: list
    remote: list
    truncating: object
    fr: object  # a fetch response is in flight
    fr_leader: object
    fr_epoch: object
    fr_offset: object
    fr_id: list  # the leader's log at absolute offsets; meaningful in [fr_offset, fr_leo)
    fr_ep: list
    fr_hw: object
    fr_leo: object
    flushed: object
    # KIP-497 (``Dims.alter``; constants otherwise): the leader's AlterPartition in flight, its
    # state (``model.constants``: 0 none, ALTER_SENT .. ALTER_STUCK), proposed ISR, leader epoch
    # and partition-epoch bit, and whether this broker holds the current partition epoch
    alt: object = None
    alt_isr: list = field(default_factory=list)
    alt_ep: object = None
    alt_cur: object = None
    pec: object = None
    # KRaft (``Dims.kraft``; constants otherwise): a ``PartitionChangeRecord`` that keeps the
    # leader epoch, still to apply (the kernel's ``partition_change``): pending, its ISR, leader
    # epoch and partition-epoch bit
    chg: object = None
    chg_isr: list = field(default_factory=list)
    chg_ep: object = None
    chg_cur: object = None
    # KIP-903 (``Dims.fetch_epochs``; constants otherwise): ``rcur[j]``, this broker as leader
    # had its last fetch from follower ``j`` from ``j``'s current incarnation (the kernel's
    # ``remote_current``), and ``alt_mcur``, the pending AlterPartition's added member's broker
    # epoch is still current (``member_epoch_current``; meaningful while ``alt != 0``)
    rcur: list = field(default_factory=list)
    alt_mcur: object = None
    # ``--max-delayed-fetches`` (``Dims.delayed``; constants otherwise, issue 29z): this broker's
    # fetch held up in flight (the kernel's ``fetch_request``): pending, the leader and leader
    # epoch it was sent to, its fetch offset, and whether its sender has not restarted since
    # (KIP-903's broker epoch); the fields mean something only while ``dreq``
    dreq: object = None
    dreq_leader: object = None
    dreq_epoch: object = None
    dreq_offset: object = None
    dreq_cur: object = None
    # ``--max-controlled-shutdowns`` (``Dims.shutdowns``; constants otherwise, issue 29ac): the
    # controller has handled this broker's controlled shutdown (the kernel's ``shutting_down``),
    # and, under KIP-966 (``Dims.elr``), its last stop was clean (``clean_shutdown``)
    sd: object = None
    clean: object = None
    # ``--max-controller-failovers`` (``Dims.failovers``; constants otherwise, issue 29ak): the
    # newest controller epoch this broker has obeyed (``controller_epoch_seen``) and whether the
    # zombie controller's LeaderAndIsr is on its way to it (``zombie_request``)
    cseen: object = None
    zreq: object = None
    # KIP-380 with failovers (``Dims.zombie_epoch``; the constant False otherwise, issue 29bi):
    # this broker registered since the last failover, so it refuses the zombie's requests
    zreg: object = None
    # ``--hw-checkpoint interval`` (``Dims.ckpt``; the constant 0 otherwise): the HW in this
    # broker's checkpoint file (``replication-offset-checkpoint``), what a stop leaves it with
    ckpt: object = None
    # Kafka 2.1 (``Dims.epoch_start``; the constant -1 otherwise): the start offset of the epoch
    # a broker restarted into as its leader (the kernel's ``epoch_start_offset``), -1 if none
    esta: object = None

    # issue 29at (``Dims.bumps``; empty otherwise): each batch's producer epoch, in the log and
    # in the fetch response (at absolute offsets, as ``fr_id``)
    log_pe: list = field(default_factory=list)
    fr_pe: list = field(default_factory=list)

    def but(self, **changes) -> SReplica:
        return replace(self, **changes)


@dataclass
class SState:
    reps: list
    c_leader: object
    c_epoch: object
    c_isr: list
    c_live: list
    lai: list  # lai[b][e]: a LeaderAndIsr(epoch e) request to broker b is in flight
    lai_leader: list  # [b][e]
    lai_isr: list  # [b][e][j]
    pend: list  # pend[r-1]: record r waits in a leader's purgatory
    pend_leader: list
    pend_off: list
    acked: list  # acked[r-1]: record r was acknowledged
    acked_off: list
    cv_len: object
    cv: list
    written: object
    crashes: object
    losses: object
    rank: list  # rank[b]: broker b's place in the replica assignment (assignment_rank)
    pref: object  # preferred-replica elections so far
    reass: object  # reassignments so far
    # KIP-497 (``Dims.alter``; empty otherwise): lai_cur[b][e], the LeaderAndIsr(epoch e) to b
    # carries the controller's latest partition epoch (the kernel keeps the bit after the
    # request is gone, so the encoding does too)
    lai_cur: list = field(default_factory=list)
    # KIP-966 (``Dims.elr``; empty otherwise): elr[j], broker j is an eligible leader replica;
    # lke[j], j is the last known leader (the kernel's ``last_known_elr``, at most one broker)
    elr: list = field(default_factory=list)
    lke: list = field(default_factory=list)
    # KIP-704 (``Dims.kraft``; the constant False otherwise): the leader was elected uncleanly
    # and no AlterPartition of it has been accepted since (the kernel's ``leader_recovering``)
    recovering: object = None
    # ``--max-delayed-fetches`` (issue 29z): fetches held up so far (the constant 0 otherwise)
    delayed: object = None
    # issue 29ac: controlled shutdowns and session expiries so far (the constant 0 when off)
    cshut: object = None
    sexp: object = None
    # issue 29bc: stale metadata reads so far (the constant 0 when off)
    smr: object = None
    # issue 29ak (``Dims.failovers``; constants otherwise): the active controller's epoch, the
    # failovers so far, the epoch each LeaderAndIsr in flight carries (lai_cep[b][e]), and the
    # zombie controller: there is one, its controller epoch, and its frozen view of the
    # partition (leader, leader epoch, ISR)
    cep: object = None
    cfail: object = None
    lai_cep: list = field(default_factory=list)
    zomb: object = None
    z_cep: object = None
    z_leader: object = None
    z_lep: object = None
    z_isr: list = field(default_factory=list)
    # issue 29aq (``Dims.retries``; the constant 0 otherwise): the producer's retries so far
    retr: object = None
    # issue 29at (``Dims.bumps``; constants / empty otherwise): the producer epoch, the next
    # sequence, each record's sequence (-1: given up, ``GIVEN_UP``)
    pe: object = None
    nseq: object = None
    seqs: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)
    # the consumer (issue 29be; ``Dims.consumer``, constants otherwise): its position, the
    # group's committed offset, whether it holds a fetched record not yet processed, where its
    # processing has reached, whether an offset was processed twice, its restarts so far
    cpos: object = None
    ccom: object = None
    chand: object = None
    cproc: object = None
    ctwice: object = None
    crst: object = None
    # issue 29bf (``Dims.reads``; empty otherwise): rd[r-1], the offset at which record r was
    # first readable by a consumer (the kernel's ``read_offsets``), -1 if never
    rd: list = field(default_factory=list)

    def but(self, **changes) -> SState:
        return replace(self, **changes)

    def put(self, b: int, rep: SReplica) -> SState:
        reps = list(self.reps)
        reps[b] = rep
        return replace(self, reps=reps)

    def put_all(self, reps: list) -> SState:
        return replace(self, reps=list(reps))


# ---------------------------------------------------------------------------- helpers

def ite(c, a, b):
    """z3 If that folds constant conditions (keeps terms small)."""
    if c is True or z3.is_true(c):
        return a
    if c is False or z3.is_false(c):
        return b
    if a is b:
        return a
    return z3.If(c, a, b)


def sel(vec: list, idx, default=0):
    """``vec[idx]`` for a symbolic index (``default`` when out of range)."""
    out = num.val(default) if not isinstance(default, z3.ExprRef) else default
    for i in range(len(vec) - 1, -1, -1):
        out = ite(idx == i, vec[i], out)
    return out


def count(bools: list):
    return z3.Sum([z3.If(x, num.val(1), num.val(0)) for x in bools]) if bools else num.val(0)


def zmin(a, b):
    return z3.If(a <= b, a, b)


def zmax(a, b):
    return z3.If(a >= b, a, b)


# ---------------------------------------------------------------------------- construction

def fresh(d: Dims, tag: str) -> SState:
    """A state of fresh z3 variables named ``tag_...``."""
    I = lambda name: num.var(f"{tag}_{name}")
    B = lambda name: z3.Bool(f"{tag}_{name}")
    reps = []
    for b in range(d.n):
        p = f"r{b}"
        reps.append(SReplica(
            alive=B(f"{p}_alive"),
            log_id=[I(f"{p}_id{i}") for i in range(d.slots)],
            log_ep=[I(f"{p}_ep{i}") for i in range(d.slots)],
            leo=I(f"{p}_leo"), hw=I(f"{p}_hw"), lep=I(f"{p}_lep"), leader=I(f"{p}_leader"),
            isr=[B(f"{p}_isr{j}") for j in range(d.n)],
            remote=[I(f"{p}_remote{j}") for j in range(d.n)],
            truncating=B(f"{p}_trunc"), fr=B(f"{p}_fr"), fr_leader=I(f"{p}_frl"),
            fr_epoch=I(f"{p}_fre"), fr_offset=I(f"{p}_fro"),
            fr_id=[I(f"{p}_frid{i}") for i in range(d.slots)],
            fr_ep=[I(f"{p}_frep{i}") for i in range(d.slots)],
            fr_hw=I(f"{p}_frhw"), fr_leo=I(f"{p}_frleo"), flushed=I(f"{p}_flushed"),
            **_alter_replica(d, lambda name, p=p: I(f"{p}_{name}"),
                             lambda name, p=p: B(f"{p}_{name}")),
            **_change_replica(d, lambda name, p=p: I(f"{p}_{name}"),
                              lambda name, p=p: B(f"{p}_{name}")),
            **_epochs_replica(d, lambda name, p=p: B(f"{p}_{name}")),
            **_delayed_replica(d, lambda name, p=p: I(f"{p}_{name}"),
                               lambda name, p=p: B(f"{p}_{name}")),
            **_shutdown_replica(d, lambda name, p=p: B(f"{p}_{name}")),
            **_failover_replica(d, lambda name, p=p: I(f"{p}_{name}"),
                                lambda name, p=p: B(f"{p}_{name}")),
            log_pe=[I(f"{p}_pe{i}") for i in range(d.slots)] if d.bumps else [],
            fr_pe=[I(f"{p}_frpe{i}") for i in range(d.slots)] if d.bumps else [],
            ckpt=I(f"{p}_ckpt") if d.ckpt else num.val(0),
            esta=I(f"{p}_esta") if d.epoch_start else num.val(-1),
        ))
    E = d.max_epoch + 1
    return SState(
        reps=reps, c_leader=I("c_leader"), c_epoch=I("c_epoch"),
        c_isr=[B(f"c_isr{j}") for j in range(d.n)], c_live=[B(f"c_live{j}") for j in range(d.n)],
        lai=[[B(f"lai{b}_{e}") for e in range(E)] for b in range(d.n)],
        lai_leader=[[I(f"lai{b}_{e}_leader") for e in range(E)] for b in range(d.n)],
        lai_isr=[[[B(f"lai{b}_{e}_isr{j}") for j in range(d.n)] for e in range(E)] for b in range(d.n)],
        pend=[B(f"pend{r}") for r in range(1, d.records + 1)],
        pend_leader=[I(f"pend{r}_leader") for r in range(1, d.records + 1)],
        pend_off=[I(f"pend{r}_off") for r in range(1, d.records + 1)],
        acked=[B(f"acked{r}") for r in range(1, d.records + 1)],
        acked_off=[I(f"acked{r}_off") for r in range(1, d.records + 1)],
        cv_len=I("cv_len"), cv=[I(f"cv{i}") for i in range(d.slots)],
        written=I("written"), crashes=I("crashes"), losses=I("losses"),
        rank=[I(f"rank{b}") if d.max_reassign else num.val(b) for b in range(d.n)],
        pref=I("pref") if d.max_preferred else num.val(0),
        reass=I("reass") if d.max_reassign else num.val(0),
        lai_cur=[[B(f"laicur{b}_{e}") for e in range(E)] for b in range(d.n)] if d.alter else [],
        elr=[B(f"elr{j}") for j in range(d.n)] if d.elr else [],
        lke=[B(f"lke{j}") for j in range(d.n)] if d.elr else [],
        recovering=B("recovering") if d.kraft else z3.BoolVal(False),
        delayed=I("delayed") if d.delayed else num.val(0),
        cshut=I("cshut") if d.shutdowns else num.val(0),
        sexp=I("sexp") if d.expiries else num.val(0),
        smr=I("smr") if d.stale_reads else num.val(0),
        **_failover_state(d, I, B),
        retr=I("retr") if d.retries else num.val(0),
        pe=I("pe") if d.bumps else num.val(0), nseq=I("nseq") if d.bumps else num.val(0),
        seqs=[I(f"seq{r}") for r in range(1, d.records + 1)] if d.bumps else [],
        **_consumer_state(d, I, B),
        rd=[I(f"rd{r}") for r in range(1, d.records + 1)] if d.reads else [],
    )


def _consumer_state(d: Dims, I, B) -> dict:
    """The consumer's scalars (issue 29be): variables with ``--consumer-commit`` (the restart
    counter only with ``--max-consumer-restarts``), else constants (no action changes them)."""
    V, F = num.val, z3.BoolVal(False)
    if not d.consumer:
        return dict(cpos=V(0), ccom=V(0), chand=F, cproc=V(0), ctwice=F, crst=V(0))
    return dict(cpos=I("cpos"), ccom=I("ccom"), chand=B("chand"), cproc=I("cproc"),
                ctwice=B("ctwice"), crst=I("crst") if d.consumer_restarts else V(0))


def _consumer_encode(d: Dims, s: ClusterState) -> dict:
    """``_consumer_state`` for an explicit state."""
    if not d.consumer:
        return _consumer_state(d, None, None)
    V, T = num.val, z3.BoolVal
    return dict(cpos=V(s.consumer_position), ccom=V(s.consumer_committed),
                chand=T(bool(s.consumer_in_hand)), cproc=V(s.consumer_processed),
                ctwice=T(bool(s.consumer_processed_twice)),
                crst=V(s.consumer_restarts if d.consumer_restarts else 0))


def _alter_replica(d: Dims, I, B) -> dict:
    """A replica's AlterPartition fields: variables under ``alter-partition``, else constants
    (no action changes them, and the formulas fold)."""
    if not d.alter:
        return dict(alt=num.val(0), alt_isr=[], alt_ep=num.val(0), alt_cur=z3.BoolVal(False),
                    pec=z3.BoolVal(False))
    return dict(alt=I("alt"), alt_isr=[B(f"altisr{j}") for j in range(d.n)], alt_ep=I("altep"),
                alt_cur=B("altcur"), pec=B("pec"))


def _epochs_replica(d: Dims, B) -> dict:
    """A replica's KIP-903 fields (issue 29h): variables under ``broker-epoch-in-fetch``, else
    constants (no action changes them)."""
    if not d.fetch_epochs:
        return dict(rcur=[], alt_mcur=z3.BoolVal(False))
    return dict(rcur=[B(f"rcur{j}") for j in range(d.n)], alt_mcur=B("altmcur"))


def _epochs_encode(d: Dims, r: ReplicaState) -> dict:
    """``_epochs_replica`` for an explicit replica (``remote_current`` is ``()`` when the
    feature is off, else one 0/1 per broker; the member bit is ``alter_partition[4]``)."""
    if not d.fetch_epochs:
        return _epochs_replica(d, None)
    T = z3.BoolVal
    a = r.alter_partition or (0, (), 0, False, False)
    cur = tuple(r.remote_current) or (0,) * d.n
    return dict(rcur=[T(bool(x)) for x in cur], alt_mcur=T(bool(a[4])))


def _delayed_replica(d: Dims, I, B) -> dict:
    """A replica's delayed fetch (issue 29z): variables under ``--max-delayed-fetches``, else
    constants (no action changes them)."""
    if not d.delayed:
        return dict(dreq=z3.BoolVal(False), dreq_leader=num.val(0), dreq_epoch=num.val(0),
                    dreq_offset=num.val(0), dreq_cur=z3.BoolVal(False))
    return dict(dreq=B("dreq"), dreq_leader=I("dreql"), dreq_epoch=I("dreqe"),
                dreq_offset=I("dreqo"), dreq_cur=B("dreqcur"))


def _delayed_encode(d: Dims, r: ReplicaState) -> dict:
    """``_delayed_replica`` for an explicit replica: ``fetch_request`` is ``()`` or ``(leader,
    leader_epoch, fetch_offset, current)``."""
    if not d.delayed:
        return _delayed_replica(d, None, None)
    V, T = num.val, z3.BoolVal
    q = r.fetch_request or (0, 0, 0, False)
    return dict(dreq=T(bool(r.fetch_request)), dreq_leader=V(q[0]), dreq_epoch=V(q[1]),
                dreq_offset=V(q[2]), dreq_cur=T(bool(q[3])))


def _shutdown_replica(d: Dims, B) -> dict:
    """A replica's shutting-down flag and clean-shutdown file (issue 29ac): variables under
    ``--max-controlled-shutdowns`` (the file only with KIP-966, the one rule that reads it), else
    constants (no action changes them)."""
    F = z3.BoolVal(False)
    if not d.shutdowns:
        return dict(sd=F, clean=F)
    return dict(sd=B("sd"), clean=B("clean") if d.elr else F)


def _shutdown_encode(d: Dims, r: ReplicaState) -> dict:
    """``_shutdown_replica`` for an explicit replica."""
    if not d.shutdowns:
        return _shutdown_replica(d, None)
    T = z3.BoolVal
    return dict(sd=T(bool(r.shutting_down)), clean=T(bool(r.clean_shutdown) and d.elr))


def _failover_replica(d: Dims, I, B) -> dict:
    """A replica's controller-epoch fields (issue 29ak): variables under
    ``--max-controller-failovers``, else constants (no action changes them)."""
    if not d.failovers:
        return dict(cseen=num.val(0), zreq=z3.BoolVal(False), zreg=z3.BoolVal(False))
    return dict(cseen=I("cseen"), zreq=B("zreq"),
                zreg=B("zreg") if d.zombie_epoch else z3.BoolVal(False))


def _failover_state(d: Dims, I, B) -> dict:
    """The partition's controller-epoch fields (issue 29ak): variables under
    ``--max-controller-failovers``, else constants."""
    E = d.max_epoch + 1
    if not d.failovers:
        return dict(cep=num.val(0), cfail=num.val(0), lai_cep=[], zomb=z3.BoolVal(False),
                    z_cep=num.val(0), z_leader=num.val(0), z_lep=num.val(0), z_isr=[])
    return dict(cep=I("cep"), cfail=I("cfail"),
                lai_cep=[[I(f"lai{b}_{e}_cep") for e in range(E)] for b in range(d.n)],
                zomb=B("zomb"), z_cep=I("z_cep"), z_leader=I("z_leader"), z_lep=I("z_lep"),
                z_isr=[B(f"z_isr{j}") for j in range(d.n)])


def _failover_encode(d: Dims, s: ClusterState) -> dict:
    """``_failover_state`` for an explicit state: ``zombie_controller`` is ``()`` or
    ``(controller_epoch, leader, leader_epoch, isr)``, ``leader_and_isr_controller_epochs``
    ``(broker, leader_epoch, controller_epoch)`` triples."""
    if not d.failovers:
        return _failover_state(d, None, None)
    V, T = num.val, z3.BoolVal
    E = d.max_epoch + 1
    lai_cep = [[V(0)] * E for _ in range(d.n)]
    for b, e, c in s.leader_and_isr_controller_epochs:
        lai_cep[b][e] = V(c)
    z = s.zombie_controller or (0, 0, 0, ())
    return dict(cep=V(s.controller_epoch), cfail=V(s.controller_failovers), lai_cep=lai_cep,
                zomb=T(bool(s.zombie_controller)), z_cep=V(z[0]), z_leader=V(z[1]),
                z_lep=V(z[2]), z_isr=[T(j in z[3]) for j in range(d.n)])


def _alter_encode(d: Dims, r: ReplicaState) -> dict:
    """``_alter_replica`` for an explicit replica: ``alter_partition`` is ``()`` or ``(state,
    isr, leader_epoch, partition_epoch_current, member_epoch_current)``."""
    if not d.alter:
        return _alter_replica(d, None, None)
    V, T = num.val, z3.BoolVal
    a = r.alter_partition or (0, (), 0, False, False)
    return dict(alt=V(a[0]), alt_isr=[T(j in a[1]) for j in range(d.n)], alt_ep=V(a[2]),
                alt_cur=T(bool(a[3])), pec=T(bool(r.partition_epoch_current)))


def _change_replica(d: Dims, I, B) -> dict:
    """A replica's pending KRaft change: variables under ``kraft``, else constants."""
    if not d.kraft:
        return dict(chg=z3.BoolVal(False), chg_isr=[], chg_ep=num.val(0), chg_cur=z3.BoolVal(False))
    return dict(chg=B("chg"), chg_isr=[B(f"chgisr{j}") for j in range(d.n)], chg_ep=I("chgep"),
                chg_cur=B("chgcur"))


def _change_encode(d: Dims, r: ReplicaState) -> dict:
    """``_change_replica`` for an explicit replica: ``partition_change`` is ``()`` or ``(isr,
    leader_epoch, current)``."""
    if not d.kraft:
        return _change_replica(d, None, None)
    V, T = num.val, z3.BoolVal
    c = r.partition_change or ((), 0, False)
    return dict(chg=T(bool(r.partition_change)), chg_isr=[T(j in c[0]) for j in range(d.n)],
                chg_ep=V(c[1]), chg_cur=T(bool(c[2])))


def encode(d: Dims, s: ClusterState) -> SState:
    """An explicit state as z3 constants (don't-care slots are 0)."""
    V, T = num.val, z3.BoolVal

    def slots(values):
        values = list(values)
        if len(values) > d.slots:
            raise ValueError(f"a log of {len(values)} records exceeds {d.slots} slots")
        return [V(v) for v in values] + [V(0)] * (d.slots - len(values))

    reps = []
    for r in s.replicas:
        fr_pe = [0] * d.slots
        if r.fetch_response:
            fl, fe, fo, recs, fhw, fleo = r.fetch_response
            ids, eps = [0] * d.slots, [0] * d.slots
            for k, (rid, ep) in enumerate(recs):
                ids[fo + k], eps[fo + k] = rid, ep
                if d.bumps:
                    fr_pe[fo + k] = r.response_producer_epochs[k]
            fr = (T(True), V(fl), V(fe), V(fo), slots(ids), slots(eps), V(fhw), V(fleo))
        else:
            fr = (T(False), V(0), V(0), V(0), slots([]), slots([]), V(0), V(0))
        reps.append(SReplica(
            alive=T(r.alive), log_id=slots(x[0] for x in r.log), log_ep=slots(x[1] for x in r.log),
            leo=V(len(r.log)), hw=V(r.high_watermark), lep=V(r.leader_epoch), leader=V(r.leader),
            isr=[T(j in r.isr) for j in range(d.n)],
            remote=[V(x) for x in r.remote_log_end_offsets], truncating=T(r.truncating),
            fr=fr[0], fr_leader=fr[1], fr_epoch=fr[2], fr_offset=fr[3], fr_id=fr[4], fr_ep=fr[5],
            fr_hw=fr[6], fr_leo=fr[7], flushed=V(r.flushed_offset), **_alter_encode(d, r),
            **_change_encode(d, r),
            **_epochs_encode(d, r),
            **_delayed_encode(d, r),
            **_shutdown_encode(d, r),
            **(dict(cseen=V(r.controller_epoch_seen), zreq=T(bool(r.zombie_request)),
                    zreg=T(bool(r.registered_since_failover) and d.zombie_epoch))
               if d.failovers else _failover_replica(d, None, None)),
            log_pe=slots(r.log_producer_epochs) if d.bumps else [],
            fr_pe=slots(fr_pe) if d.bumps else [],
            ckpt=V(r.checkpointed_hw if d.ckpt else 0),
            esta=V(r.epoch_start_offset if d.epoch_start else -1),
        ))
    c = s.controller
    E = d.max_epoch + 1
    lai = [[T(False)] * E for _ in range(d.n)]
    lai_leader = [[V(0)] * E for _ in range(d.n)]
    lai_isr = [[[T(False)] * d.n for _ in range(E)] for _ in range(d.n)]
    for b, e, leader, isr in s.leader_and_isr:
        if z3.is_true(lai[b][e]):
            raise ValueError(f"two LeaderAndIsr requests for broker {b} in epoch {e}")
        lai[b][e] = T(True)
        lai_leader[b][e] = V(leader)
        lai_isr[b][e] = [T(j in isr) for j in range(d.n)]
    R = d.records
    pend, pend_leader, pend_off = [T(False)] * R, [V(0)] * R, [V(0)] * R
    for leader, rid, off in s.pending_acks:
        pend[rid - 1], pend_leader[rid - 1], pend_off[rid - 1] = T(True), V(leader), V(off)
    acked, acked_off = [T(False)] * R, [V(0)] * R
    for rid, off in s.acked:
        acked[rid - 1], acked_off[rid - 1] = T(True), V(off)
    return SState(
        reps=reps, c_leader=V(c.leader), c_epoch=V(c.leader_epoch),
        c_isr=[T(j in c.isr) for j in range(d.n)], c_live=[T(j in c.live_brokers) for j in range(d.n)],
        lai=lai, lai_leader=lai_leader, lai_isr=lai_isr,
        pend=pend, pend_leader=pend_leader, pend_off=pend_off, acked=acked, acked_off=acked_off,
        cv_len=V(len(s.consumer_visible)), cv=slots(s.consumer_visible),
        written=V(s.records_written), crashes=V(s.crashes), losses=V(s.unflushed_losses),
        rank=[V(r.assignment_rank if d.max_reassign else b) for b, r in enumerate(s.replicas)],
        pref=V(s.preferred_elections if d.max_preferred else 0),
        reass=V(s.reassignments if d.max_reassign else 0),
        lai_cur=([[T((b, e) in s.leader_and_isr_current) for e in range(E)] for b in range(d.n)]
                 if d.alter else []),
        elr=[T(j in s.elr) for j in range(d.n)] if d.elr else [],
        lke=[T(j in s.last_known_elr) for j in range(d.n)] if d.elr else [],
        recovering=T(bool(s.leader_recovering)) if d.kraft else T(False),
        delayed=V(s.delayed_fetches if d.delayed else 0),
        cshut=V(s.controlled_shutdowns if d.shutdowns else 0),
        sexp=V(s.session_expiries if d.expiries else 0),
        smr=V(s.stale_metadata_reads if d.stale_reads else 0),
        **_failover_encode(d, s),
        retr=V(s.retries if d.retries else 0),
        pe=V(s.producer_epoch if d.bumps else 0), nseq=V(s.next_sequence if d.bumps else 0),
        seqs=[V(x) for x in s.sequences[:d.records]] if d.bumps else [],
        **_consumer_encode(d, s),
        rd=_reads_encode(d, s),
    )


def _reads_encode(d: Dims, s: ClusterState) -> list:
    """``SState.rd`` for an explicit state (issue 29bf): ``read_offsets`` is ``(record,
    offset)`` pairs; a record no consumer could read is -1."""
    if not d.reads:
        return []
    rd = [-1] * d.records
    for rid, off in s.read_offsets:
        rd[rid - 1] = off
    return [num.val(x) for x in rd]


# ---------------------------------------------------------------------------- flattening

_REPLICA_FIELDS = [f for f in SReplica.__dataclass_fields__]
_STATE_FIELDS = [f for f in SState.__dataclass_fields__ if f not in ("reps", "extra")]


def _flat(x, out: list) -> None:
    if isinstance(x, list):
        for y in x:
            _flat(y, out)
    else:
        out.append(x if isinstance(x, z3.ExprRef) else (z3.BoolVal(x) if isinstance(x, bool) else num.val(x)))


def leaves(s: SState) -> list:
    """Every term of ``s`` in a fixed order (the inverse of ``rebuild``)."""
    out: list = []
    for r in s.reps:
        for f in _REPLICA_FIELDS:
            _flat(getattr(r, f), out)
    for f in _STATE_FIELDS:
        _flat(getattr(s, f), out)
    return out


def rebuild(template: SState, terms: list) -> SState:
    """A state shaped like ``template`` holding ``terms`` (in ``leaves`` order)."""
    it = iter(terms)

    def take(x):
        return [take(y) for y in x] if isinstance(x, list) else next(it)

    reps = [SReplica(**{f: take(getattr(r, f)) for f in _REPLICA_FIELDS}) for r in template.reps]
    return SState(reps=reps, **{f: take(getattr(template, f)) for f in _STATE_FIELDS})


# ---------------------------------------------------------------------------- equality

def _eq_log(n1, ids1, eps1, ids2, eps2, lo=0):
    """Slots ``lo <= i < n1`` agree."""
    out = []
    for i in range(len(ids1)):
        inside = z3.And(i >= lo, i < n1) if not isinstance(lo, int) or lo else (i < n1)
        out.append(z3.Implies(inside, z3.And(ids1[i] == ids2[i], eps1[i] == eps2[i])))
    return out


def eq_replica(a: SReplica, b: SReplica) -> list:
    out = [a.alive == b.alive, a.leo == b.leo, a.hw == b.hw, a.lep == b.lep, a.leader == b.leader,
           a.truncating == b.truncating, a.fr == b.fr, a.flushed == b.flushed]
    out += _eq_log(a.leo, a.log_id, a.log_ep, b.log_id, b.log_ep)
    if a.log_pe:  # issue 29at: the batches' producer epochs
        out += _eq_log(a.leo, a.log_pe, a.log_pe, b.log_pe, b.log_pe)
    out += [x == y for x, y in zip(a.isr, b.isr)]
    out += [x == y for x, y in zip(a.remote, b.remote)]
    fr_same = [a.fr_leader == b.fr_leader, a.fr_epoch == b.fr_epoch, a.fr_offset == b.fr_offset,
               a.fr_hw == b.fr_hw, a.fr_leo == b.fr_leo]
    fr_same += _eq_log(a.fr_leo, a.fr_id, a.fr_ep, b.fr_id, b.fr_ep, lo=a.fr_offset)
    if a.fr_pe:  # issue 29at
        fr_same += _eq_log(a.fr_leo, a.fr_pe, a.fr_pe, b.fr_pe, b.fr_pe, lo=a.fr_offset)
    out.append(z3.Implies(a.fr, z3.And(fr_same)))
    if a.alt_isr:  # alter-partition: the request's fields mean something only while it exists
        out += [a.alt == b.alt, a.pec == b.pec,
                z3.Implies(a.alt != 0, z3.And([a.alt_ep == b.alt_ep, a.alt_cur == b.alt_cur]
                                              + [x == y for x, y in zip(a.alt_isr, b.alt_isr)]))]
    if a.chg_isr:  # kraft: the pending change's fields mean something only while it exists
        out += [a.chg == b.chg,
                z3.Implies(a.chg, z3.And([a.chg_ep == b.chg_ep, a.chg_cur == b.chg_cur]
                                         + [x == y for x, y in zip(a.chg_isr, b.chg_isr)]))]
    if a.rcur:  # broker-epoch-in-fetch (issue 29h): the member bit only while a request exists
        out += [x == y for x, y in zip(a.rcur, b.rcur)]
        out.append(z3.Implies(a.alt != 0, a.alt_mcur == b.alt_mcur))
    if not (z3.is_false(a.dreq) and z3.is_false(b.dreq)):  # a delayed fetch (issue 29z)
        out += [a.dreq == b.dreq,
                z3.Implies(a.dreq, z3.And(a.dreq_leader == b.dreq_leader,
                                          a.dreq_epoch == b.dreq_epoch,
                                          a.dreq_offset == b.dreq_offset, a.dreq_cur == b.dreq_cur))]
    out += [x == y for x, y in ((a.sd, b.sd), (a.clean, b.clean)) if not x.eq(y)]  # (29ac)
    out += [x == y for x, y in ((a.cseen, b.cseen), (a.zreq, b.zreq), (a.zreg, b.zreg))
            if not x.eq(y)]  # (29ak, 29bi)
    if not a.ckpt.eq(b.ckpt):  # --hw-checkpoint interval
        out.append(a.ckpt == b.ckpt)
    if not a.esta.eq(b.esta):  # Kafka 2.1's epoch start offset
        out.append(a.esta == b.esta)
    return out


def eq(a: SState, b: SState) -> z3.BoolRef:
    """The two states are the same explicit state."""
    out = []
    for ra, rb in zip(a.reps, b.reps):
        out += eq_replica(ra, rb)
    out += [a.c_leader == b.c_leader, a.c_epoch == b.c_epoch, a.cv_len == b.cv_len,
            a.written == b.written, a.crashes == b.crashes, a.losses == b.losses]
    if not a.retr.eq(b.retr):  # (issue 29aq)
        out.append(a.retr == b.retr)
    if a.seqs:  # (issue 29at)
        out += [a.pe == b.pe, a.nseq == b.nseq] + [x == y for x, y in zip(a.seqs, b.seqs)]
    out += [x == y for x, y in zip(a.c_isr, b.c_isr)]
    out += [x == y for x, y in zip(a.c_live, b.c_live)]
    for bb in range(len(a.lai)):
        for e in range(len(a.lai[bb])):
            same = [a.lai_leader[bb][e] == b.lai_leader[bb][e]]
            same += [x == y for x, y in zip(a.lai_isr[bb][e], b.lai_isr[bb][e])]
            out += [a.lai[bb][e] == b.lai[bb][e], z3.Implies(a.lai[bb][e], z3.And(same))]
    for r in range(len(a.pend)):
        out += [a.pend[r] == b.pend[r],
                z3.Implies(a.pend[r], z3.And(a.pend_leader[r] == b.pend_leader[r],
                                             a.pend_off[r] == b.pend_off[r])),
                a.acked[r] == b.acked[r],
                z3.Implies(a.acked[r], a.acked_off[r] == b.acked_off[r])]
    out += [z3.Implies(i < a.cv_len, a.cv[i] == b.cv[i]) for i in range(len(a.cv))]
    out += [x == y for x, y in zip(a.rank + [a.pref, a.reass], b.rank + [b.pref, b.reass])
            if not x.eq(y)]  # (the constants of a configuration without the operator's moves)
    out += [x == y for xs, ys in zip(a.lai_cur, b.lai_cur) for x, y in zip(xs, ys)]
    out += [x == y for x, y in zip(a.elr + a.lke, b.elr + b.lke)]
    if not a.recovering.eq(b.recovering):
        out.append(a.recovering == b.recovering)
    if not a.delayed.eq(b.delayed):
        out.append(a.delayed == b.delayed)
    out += [x == y for x, y in ((a.cshut, b.cshut), (a.sexp, b.sexp)) if not x.eq(y)]  # (29ac)
    if not a.smr.eq(b.smr):  # (issue 29bc)
        out.append(a.smr == b.smr)
    if a.lai_cep:  # issue 29ak: a request's controller epoch means something while it is in flight
        out += [a.cep == b.cep, a.cfail == b.cfail, a.zomb == b.zomb,
                z3.Implies(a.zomb, z3.And([a.z_cep == b.z_cep, a.z_leader == b.z_leader,
                                           a.z_lep == b.z_lep]
                                          + [x == y for x, y in zip(a.z_isr, b.z_isr)]))]
        out += [z3.Implies(a.lai[bb][e], a.lai_cep[bb][e] == b.lai_cep[bb][e])
                for bb in range(len(a.lai)) for e in range(len(a.lai[bb]))]
    out += [x == y for x, y in ((a.cpos, b.cpos), (a.ccom, b.ccom), (a.chand, b.chand),
                                (a.cproc, b.cproc), (a.ctwice, b.ctwice), (a.crst, b.crst))
            if not x.eq(y)]  # the consumer (issue 29be)
    out += [x == y for x, y in zip(a.rd, b.rd)]  # what consumers read (issue 29bf)
    return z3.And(out)


# ---------------------------------------------------------------------------- domains

def well_formed(d: Dims, s: SState) -> z3.BoolRef:
    """Value ranges of an arbitrary state (for k-induction): every field holds a value the
    explicit state could hold, so a decoded state is a valid ``ClusterState``."""
    L, E, n = d.slots, d.max_epoch, d.n
    out = []
    rng = lambda x, lo, hi: z3.And(x >= lo, x <= hi)
    for r in s.reps:
        out += [rng(r.leo, 0, L), rng(r.hw, 0, L), rng(r.lep, -1, E), rng(r.leader, -1, n - 1),
                rng(r.flushed, 0, L)]
        for i in range(L):
            out += [z3.Implies(i < r.leo, z3.And(rng(r.log_id[i], 1, d.records), rng(r.log_ep[i], 0, E)))]
        out += [rng(x, -1, L) for x in r.remote]
        if d.ckpt:  # the checkpoint holds an HW the broker had (a truncation may leave it above the LEO)
            out.append(rng(r.ckpt, 0, L))
        if d.epoch_start:
            out.append(rng(r.esta, -1, L))
        out += [z3.Implies(r.fr, z3.And(
            [rng(r.fr_leader, 0, n - 1), rng(r.fr_epoch, -1, E), rng(r.fr_offset, 0, L),
             rng(r.fr_hw, 0, L), rng(r.fr_leo, 0, L)]
            + [z3.Implies(z3.And(i >= r.fr_offset, i < r.fr_leo),
                          z3.And(rng(r.fr_id[i], 1, d.records), rng(r.fr_ep[i], 0, E)))
               for i in range(L)]))]
    out += [rng(s.c_leader, -1, n - 1), rng(s.c_epoch, 0, E), rng(s.cv_len, 0, L),
            rng(s.written, 0, d.records),
            rng(s.crashes, 0, num.TOP if d.unbounded_crashes else d.max_crashes),
            rng(s.losses, 0, num.TOP if d.unbounded_crashes else d.max_losses)]
    out += [z3.Implies(i < s.cv_len, rng(s.cv[i], 1, d.records)) for i in range(L)]
    for b in range(n):
        for e in range(E + 1):
            out.append(z3.Implies(s.lai[b][e], rng(s.lai_leader[b][e], -1, n - 1)))
    for r in range(d.records):
        out += [z3.Implies(s.pend[r], z3.And(rng(s.pend_leader[r], 0, n - 1), rng(s.pend_off[r], 0, L - 1))),
                z3.Implies(s.acked[r], rng(s.acked_off[r], 0, L - 1)),
                z3.Not(z3.And(s.pend[r], s.acked[r]))]
    if d.max_reassign:  # the assignment is an ordering of the brokers
        out += [rng(x, 0, n - 1) for x in s.rank] + [z3.Distinct(s.rank)]
    if d.max_preferred:
        out.append(rng(s.pref, 0, d.max_preferred))
    if d.max_reassign:
        out.append(rng(s.reass, 0, d.max_reassign))
    if d.alter:  # an AlterPartition: none (0) or one of the four states, sent in an epoch
        out += [z3.And(rng(r.alt, 0, 4), z3.Implies(r.alt != 0, rng(r.alt_ep, 0, E)))
                for r in s.reps]
    if d.kraft:  # a pending change was written in an epoch
        out += [z3.Implies(r.chg, rng(r.chg_ep, 0, E)) for r in s.reps]
    if d.delayed:  # a delayed fetch was sent to another broker (the kernel's ``may_fetch``)
        out.append(rng(s.delayed, 0, d.delayed))
        out += [z3.Implies(r.dreq, z3.And(rng(r.dreq_leader, 0, n - 1), r.dreq_leader != b,
                                          rng(r.dreq_epoch, -1, E), rng(r.dreq_offset, 0, L)))
                for b, r in enumerate(s.reps)]
    if d.shutdowns:  # issue 29ac: the counters within their bounds
        out.append(rng(s.cshut, 0, d.shutdowns))
    if d.expiries:
        out.append(rng(s.sexp, 0, d.expiries))
    if d.stale_reads:  # issue 29bc
        out.append(rng(s.smr, 0, d.stale_reads))
    if d.failovers:  # issue 29ak: one controller epoch per failover, from 0
        F = d.failovers
        out += [rng(s.cfail, 0, F), s.cep == s.cfail]
        out += [rng(r.cseen, 0, F) for r in s.reps]
        out += [z3.Implies(s.lai[b][e], rng(s.lai_cep[b][e], 0, F))
                for b in range(n) for e in range(E + 1)]
        out.append(z3.Implies(s.zomb, z3.And(rng(s.z_cep, 0, F - 1), rng(s.z_leader, -1, n - 1),
                                             rng(s.z_lep, 0, E))))
        out += [z3.Implies(r.zreq, s.zomb) for r in s.reps]
        if d.zombie_epoch:  # issue 29bi: set by a registration while a zombie is about
            out += [z3.Implies(r.zreg, z3.And(s.zomb, r.alive)) for r in s.reps]
    if d.retries:  # issue 29aq: the retries within their bound
        out.append(rng(s.retr, 0, d.retries))
    if d.bumps:  # issue 29at: the producer epoch within its bound, the sequences below records
        out += [rng(s.pe, 0, d.bumps), rng(s.nseq, 0, d.records)]
        out += [rng(x, -1, d.records - 1) for x in s.seqs]
        for r in s.reps:
            out += [z3.Implies(i < r.leo, rng(r.log_pe[i], 0, d.bumps)) for i in range(d.slots)]
    if d.consumer:  # issue 29be: offsets within the log's slots, the restarts within their bound
        out += [rng(s.cpos, 0, L), rng(s.ccom, 0, L), rng(s.cproc, 0, L),
                rng(s.crst, 0, d.consumer_restarts)]
    if d.reads:  # issue 29bf: a record read was read at a log slot, or never (-1)
        out += [rng(x, -1, L - 1) for x in s.rd]
    return z3.And(out)


def well_formed_values(d: Dims, s: ClusterState) -> bool:
    """``well_formed`` read on an explicit state: every field within its encoding range. k-induction
    assumes it of every state, so the tests check it on every reachable state (and that it agrees
    with ``well_formed``)."""
    L, E, n = d.slots, d.max_epoch, d.n
    ok = lambda x, lo, hi: lo <= x <= hi  # noqa: E731
    for r in s.replicas:
        if not (ok(len(r.log), 0, L) and ok(r.high_watermark, 0, L) and ok(r.leader_epoch, -1, E)
                and ok(r.leader, -1, n - 1) and ok(r.flushed_offset, 0, L)
                and (not d.ckpt or ok(r.checkpointed_hw, 0, L))
                and (not d.epoch_start or ok(r.epoch_start_offset, -1, L))):
            return False
        if not all(ok(rid, 1, d.records) and ok(ep, 0, E) for rid, ep in r.log):
            return False
        if not all(ok(x, -1, L) for x in r.remote_log_end_offsets):
            return False
        if r.fetch_response:
            lead, epoch, offset, records, hw, leo = r.fetch_response
            if not (ok(lead, 0, n - 1) and ok(epoch, -1, E) and ok(offset, 0, L) and ok(hw, 0, L)
                    and ok(leo, 0, L)):
                return False
            if not all(ok(rid, 1, d.records) and ok(ep, 0, E) for rid, ep in records[:max(0, leo - offset)]):
                return False
    c = s.controller
    if not (ok(c.leader, -1, n - 1) and ok(c.leader_epoch, 0, E) and ok(len(s.consumer_visible), 0, L)
            and ok(s.records_written, 0, d.records)
            and ok(s.crashes, 0, num.TOP if d.unbounded_crashes else d.max_crashes)
            and ok(s.unflushed_losses, 0, num.TOP if d.unbounded_crashes else d.max_losses)
            and ok(s.retries, 0, d.retries)
            and (not d.bumps or (ok(s.producer_epoch, 0, d.bumps) and ok(s.next_sequence, 0, d.records)
                                 and all(ok(x, -1, d.records - 1) for x in s.sequences[:d.records])
                                 and all(ok(x, 0, d.bumps) for r in s.replicas
                                         for x in r.log_producer_epochs)))):
        return False
    if not all(ok(x, 1, d.records) for x in s.consumer_visible):
        return False
    if not all(ok(leader, -1, n - 1) for _, _, leader, _ in s.leader_and_isr):
        return False
    if not all(ok(leader, 0, n - 1) and ok(off, 0, L - 1) for leader, _, off in s.pending_acks):
        return False
    if not all(ok(off, 0, L - 1) for _, off in s.acked):
        return False
    if d.max_reassign and sorted(r.assignment_rank for r in s.replicas) != list(range(n)):
        return False
    if d.max_preferred and not ok(s.preferred_elections, 0, d.max_preferred):
        return False
    if d.max_reassign and not ok(s.reassignments, 0, d.max_reassign):
        return False
    if d.alter and not all(not r.alter_partition or (ok(r.alter_partition[0], 1, 4)
                                                     and ok(r.alter_partition[2], 0, E))
                           for r in s.replicas):
        return False
    if d.kraft and not all(not r.partition_change or ok(r.partition_change[1], 0, E)
                           for r in s.replicas):
        return False
    if d.delayed and not (ok(s.delayed_fetches, 0, d.delayed) and all(
            not r.fetch_request or (ok(r.fetch_request[0], 0, n - 1) and r.fetch_request[0] != b
                                    and ok(r.fetch_request[1], -1, E)
                                    and ok(r.fetch_request[2], 0, L))
            for b, r in enumerate(s.replicas))):
        return False
    if d.shutdowns and not ok(s.controlled_shutdowns, 0, d.shutdowns):  # (issue 29ac)
        return False
    if d.expiries and not ok(s.session_expiries, 0, d.expiries):
        return False
    if d.stale_reads and not ok(s.stale_metadata_reads, 0, d.stale_reads):  # (issue 29bc)
        return False
    if d.failovers:  # (issue 29ak)
        F = d.failovers
        z = s.zombie_controller
        if not (ok(s.controller_failovers, 0, F) and s.controller_epoch == s.controller_failovers
                and all(ok(r.controller_epoch_seen, 0, F) for r in s.replicas)
                and all(ok(c, 0, F) for _, _, c in s.leader_and_isr_controller_epochs)
                and (not z or (ok(z[0], 0, F - 1) and ok(z[1], -1, n - 1) and ok(z[2], 0, E)))
                and all(z or not r.zombie_request for r in s.replicas)
                and all((z and r.alive) or not r.registered_since_failover
                        for r in s.replicas)):
            return False
    if d.consumer and not (ok(s.consumer_position, 0, L) and ok(s.consumer_committed, 0, L)
                           and ok(s.consumer_processed, 0, L)
                           and ok(s.consumer_restarts, 0, d.consumer_restarts)):  # (issue 29be)
        return False
    if d.reads and not all(ok(rid, 1, d.records) and ok(off, 0, L - 1)
                           for rid, off in s.read_offsets):  # (issue 29bf)
        return False
    return not {rid for _, rid, _ in s.pending_acks} & {rid for rid, _ in s.acked}

# ---------------------------------------------------------------------------- decoding

def decode(d: Dims, m: z3.ModelRef, s: SState) -> ClusterState:
    """The explicit state a z3 model gives ``s``."""
    iv = lambda x: num.to_int(m.eval(x, model_completion=True))
    bv = lambda x: z3.is_true(m.eval(x, model_completion=True))
    reps = []
    for r in s.reps:
        leo = iv(r.leo)
        log = tuple((iv(r.log_id[i]), iv(r.log_ep[i])) for i in range(leo))
        fetch = ()
        if bv(r.fr):
            fo, fleo = iv(r.fr_offset), iv(r.fr_leo)
            recs = tuple((iv(r.fr_id[i]), iv(r.fr_ep[i])) for i in range(fo, fleo))
            fetch = (iv(r.fr_leader), iv(r.fr_epoch), fo, recs, iv(r.fr_hw), fleo)
        reps.append(ReplicaState(
            bv(r.alive), log, iv(r.hw), iv(r.lep), iv(r.leader),
            tuple(j for j in range(d.n) if bv(r.isr[j])), tuple(iv(x) for x in r.remote),
            bv(r.truncating), fetch, iv(r.flushed),
        ))
    controller = PartitionState(
        iv(s.c_leader), iv(s.c_epoch), tuple(j for j in range(d.n) if bv(s.c_isr[j])),
        tuple(j for j in range(d.n) if bv(s.c_live[j])),
    )
    lai = []
    for b in range(d.n):
        for e in range(d.max_epoch + 1):
            if bv(s.lai[b][e]):
                isr = tuple(j for j in range(d.n) if bv(s.lai_isr[b][e][j]))
                lai.append((b, e, iv(s.lai_leader[b][e]), isr))
    pending = sorted((iv(s.pend_leader[r]), r + 1, iv(s.pend_off[r]))
                     for r in range(d.records) if bv(s.pend[r]))
    acked = sorted((r + 1, iv(s.acked_off[r])) for r in range(d.records) if bv(s.acked[r]))
    cv = tuple(iv(s.cv[i]) for i in range(iv(s.cv_len)))
    out = ClusterState(tuple(reps), controller, tuple(sorted(lai)), tuple(pending), tuple(acked),
                       cv, iv(s.written), iv(s.crashes), iv(s.losses))
    if d.alter:
        out = _alter_decode(d, iv, bv, s, out)
    if d.elr:  # KIP-966 (issue 29l); no replica's clean-shutdown file: no controlled shutdowns
        out = out._replace(elr=tuple(j for j in range(d.n) if bv(s.elr[j])),
                           last_known_elr=tuple(j for j in range(d.n) if bv(s.lke[j])))
    if d.kraft:
        out = _change_decode(d, iv, bv, s, out)
    if d.delayed:  # issue 29z: the kernel's state, which a trace replays in
        out = out._replace(replicas=tuple(rep._replace(fetch_request=(
            (iv(r.dreq_leader), iv(r.dreq_epoch), iv(r.dreq_offset), bv(r.dreq_cur))
            if bv(r.dreq) else ())) for r, rep in zip(s.reps, out.replicas)),
            delayed_fetches=iv(s.delayed))
    if d.shutdowns or d.expiries:  # issue 29ac: the kernel's state, which a trace replays in
        out = _shutdown_decode(d, iv, bv, s, out)
    if d.failovers:  # issue 29ak
        out = _failover_decode(d, iv, bv, s, out)
    if d.retries:  # issue 29aq
        out = out._replace(retries=iv(s.retr))
    if d.stale_reads:  # issue 29bc
        out = out._replace(stale_metadata_reads=iv(s.smr))
    if d.consumer:  # issue 29be: the kernel's state, which a trace replays in
        out = out._replace(consumer_position=iv(s.cpos), consumer_committed=iv(s.ccom),
                           consumer_in_hand=bv(s.chand), consumer_processed=iv(s.cproc),
                           consumer_processed_twice=bv(s.ctwice), consumer_restarts=iv(s.crst))
    if d.ckpt:  # --hw-checkpoint interval: the kernel's state, which a trace replays in
        out = out._replace(replicas=tuple(rep._replace(checkpointed_hw=iv(r.ckpt))
                                          for r, rep in zip(s.reps, out.replicas)))
    if d.epoch_start:  # Kafka 2.1: the kernel's state, which a trace replays in
        out = out._replace(replicas=tuple(rep._replace(epoch_start_offset=iv(r.esta))
                                          for r, rep in zip(s.reps, out.replicas)))
    if d.bumps:  # issue 29at
        seqs = tuple(iv(x) for x in s.seqs) + (0,) * (d.slots - d.records)
        out = out._replace(producer_epoch=iv(s.pe), next_sequence=iv(s.nseq), sequences=seqs,
                           replicas=tuple(rep._replace(
                               log_producer_epochs=tuple(iv(r.log_pe[i]) for i in range(len(rep.log))),
                               response_producer_epochs=tuple(
                                   iv(r.fr_pe[i]) for i in range(rep.fetch_response[2],
                                                                 rep.fetch_response[2] + len(rep.fetch_response[3])))
                               if rep.fetch_response else ())
                               for rep, r in zip(out.replicas, s.reps)))
    if d.reads:  # issue 29bf: the kernel's read history (the oracle has none)
        out = out._replace(read_offsets=tuple((k + 1, iv(s.rd[k])) for k in range(d.records)
                                              if iv(s.rd[k]) >= 0))
    if (not d.operators and not d.alter and not d.delayed and not (d.shutdowns or d.expiries)
            and not d.failovers):  # the oracle's state: its fields keep their defaults
        return out
    return out._replace(replicas=tuple(r._replace(assignment_rank=iv(s.rank[b]))
                                       for b, r in enumerate(out.replicas)),
                        preferred_elections=iv(s.pref), reassignments=iv(s.reass))


def _alter_decode(d: Dims, iv, bv, s: SState, out: ClusterState) -> ClusterState:
    """The AlterPartition fields of a decoded state (the kernel's, which a trace replays in)."""
    reps = []
    for r, rep in zip(s.reps, out.replicas):
        state = iv(r.alt)
        alter = ((state, tuple(j for j in range(d.n) if bv(r.alt_isr[j])), iv(r.alt_ep),
                  bv(r.alt_cur), d.fetch_epochs and bv(r.alt_mcur)) if state else ())
        rep = rep._replace(alter_partition=alter, partition_epoch_current=bv(r.pec))
        if d.fetch_epochs:  # KIP-903's remote_current, as the kernel's codec reads it (0/1)
            rep = rep._replace(remote_current=tuple(int(bv(x)) for x in r.rcur))
        reps.append(rep)
    cur = tuple((b, e) for b in range(d.n) for e in range(d.max_epoch + 1) if bv(s.lai_cur[b][e]))
    return out._replace(replicas=tuple(reps), leader_and_isr_current=cur)


def _change_decode(d: Dims, iv, bv, s: SState, out: ClusterState) -> ClusterState:
    """The KRaft fields of a decoded state: each broker's pending change and KIP-704's flag."""
    reps = tuple(rep._replace(partition_change=(
        (tuple(j for j in range(d.n) if bv(r.chg_isr[j])), iv(r.chg_ep), bv(r.chg_cur))
        if bv(r.chg) else ())) for r, rep in zip(s.reps, out.replicas))
    return out._replace(replicas=reps, leader_recovering=bv(s.recovering))


def _shutdown_decode(d: Dims, iv, bv, s: SState, out: ClusterState) -> ClusterState:
    """The controlled-shutdown and session-expiry fields of a decoded state (issue 29ac)."""
    if d.shutdowns:
        out = out._replace(replicas=tuple(
            rep._replace(shutting_down=bv(r.sd), clean_shutdown=bv(r.clean))
            for r, rep in zip(s.reps, out.replicas)), controlled_shutdowns=iv(s.cshut))
    if d.expiries:
        out = out._replace(session_expiries=iv(s.sexp))
    return out


def _failover_decode(d: Dims, iv, bv, s: SState, out: ClusterState) -> ClusterState:
    """The controller-epoch fields of a decoded state (issue 29ak), as the kernel's codec has
    them (a request's controller epoch only while it is in flight)."""
    reps = tuple(rep._replace(controller_epoch_seen=iv(r.cseen), zombie_request=bv(r.zreq),
                              registered_since_failover=bv(r.zreg) if d.zombie_epoch else False)
                 for r, rep in zip(s.reps, out.replicas))
    ceps = tuple((b, e, iv(s.lai_cep[b][e])) for b in range(d.n) for e in range(d.max_epoch + 1)
                 if bv(s.lai[b][e]))
    zombie = ((iv(s.z_cep), iv(s.z_leader), iv(s.z_lep),
               tuple(j for j in range(d.n) if bv(s.z_isr[j]))) if bv(s.zomb) else ())
    return out._replace(replicas=reps, controller_epoch=iv(s.cep),
                        controller_failovers=iv(s.cfail), zombie_controller=zombie,
                        leader_and_isr_controller_epochs=ceps)
