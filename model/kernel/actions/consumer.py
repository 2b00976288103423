"""The consumer's actions (``--consumer-commit``): one consumer of the partition, its position
and the group's committed offset, and the order in which it processes and commits.

Kafka's consumer (``KafkaConsumer``) fetches from its position, hands records to the
application and commits an offset to the group coordinator (``__consumer_offsets``); a consumer
that crashes is replaced by one that resumes from the committed offset. The KafkaConsumer
javadoc ("Manual Offset Control", read at 2.8.0) gives the two orders: commit after processing
is at-least-once (a crash between the two processes the records again) and committing before
processing lets the committed offset get ahead of what was processed (a crash between the two
skips records: at-most-once).

Auto-commit (``enable.auto.commit=true``) is not one order by itself: ``KafkaConsumer.poll``
calls ``ConsumerCoordinator.poll``, which ends in ``maybeAutoCommitOffsetsAsync`` (2.8.0): it
commits, at most every ``auto.commit.interval.ms``, the positions of the records earlier polls
returned (``subscriptions.allConsumed()``). An application that processes every record before
it polls again therefore commits after processing (the javadoc's note: auto-commit "can also
give you at-least-once"); one that hands records to another thread, or batches them, as the
javadoc's example does, commits before processing. Choose ``--consumer-commit`` by what the
application does.

The model's consumer takes one record at a time (``max.poll.records=1``): Fetch, then Process
and Commit in the configured order, then the next Fetch. It reads what a consumer may read: the
true leader's log below its HW (``Partition.fetchRecords`` with the HW as the consumer's limit).
State: ``consumer_position``, ``consumer_committed``, ``consumer_in_hand`` (a fetched record not
yet processed), ``consumer_processed`` (processing reached this offset) and
``consumer_processed_twice``.
"""

from __future__ import annotations

from model.kernel.actions.step import (
    CONSUMER_COMMIT, CONSUMER_FETCH, CONSUMER_PROCESS, CONSUMER_RESTART, NO_ARG, begin,
)
from model.kernel.fields import (
    NO_LEADER, consumer_committed, consumer_in_hand, consumer_position, consumer_processed,
    consumer_restarts, high_watermark, set_consumer_committed, set_consumer_in_hand,
    set_consumer_position, set_consumer_processed, set_consumer_processed_twice,
    set_consumer_restarts, true_leader,
)
from model.kernel.jit import kernel
from model.kernel.params import CONSUMER_COMMIT as COMMIT_ORDER, MAX_CONSUMER_RESTARTS
from model.kernel.transitions import finish

COMMIT_BEFORE = 1  # commit, then process (at-most-once)
COMMIT_AFTER = 2  # process, then commit (at-least-once)


@kernel
def consumer_fetch(s, lay, cfg, out, acts, k):
    """ConsumerFetch(offset): ``poll`` returns the record at the consumer's position from the
    true leader, if the HW has passed it, and the position moves past it. The next poll comes
    only after the last record was processed and committed (in either order)."""
    if cfg[COMMIT_ORDER] == 0 or consumer_in_hand(s, lay):
        return k
    position = consumer_position(s, lay)
    if consumer_committed(s, lay) != position:
        return k
    leader = true_leader(s, lay)
    if leader == NO_LEADER or position >= high_watermark(s, lay, leader):
        return k
    begin(s, out, acts, k, CONSUMER_FETCH, position, NO_ARG)
    t = out[k]
    set_consumer_position(t, lay, position + 1)
    set_consumer_in_hand(t, lay, True)
    finish(t, lay, cfg)
    return k + 1


@kernel
def consumer_process(s, lay, cfg, out, acts, k):
    """ConsumerProcess(offset): the application processes the record it holds; with commit
    before processing, only once the commit is done. Processing an offset below where
    processing had reached is a second processing of it."""
    if cfg[COMMIT_ORDER] == 0 or not consumer_in_hand(s, lay):
        return k
    position = consumer_position(s, lay)
    if cfg[COMMIT_ORDER] == COMMIT_BEFORE and consumer_committed(s, lay) != position:
        return k
    offset = position - 1
    begin(s, out, acts, k, CONSUMER_PROCESS, offset, NO_ARG)
    t = out[k]
    set_consumer_in_hand(t, lay, False)
    if offset < consumer_processed(s, lay):
        set_consumer_processed_twice(t, lay, True)
    else:
        set_consumer_processed(t, lay, position)
    finish(t, lay, cfg)
    return k + 1


@kernel
def consumer_commit(s, lay, cfg, out, acts, k):
    """ConsumerCommit(offset): the consumer commits its position (``commitSync``, or
    auto-commit in the next poll). Before processing: while it holds the record; after
    processing: once it has processed it."""
    order = cfg[COMMIT_ORDER]
    if order == 0:
        return k
    position = consumer_position(s, lay)
    if consumer_committed(s, lay) == position:
        return k
    if consumer_in_hand(s, lay) != (order == COMMIT_BEFORE):
        return k
    begin(s, out, acts, k, CONSUMER_COMMIT, position, NO_ARG)
    t = out[k]
    set_consumer_committed(t, lay, position)
    finish(t, lay, cfg)
    return k + 1


@kernel
def consumer_restart(s, lay, cfg, out, acts, k):
    """ConsumerRestart: the consumer crashes (what it held unprocessed is gone) and a new member
    of the group resumes from the committed offset; at most ``--max-consumer-restarts`` times.
    Only a restart that changes something is explored (one in the middle of a poll)."""
    if cfg[COMMIT_ORDER] == 0 or consumer_restarts(s, lay) >= cfg[MAX_CONSUMER_RESTARTS]:
        return k
    if not consumer_in_hand(s, lay) and consumer_committed(s, lay) == consumer_position(s, lay):
        return k
    begin(s, out, acts, k, CONSUMER_RESTART, NO_ARG, NO_ARG)
    t = out[k]
    set_consumer_restarts(t, lay, consumer_restarts(s, lay) + 1)
    set_consumer_in_hand(t, lay, False)
    set_consumer_position(t, lay, consumer_committed(s, lay))
    finish(t, lay, cfg)
    return k + 1
