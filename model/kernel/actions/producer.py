"""The producer's actions: a PRODUCE request reaching a broker that believes it leads, the first
time (``ProduceRecord``) and again after an error or a timeout (``ProducerRetry``, with
``--retries``), and the broker's check of an idempotent producer's sequence numbers (KIP-98).

Each action writes every successor it enables into ``out`` (rows) and ``acts`` (action id
and arguments), in a fixed order, and returns the new successor count (``step.py``); the
rules that changed between releases are switches read from ``cfg`` (``model/rules.py``).

Records are batches of one record, numbered 1, 2, ... in send order, so record ``r``'s
sequence number is ``r - 1`` and a broker's producer state is what its log says: the last
batches of the one producer, the newest last. Kafka rebuilds that state from the log after a
truncation, a restart or an unclean election (``UnifiedLog.rebuildProducerState``), which is
why the model can read it off the log instead of keeping it.

With ``--max-producer-epoch-bumps`` (KIP-360, 2.5+) the producer has an epoch, which a failed
batch bumps (``ProducerBumpEpoch``), and a record's sequence is no longer ``r - 1``: the producer
keeps each record's sequence as last sent (``sequences``) and every record it still sends carries
its current epoch; each log keeps the producer epoch of every batch (``log_producer_epochs``,
written by the log writers of ``model/kernel/fields.py``). The broker's producer state is still
read off the log: the epoch of its last batch, and that epoch's last batches. A batch's sequence
need not be in the log: the broker compares sequences only within the producer's current epoch,
and within one epoch a record has one sequence, the one the producer keeps for it until the next
bump (which gives the epoch up).
"""

from __future__ import annotations

from model.kernel.actions.step import (
    NO_ARG, PRODUCE_RECORD, PRODUCER_BUMP_EPOCH, PRODUCER_RETRY, begin,
)
from model.kernel.fields import (
    ACK_DONE, ACK_NONE, ACK_PENDING, ack_leader, ack_state, append_record, believes_it_leads, broker_count,
    isr_of, leader_epoch, log_end_offset, next_sequence, producer_epoch, producer_epoch_at,
    record_id_at, record_slots, records_written, retries, sequence_of, set_ack,
    set_next_sequence, set_producer_epoch, set_records_written, set_retries, set_sequence_of,
    size_of,
)
from model.kernel.guards import G_PRODUCE_NEEDS_MIN_ISR, skipped
from model.kernel.jit import kernel
from model.kernel.params import (
    ACKS, ACKS_1, ACKS_ALL, IDEMPOTENCE, MAX_IN_FLIGHT, MAX_PRODUCER_EPOCH_BUMPS, MAX_RECORDS,
    MAX_RETRIES, MIN_INSYNC_REPLICAS,
)
from model.kernel.transitions import complete_delayed_produce, finish, maybe_increment_leader_hw
from model.rules import (
    RULE_EPOCH_BUMP_REWRITES_IN_FLIGHT, RULE_IDEMPOTENT_EPOCH_BUMP, RULE_IN_FLIGHT_PER_PARTITION,
    RULE_PRODUCER_STATE_FIVE_BATCHES, RULE_UNKNOWN_PRODUCER_ACCEPTS_ANY_SEQUENCE,
)

GIVEN_UP = -1
"""The sequence kept for a record the producer gave up (``ProducerBumpEpoch``): never sent
again."""


@kernel
def produce_record(s, lay, cfg, out, acts, k):
    """ProduceRecord(leader): the producer's PRODUCE reaches a broker that believes it leads (a
    zombie leader accepts writes too). ``Partition.appendRecordsToLeader``: with acks=all, an
    ISR smaller than min.insync.replicas refuses the write (NOT_ENOUGH_REPLICAS, nothing
    changes); the record is appended with the leader's epoch; acks=1 is answered at once,
    acks=all parks in the purgatory until the HW passes it (``DelayedProduce``); the append
    ends with ``maybeIncrementLeaderHW`` (an ISR of one commits at once).

    With ``--retries`` the producer also keeps to ``max.in.flight.requests.per.connection``
    (``NetworkClient.canSendRequest``): a new record goes only while fewer requests wait for
    an answer, and with one in flight only once every earlier record is acknowledged or given
    up (the Sender retries the head of the partition's queue first:
    ``RecordAccumulator.reenqueue``). An idempotent producer's record meets the sequence check
    (``send_record``)."""
    written = records_written(s, lay)
    if written >= cfg[MAX_RECORDS]:
        return k
    acks = cfg[ACKS]
    for b in range(broker_count(lay)):
        if not believes_it_leads(s, lay, b):
            continue
        if cfg[MAX_RETRIES] != 0 and not may_send(s, lay, cfg, written + 1, b):
            continue
        if (acks == ACKS_ALL and size_of(isr_of(s, lay, b)) < cfg[MIN_INSYNC_REPLICAS]
                and not skipped(cfg, G_PRODUCE_NEEDS_MIN_ISR)):
            continue  # NOT_ENOUGH_REPLICAS
        begin(s, out, acts, k, PRODUCE_RECORD, b, NO_ARG)
        t = out[k]
        record_id = written + 1
        set_records_written(t, lay, record_id)
        if cfg[MAX_PRODUCER_EPOCH_BUMPS] != 0:  # RecordAccumulator.drain: the next sequence
            set_sequence_of(t, lay, record_id, next_sequence(s, lay))
            set_next_sequence(t, lay, next_sequence(s, lay) + 1)
        send_record(t, lay, cfg, b, record_id)
        finish(t, lay, cfg)
        k += 1
    return k


@kernel
def producer_retry(s, lay, cfg, out, acts, k):
    """ProducerRetry(record, leader): the producer sends a record again (``Sender.canRetry``,
    ``RecordAccumulator.reenqueue``), at most ``--retries`` times in all (Kafka's ``retries``
    and ``delivery.timeout.ms``, abstracted as a bound), to a broker that believes it leads
    (the producer's metadata may be stale). A record is retried when its request failed
    (NOT_LEADER_OR_FOLLOWER from a leader that stepped down or crashed,
    NOT_ENOUGH_REPLICAS_AFTER_APPEND) or while it still waits in a purgatory: the producer's
    ``request.timeout.ms`` expired, and it cannot tell whether the record will be committed
    (the broker keeps it, and its answer goes nowhere). Only acks=all requests wait for an
    answer in the model (acks=1 is answered at the append, acks=0 never), so only they are
    retried. Without idempotence the record is appended again, wherever the leader's log is:
    a duplicate, or a record after later ones."""
    if cfg[MAX_RETRIES] == 0 or retries(s, lay) >= cfg[MAX_RETRIES] or cfg[ACKS] != ACKS_ALL:
        return k
    n = broker_count(lay)
    for r in range(1, records_written(s, lay) + 1):
        if ack_state(s, lay, r) == ACK_DONE or given_up(s, lay, cfg, r):
            continue
        for b in range(n):
            if not believes_it_leads(s, lay, b) or not may_send(s, lay, cfg, r, b):
                continue
            if size_of(isr_of(s, lay, b)) < cfg[MIN_INSYNC_REPLICAS]:
                continue  # NOT_ENOUGH_REPLICAS: refused, nothing changes; tried again later
            begin(s, out, acts, k, PRODUCER_RETRY, r, b)
            t = out[k]
            set_retries(t, lay, retries(s, lay) + 1)
            set_ack(t, lay, r, ACK_NONE, -1, -1)  # the timed-out request's answer goes nowhere
            send_record(t, lay, cfg, b, r)
            finish(t, lay, cfg)
            k += 1
    return k


@kernel
def may_send(s, lay, cfg, r, b):
    """May the producer send record ``r`` to broker ``b`` now
    (``max.in.flight.requests.per.connection``)? Fewer requests than that wait for an answer,
    ``r``'s own aside; with one in flight (ordering kept), every earlier record is acknowledged,
    or given up: when no retry is left.

    Since 0.10 (rule ``in-flight-per-partition``, KAFKA-3197) one request in flight means one
    for the partition: ``Sender.run`` mutes a partition it drains until its batch is answered.
    Before, the only limit was ``NetworkClient.canSendRequest``'s, per connection: only the
    requests waiting at ``b`` count, and an earlier record blocks a later one only while it
    waits for its retry at the head of the partition's queue (``RecordAccumulator.reenqueue``
    puts it first, and ``drain`` takes the first batch only), not while it is in flight to
    another broker. So after a leader change the next record reaches the new leader while
    the earlier one still waits at the old leader, and the earlier one's retry lands after
    it."""
    per_partition = cfg[RULE_IN_FLIGHT_PER_PARTITION] != 0
    waiting = 0
    for q in range(1, record_slots(lay) + 1):
        if q != r and ack_state(s, lay, q) == ACK_PENDING and (
                per_partition or ack_leader(s, lay, q) == b):
            waiting += 1
    if waiting >= cfg[MAX_IN_FLIGHT]:
        return False
    if cfg[MAX_IN_FLIGHT] == 1 and retries(s, lay) < cfg[MAX_RETRIES]:
        for q in range(1, r):
            if given_up(s, lay, cfg, q):
                continue
            state = ack_state(s, lay, q)
            if state == ACK_NONE or (per_partition and state != ACK_DONE):
                return False
    return True


@kernel
def given_up(s, lay, cfg, r):
    """Has the producer given record ``r`` up (``ProducerBumpEpoch``)? Then it is never sent
    again and holds no later record back."""
    return cfg[MAX_PRODUCER_EPOCH_BUMPS] != 0 and sequence_of(s, lay, r) == GIVEN_UP


@kernel
def send_record(t, lay, cfg, b, r):
    """Broker ``b`` handles a PRODUCE of record ``r`` (``UnifiedLog.appendAsLeader``). For an
    idempotent producer (with ``--retries``) it first checks the sequence against its producer
    state (``ProducerStateManager``, ``ProducerAppendInfo.checkSequence``), read off its log:

    * ``r`` is among the last 5 batches (1 before KAFKA-5494, 1.0): DuplicateSequence; nothing
      is appended and the request is answered with the original offset (acks=all: once the HW
      passes it);
    * the log holds no batch (no producer state): since KIP-360 (2.5) any sequence is accepted;
      before, a sequence other than 0 fails with UNKNOWN_PRODUCER_ID;
    * ``r`` does not follow the last batch: OUT_OF_ORDER_SEQUENCE_NUMBER, refused.

    A refused record is not acknowledged: the producer may retry it. Otherwise the record is
    appended with the leader's epoch and answered as ``produce_record`` says."""
    acks = cfg[ACKS]
    leo = log_end_offset(t, lay, b)
    if cfg[MAX_PRODUCER_EPOCH_BUMPS] != 0:
        if check_sequence_by_epoch(t, lay, cfg, b, r):
            append_record(t, lay, b, r, leader_epoch(t, lay, b), producer_epoch(t, lay))
            answer_append(t, lay, cfg, b, r, leo)
        return
    if cfg[MAX_RETRIES] != 0 and cfg[IDEMPOTENCE] != 0:
        window = 5 if cfg[RULE_PRODUCER_STATE_FIVE_BATCHES] != 0 else 1
        for o in range(max(0, leo - window), leo):
            if record_id_at(t, lay, b, o) == r:  # DuplicateSequence
                if acks == ACKS_ALL:
                    set_ack(t, lay, r, ACK_PENDING, b, o)
                    complete_delayed_produce(t, lay, cfg, b)
                else:
                    set_ack(t, lay, r, ACK_DONE, -1, o)
                return
        if leo == 0:
            if r != 1 and cfg[RULE_UNKNOWN_PRODUCER_ACCEPTS_ANY_SEQUENCE] == 0:
                set_ack(t, lay, r, ACK_NONE, -1, -1)  # UNKNOWN_PRODUCER_ID
                return
        elif r != record_id_at(t, lay, b, leo - 1) + 1:
            set_ack(t, lay, r, ACK_NONE, -1, -1)  # OUT_OF_ORDER_SEQUENCE_NUMBER
            return
    append_record(t, lay, b, r, leader_epoch(t, lay, b), 0)
    answer_append(t, lay, cfg, b, r, leo)


@kernel
def answer_append(t, lay, cfg, b, r, offset):
    """Record ``r`` was appended at ``offset``: acks=1 is answered at once, acks=all parks in the
    purgatory; the append ends with ``maybeIncrementLeaderHW``."""
    if cfg[ACKS] == ACKS_1:
        set_ack(t, lay, r, ACK_DONE, -1, offset)
    elif cfg[ACKS] == ACKS_ALL:
        set_ack(t, lay, r, ACK_PENDING, b, offset)
    maybe_increment_leader_hw(t, lay, cfg, b)


@kernel
def check_sequence_by_epoch(t, lay, cfg, b, r):
    """Broker ``b``'s check of record ``r`` when the producer has an epoch
    (``--max-producer-epoch-bumps``); true if ``r`` is to be appended. The batch carries the
    producer's epoch ``pe`` and ``r``'s sequence; the producer state is read off the log: its
    epoch is the last batch's (``ProducerStateEntry.producerEpoch``), and it remembers the last 5
    batches of that epoch only (``maybeUpdateProducerEpoch`` clears them on a new epoch). At 2.5.0:

    * ``UnifiedLog.analyzeAndValidateProducerState`` / ``ProducerStateEntry.findDuplicateBatch``:
      a batch of the state's epoch among its last batches is a DuplicateSequence, answered with
      the original offset (a batch of another epoch is never a duplicate);
    * ``ProducerAppendInfo.checkProducerEpoch``: an older epoch is refused,
      INVALID_PRODUCER_EPOCH (the producer's epoch only grows, so the one producer of the model
      never meets it: a second, fenced producer would);
    * ``checkSequence``: a newer epoch must start at sequence 0, the same epoch needs the last
      sequence + 1, else OUT_OF_ORDER_SEQUENCE_NUMBER; a log without the producer's batches
      accepts any sequence since KIP-360 (before, UNKNOWN_PRODUCER_ID unless 0).

    Within the state's epoch a record has one sequence, the one the producer still keeps for it,
    so the last batch's sequence is that of its record."""
    leo = log_end_offset(t, lay, b)
    pe = producer_epoch(t, lay)
    seq = sequence_of(t, lay, r)
    if leo == 0:
        if seq != 0 and cfg[RULE_UNKNOWN_PRODUCER_ACCEPTS_ANY_SEQUENCE] == 0:
            set_ack(t, lay, r, ACK_NONE, -1, -1)  # UNKNOWN_PRODUCER_ID
            return False
        return True
    last_epoch = producer_epoch_at(t, lay, b, leo - 1)
    if last_epoch == pe:
        window = 5 if cfg[RULE_PRODUCER_STATE_FIVE_BATCHES] != 0 else 1
        o = leo - 1
        while o >= 0 and o >= leo - window and producer_epoch_at(t, lay, b, o) == pe:
            if record_id_at(t, lay, b, o) == r:  # DuplicateSequence
                if cfg[ACKS] == ACKS_ALL:
                    set_ack(t, lay, r, ACK_PENDING, b, o)
                    complete_delayed_produce(t, lay, cfg, b)
                else:
                    set_ack(t, lay, r, ACK_DONE, -1, o)
                return False
            o -= 1
        if seq != sequence_of(t, lay, record_id_at(t, lay, b, leo - 1)) + 1:
            set_ack(t, lay, r, ACK_NONE, -1, -1)  # OUT_OF_ORDER_SEQUENCE_NUMBER
            return False
        return True
    if pe < last_epoch:
        set_ack(t, lay, r, ACK_NONE, -1, -1)  # INVALID_PRODUCER_EPOCH
        return False
    if seq != 0:
        set_ack(t, lay, r, ACK_NONE, -1, -1)  # OUT_OF_ORDER_SEQUENCE_NUMBER (a new epoch)
        return False
    return True


@kernel
def producer_bump_epoch(s, lay, cfg, out, acts, k):
    """ProducerBumpEpoch(record): the idempotent producer gives record ``r`` up and bumps its
    epoch (KIP-360, rule ``idempotent-epoch-bump``, 2.5+; at most --max-producer-epoch-bumps
    times). In Kafka (2.5.0) the bump follows a batch answered with an error the Sender does not
    retry: ``Sender.completeBatch`` -> ``failBatch`` -> ``TransactionManager.handleFailedBatch``,
    which asks for it (``requestEpochBumpForPartition``) after OUT_OF_ORDER_SEQUENCE_NUMBER (for
    instance the answer to a batch that expired meanwhile: ``canRetry`` is false), or after any
    error it does not retry while retries are left (``adjustSequenceNumbers``); the next
    ``Sender.runOnce`` bumps (``bumpIdempotentEpochAndResetIdIfNeeded`` ->
    ``bumpIdempotentProducerEpoch``). A batch that expires without an answer does not bump at
    once: ``Sender.sendProducerData`` marks its sequence unresolved and the bump waits for the
    batches in flight (``maybeResolveSequences``). The model does not tell errors apart: a record
    whose last request was answered with an error (``ack_state`` none: refused, or its leader
    stepped down) may be the one that fails (a choice, no fairness); one waiting in a purgatory
    may not.

    The bump rewrites the partition's records still in flight
    (``TxnPartitionEntry.startSequencesAtBeginning``): in send order, sequences 0, 1, ... at the
    new epoch, and the next new record follows them. It does not wait for them (KAFKA-14034,
    rule ``epoch-bump-rewrites-in-flight``, unfixed): a record already in a log but not yet
    acknowledged gets a new identity, so its retry is appended again. Without that rule (the fix
    proposed in PR #13796, on no release) the bump waits until no other record is in flight."""
    if (cfg[MAX_PRODUCER_EPOCH_BUMPS] == 0 or cfg[RULE_IDEMPOTENT_EPOCH_BUMP] == 0
            or producer_epoch(s, lay) >= cfg[MAX_PRODUCER_EPOCH_BUMPS]):
        return k
    written = records_written(s, lay)
    for r in range(1, written + 1):
        if ack_state(s, lay, r) != ACK_NONE or given_up(s, lay, cfg, r):
            continue  # only a batch answered with an error (one waiting in a purgatory times out)
        if cfg[RULE_EPOCH_BUMP_REWRITES_IN_FLIGHT] == 0 and in_flight_besides(s, lay, cfg, r):
            continue
        begin(s, out, acts, k, PRODUCER_BUMP_EPOCH, r, NO_ARG)
        t = out[k]
        set_sequence_of(t, lay, r, GIVEN_UP)
        set_producer_epoch(t, lay, producer_epoch(s, lay) + 1)
        seq = 0
        for q in range(1, written + 1):
            if q != r and ack_state(s, lay, q) != ACK_DONE and not given_up(s, lay, cfg, q):
                set_sequence_of(t, lay, q, seq)
                seq += 1
        set_next_sequence(t, lay, seq)
        finish(t, lay, cfg)
        k += 1
    return k


@kernel
def in_flight_besides(s, lay, cfg, r):
    """Is a record other than ``r`` sent and neither acknowledged nor given up?"""
    for q in range(1, records_written(s, lay) + 1):
        if q != r and ack_state(s, lay, q) != ACK_DONE and not given_up(s, lay, cfg, q):
            return True
    return False
