"""kmc's built-in properties, compiled: the same invariants as ``properties/invariants.py``, over
state rows, so the compiled explorer judges each new state without leaving machine code.

Each property has a small integer id (``COMPILED_IDS``); ``holds(pid, s, lay)`` dispatches on
it. For a reachability question (``@reachable`` in ``invariants.py``) ``holds`` is True while
the target is not reached, as its Python twin's ``check`` is.
``tests/unit/test_kernel_equivalence.py`` checks every one against its readable twin on every
reachable state of small configurations (two definitions, proven equal).
"""

from __future__ import annotations

from model.kernel.jit import kernel

from model.kernel.fields import read_offset
from model.kernel.layout import (
    CONSUMER_BIT, CONTROLLED_SHUTDOWN_BIT, FEATURE_BITS, PRODUCER_BIT, READS_BIT,
)
from model.kernel.fields import (
    ACK_DONE, NO_LEADER, ack_offset, ack_state, broker_count, controller_isr, controller_leader, controller_live, has, high_watermark, is_alive, isr_of,
    leader_of, log_end_offset, record_epoch_at, record_id_at, record_slots, true_leader,
    visible_count, visible_record, consumer_committed, consumer_in_hand, consumer_position,
    consumer_processed, consumer_processed_twice, is_shutting_down,
)

NO_ACKED_LOSS = 0
COMMITTED_CONSISTENCY = 1
LOG_MATCHING = 2
MONOTONIC_VISIBILITY = 3
LEADER_IN_ISR = 4
HW_LE_LEO = 5
ACKED_WITHOUT_A_DOWN_BROKER = 6  # reachability
OFFLINE_WITH_A_LIVE_BROKER = 7  # reachability
ISR_MEMBERS_ELIGIBLE = 8

NO_READ_LOSS = 20
NO_DUPLICATES = 21
IN_ORDER = 22
EXACTLY_ONCE_TO_LOG = 23
AT_LEAST_ONCE = 24
AT_MOST_ONCE = 25

COMPILED_IDS = {
    "no-acked-loss": NO_ACKED_LOSS,
    "committed-consistency": COMMITTED_CONSISTENCY,
    "log-matching": LOG_MATCHING,
    "monotonic-visibility": MONOTONIC_VISIBILITY,
    "leader-in-isr": LEADER_IN_ISR,
    "hw-le-leo": HW_LE_LEO,
    "acked-without-a-down-broker": ACKED_WITHOUT_A_DOWN_BROKER,
    "offline-with-a-live-broker": OFFLINE_WITH_A_LIVE_BROKER,
    "isr-members-eligible": ISR_MEMBERS_ELIGIBLE,
    "no-read-loss": NO_READ_LOSS,
    "no-duplicates": NO_DUPLICATES,
    "in-order": IN_ORDER,
    "exactly-once-to-log": EXACTLY_ONCE_TO_LOG,
    "at-least-once": AT_LEAST_ONCE,
    "at-most-once": AT_MOST_ONCE,
}


@kernel
def holds_record_at(s, lay, b, r, offset):
    """Does broker ``b``'s log hold record ``r`` at ``offset``?"""
    return offset < log_end_offset(s, lay, b) and record_id_at(s, lay, b, offset) == r


@kernel
def holds_every_acked_record(s, lay, b):
    """Does broker ``b``'s log hold every acknowledged record at the offset it was acknowledged at?"""
    for r in range(1, record_slots(lay) + 1):
        if ack_state(s, lay, r) == ACK_DONE and not holds_record_at(s, lay, b, r, ack_offset(s, lay, r)):
            return False
    return True


@kernel
def no_acked_loss(s, lay):
    """Every acknowledged record is in the true leader's log, at its acknowledged offset."""
    leader = true_leader(s, lay)
    return leader == NO_LEADER or holds_every_acked_record(s, lay, leader)


@kernel
def committed_consistency(s, lay):
    """Every record below the true leader's HW is in every ISR member's log at the same offset
    (``StrongIsr`` in Gustafson's TLA+ spec)."""
    leader = true_leader(s, lay)
    if leader == NO_LEADER:
        return True
    hw = high_watermark(s, lay, leader)
    if hw <= 0:
        return True
    isr = controller_isr(s, lay)
    for b in range(broker_count(lay)):
        if not has(isr, b):
            continue
        if log_end_offset(s, lay, b) < hw:
            return False
        for o in range(hw):
            if (record_id_at(s, lay, b, o) != record_id_at(s, lay, leader, o)
                    or record_epoch_at(s, lay, b, o) != record_epoch_at(s, lay, leader, o)):
                return False
    return True


@kernel
def log_matching(s, lay):
    """Two logs that hold a record of the same leader epoch at the same offset agree on every
    record up to it."""
    n = broker_count(lay)
    for i in range(n):
        for j in range(i + 1, n):
            top = min(log_end_offset(s, lay, i), log_end_offset(s, lay, j))
            for offset in range(top - 1, -1, -1):
                if record_epoch_at(s, lay, i, offset) == record_epoch_at(s, lay, j, offset):
                    for o in range(offset + 1):
                        if (record_id_at(s, lay, i, o) != record_id_at(s, lay, j, o)
                                or record_epoch_at(s, lay, i, o) != record_epoch_at(s, lay, j, o)):
                            return False
                    break
    return True


@kernel
def monotonic_visibility(s, lay):
    """A record once visible to consumers never disappears from, or changes in, a later true
    leader's log."""
    leader = true_leader(s, lay)
    seen = visible_count(s, lay)
    if leader == NO_LEADER or seen == 0:
        return True
    if log_end_offset(s, lay, leader) < seen:
        return False
    for i in range(seen):
        if record_id_at(s, lay, leader, i) != visible_record(s, lay, i):
            return False
    return True


@kernel
def leader_in_isr(s, lay):
    """The controller's leader is in the controller's ISR, and a broker that believes it leads
    is in its own ISR."""
    c = controller_leader(s, lay)
    if c != NO_LEADER and not has(controller_isr(s, lay), c):
        return False
    for b in range(broker_count(lay)):
        if is_alive(s, lay, b) and leader_of(s, lay, b) == b and not has(isr_of(s, lay, b), b):
            return False
    return True


@kernel
def isr_members_eligible(s, lay):
    """Every member of a controller ISR of two or more is live in the controller's view
    (registered, unfenced) and not in a controlled shutdown (KIP-841)."""
    isr = controller_isr(s, lay)
    if isr & (isr - 1) == 0:  # empty, or one member: the last member stays, fenced or not
        return True
    live = controller_live(s, lay)
    shutdowns = lay[FEATURE_BITS] & CONTROLLED_SHUTDOWN_BIT != 0
    for b in range(broker_count(lay)):
        if not has(isr, b):
            continue
        if not has(live, b) or (shutdowns and is_shutting_down(s, lay, b)):
            return False
    return True


@kernel
def hw_le_leo(s, lay):
    """Every replica's high watermark is at most its log end offset."""
    for b in range(broker_count(lay)):
        if high_watermark(s, lay, b) > log_end_offset(s, lay, b):
            return False
    return True


@kernel
def acked_without_a_down_broker(s, lay):
    """Reached: a broker is down and its log lacks an acknowledged record (at the offset it was
    acknowledged at)."""
    for b in range(broker_count(lay)):
        if not is_alive(s, lay, b) and not holds_every_acked_record(s, lay, b):
            return True
    return False


@kernel
def offline_with_a_live_broker(s, lay):
    """Reached: the controller has no leader for the partition while a broker runs."""
    if controller_leader(s, lay) != NO_LEADER:
        return False
    for b in range(broker_count(lay)):
        if is_alive(s, lay, b):
            return True
    return False


@kernel
def no_read_loss(s, lay):
    """Every record a consumer could have read is in the true leader's log at that offset
    (vacuous in a layout that keeps no read history: ``check`` adds it for this property)."""
    if lay[FEATURE_BITS] & READS_BIT == 0:
        return True
    leader = true_leader(s, lay)
    if leader == NO_LEADER:
        return True
    for r in range(1, record_slots(lay) + 1):
        offset = read_offset(s, lay, r)
        if offset >= 0 and not holds_record_at(s, lay, leader, r, offset):
            return False
    return True


@kernel
def committed_end(s, lay):
    """The true leader and the end of its committed log (its HW), or (NO_LEADER, 0)."""
    leader = true_leader(s, lay)
    if leader == NO_LEADER:
        return leader, 0
    return leader, min(high_watermark(s, lay, leader), log_end_offset(s, lay, leader))


@kernel
def no_duplicates(s, lay):
    """No acknowledged record is twice in the true leader's log below its HW (vacuous without
    producer retries: each record is sent once)."""
    if lay[FEATURE_BITS] & PRODUCER_BIT == 0:
        return True
    leader, end = committed_end(s, lay)
    for r in range(1, record_slots(lay) + 1):
        if ack_state(s, lay, r) != ACK_DONE:
            continue
        copies = 0
        for o in range(end):
            if record_id_at(s, lay, leader, o) == r:
                copies += 1
        if copies > 1:
            return False
    return True


@kernel
def in_order(s, lay):
    """The first copies of the acknowledged records in the true leader's log below its HW are in
    send (record id) order (vacuous without producer retries)."""
    if lay[FEATURE_BITS] & PRODUCER_BIT == 0:
        return True
    leader, end = committed_end(s, lay)
    previous = -1
    for r in range(1, record_slots(lay) + 1):
        if ack_state(s, lay, r) != ACK_DONE:
            continue
        for o in range(end):
            if record_id_at(s, lay, leader, o) == r:
                if o < previous:
                    return False
                previous = o
                break
    return True


@kernel
def at_least_once(s, lay):
    """The committed offset passes no offset the consumer did not process, the one it holds,
    committed and about to be processed, aside (vacuous without a consumer)."""
    if lay[FEATURE_BITS] & CONSUMER_BIT == 0:
        return True
    c, p = consumer_committed(s, lay), consumer_processed(s, lay)
    if c <= p:
        return True
    return consumer_in_hand(s, lay) and c == consumer_position(s, lay) and c == p + 1


@kernel
def at_most_once(s, lay):
    """No offset was processed twice (vacuous without a consumer)."""
    if lay[FEATURE_BITS] & CONSUMER_BIT == 0:
        return True
    return not consumer_processed_twice(s, lay)


@kernel
def holds(pid, s, lay):
    """Does compiled property ``pid`` hold in ``s``?"""
    if pid == NO_READ_LOSS:
        return no_read_loss(s, lay)
    if pid == NO_ACKED_LOSS:
        return no_acked_loss(s, lay)
    if pid == COMMITTED_CONSISTENCY:
        return committed_consistency(s, lay)
    if pid == LOG_MATCHING:
        return log_matching(s, lay)
    if pid == MONOTONIC_VISIBILITY:
        return monotonic_visibility(s, lay)
    if pid == LEADER_IN_ISR:
        return leader_in_isr(s, lay)
    if pid == HW_LE_LEO:
        return hw_le_leo(s, lay)
    if pid == ISR_MEMBERS_ELIGIBLE:
        return isr_members_eligible(s, lay)
    if pid == ACKED_WITHOUT_A_DOWN_BROKER:
        return not acked_without_a_down_broker(s, lay)
    if pid == OFFLINE_WITH_A_LIVE_BROKER:
        return not offline_with_a_live_broker(s, lay)
    if pid == NO_DUPLICATES:
        return no_duplicates(s, lay)
    if pid == IN_ORDER:
        return in_order(s, lay)
    if pid == EXACTLY_ONCE_TO_LOG:
        return no_duplicates(s, lay) and in_order(s, lay)
    if pid == AT_LEAST_ONCE:
        return at_least_once(s, lay)
    if pid == AT_MOST_ONCE:
        return at_most_once(s, lay)
    return True
