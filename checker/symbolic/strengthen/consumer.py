"""Strengthening invariants about the consumer (``--consumer-commit``, issue 29be): where its
position, the group's committed offset and its processing stand to one another.

The consumer changes no replica or controller state, so no other invariant of the library speaks
of it and none needs these; they are what ``at-least-once`` and ``at-most-once`` need to be
inductive for the order Kafka promises each to (KafkaConsumer javadoc, "Manual Offset Control",
read at 2.8.0). Each follows from the kernel's four consumer actions (model/kernel/actions/
consumer.py): a poll only from a committed position and one record at a time, a commit of the
position, a restart back to the committed offset. Without a consumer every scalar is 0 (the
constants of ``state.fresh``) and each fact is True.
"""

from __future__ import annotations

import z3

from checker.symbolic.state import CONSUMER_ORDERS
from checker.symbolic.strengthen.base import Strengthening

BEFORE, AFTER = CONSUMER_ORDERS["before"], CONSUMER_ORDERS["after"]


def _position_near_committed(s) -> bool:
    c, p = s.consumer_committed, s.consumer_position
    return c <= p <= c + 1


def _position_near_committed_z3(d, s):
    return z3.And(s.ccom <= s.cpos, s.cpos <= s.ccom + 1)


def _before_processed_at_committed(s, config) -> bool:
    if config.consumer_commit != "before":
        return True
    return (s.consumer_processed <= s.consumer_committed
            and (not s.consumer_in_hand or s.consumer_processed < s.consumer_position))


def _before_processed_at_committed_z3(d, s):
    if d.consumer != BEFORE:
        return z3.BoolVal(True)
    return z3.And(s.cproc <= s.ccom, z3.Implies(s.chand, s.cproc < s.cpos))


def _after_processed_past_committed(s, config) -> bool:
    if config.consumer_commit != "after":
        return True
    return (s.consumer_committed <= s.consumer_processed
            and s.consumer_position <= s.consumer_processed + int(s.consumer_in_hand))


def _after_processed_past_committed_z3(d, s):
    if d.consumer != AFTER:
        return z3.BoolVal(True)
    return z3.And(s.ccom <= s.cproc, z3.Implies(z3.Not(s.chand), s.cpos <= s.cproc),
                  z3.Implies(s.chand, s.cpos <= s.cproc + 1))


STRENGTHENINGS = (
    Strengthening(
        "consumer-position-near-committed",
        "the consumer's position is the group's committed offset or one past it: it polls only "
        "from a committed position, one record at a time (max.poll.records=1), commits its "
        "position, and a restart resumes at the committed offset",
        _position_near_committed, _position_near_committed_z3),
    Strengthening(
        "consumer-before-processed-at-committed",
        "committing before processing: processing has not passed the committed offset, and "
        "the record in hand is past where processing reached (it was committed, not yet "
        "processed); what makes at-most-once inductive",
        _before_processed_at_committed, _before_processed_at_committed_z3, uses_config=True),
    Strengthening(
        "consumer-after-processed-past-committed",
        "committing after processing: the committed offset has not passed where processing "
        "reached, nor has the position but for the record in hand; what makes at-least-once "
        "inductive",
        _after_processed_past_committed, _after_processed_past_committed_z3, uses_config=True),
)
