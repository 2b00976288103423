"""Kafka 3.5 at RF=3 with one controlled shutdown (issue 29bp, docs/symbolic.md "A controlled
shutdown at RF=3 on KRaft 3.5"): the facts of ``controlled.RF3`` and the RF=3 form of
``added-members-caught-up`` (``controlled.RF3_FORMS``), each from a counterexample to induction
(CTI) of ``kmc prove --kafka-version 3.5 -r 3 --max-records 1 --max-controlled-shutdowns 1 -p
no-acked-loss -s all --search none``.

Each fact, predicate and formula, is false on the pre-state of the CTI it took away (written
below as changes to the initial state) and true on a reachable state near it (a state of the BFS of the
compiled kernel, found in the session by a throwaway scan of every 5th of the 934,403 reachable
states: the one with the fewest fields different from the pre-state on which the fact holds; 7
to 13 fields apart). At RF=2 every one
is ``True`` and out of ``--strengthen all``, so the RF=2 rows keep their terms."""

from __future__ import annotations

import pytest

from checker.symbolic.state import Dims, fresh
from checker.symbolic.strengthen import STRENGTHENINGS, all_names, controlled
from checker.symbolic.strengthen.library import UNSWITCHED
from model.options import config_from_options
from model.state import PartitionState

RF3 = list(controlled.RF3)


def _config(version="3.5", rf=3):
    return config_from_options(kafka_version=version, replication_factor=rf, max_records=1,
                               max_controlled_shutdowns=1)[0]


def _init(config):
    from model import make_model

    return next(iter(make_model(config).init_states()))


def _cti1(init):
    """The pre-state of FollowerTruncate(follower=1) into isr-holds-every-hw, acked-in-isr."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(leader_epoch=1, isr=(0, 1), remote_log_end_offsets=(-1, -1, -1), shutting_down=True, alter_partition=(3, (0,), 1, False, False), partition_epoch_current=False), r1._replace(log=((1, 0),), leader_epoch=1, truncating=True), r2._replace(alive=False, log=((1, 0),), high_watermark=1, leader_epoch=-1, leader=-1, flushed_offset=1)),
        controller=PartitionState(leader=1, leader_epoch=2, isr=(1,), live_brokers=(0, 1)),
        leader_and_isr=((0, 2, 1, (1,)), (1, 2, 1, (1,))),
        acked=((1, 0),),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti1_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), high_watermark=1, leader_epoch=1, isr=(0, 1), remote_log_end_offsets=(-1, 1, -1), shutting_down=True, partition_epoch_current=False, remote_current=(0, 1, 0)), r1._replace(log=((1, 0),), leader_epoch=1), r2._replace(alive=False, log=((1, 0),), high_watermark=1, leader_epoch=-1, leader=-1)),
        controller=PartitionState(leader=1, leader_epoch=2, isr=(1,), live_brokers=(0, 1)),
        leader_and_isr=((0, 2, 1, (1,)), (1, 2, 1, (1,))),
        acked=((1, 0),),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((1, 2),),
    )
    return s


def _cti2(init):
    """The pre-state of BecomeLeaderOrFollower(broker=1, leader_epoch=1) into shutdown-leader-out-of-later-isrs, shutdown-leader-holds-older-acked."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(alive=False, leader_epoch=-1, leader=-1, isr=(), remote_log_end_offsets=(-1, -1, -1), partition_epoch_current=False), r1._replace(shutting_down=True), r2._replace(log=((1, 0),), leader_epoch=2, leader=2, isr=(2,), flushed_offset=1, partition_change=((2,), 2, True))),
        controller=PartitionState(leader=2, leader_epoch=2, isr=(2,), live_brokers=(1, 2)),
        leader_and_isr=((1, 1, 1, (0, 1, 2)), (1, 2, 2, (1, 2))),
        acked=((1, 0),),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti2_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(alive=False, log=((1, 0),), leader_epoch=-1, leader=-1, isr=(), remote_log_end_offsets=(-1, -1, -1), partition_epoch_current=False), r1._replace(shutting_down=True), r2._replace(leader_epoch=2, leader=2, isr=(2,), partition_epoch_current=True)),
        controller=PartitionState(leader=2, leader_epoch=2, isr=(2,), live_brokers=(1, 2)),
        leader_and_isr=((1, 1, 1, (1, 2)), (1, 2, 2, (2,))),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((2, 2),),
    )
    return s


def _cti3(init):
    """The pre-state of ControllerHandleAlterPartition(leader=0) into isr-holds-every-hw."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), isr=(0,), alter_partition=(1, (0, 1), 0, True, True), partition_epoch_current=False), r1._replace(alive=False, leader_epoch=-1, leader=-1), r2._replace(alive=False, log=((1, 0),), high_watermark=1, leader_epoch=-1, leader=-1, shutting_down=True)),
        controller=PartitionState(leader=0, leader_epoch=0, isr=(0,), live_brokers=(0, 1)),
        consumer_visible=(1,),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti3_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), high_watermark=1, leader_epoch=2, isr=(0,), remote_current=(0, 1, 1)), r1._replace(alive=False, leader_epoch=-1, leader=-1), r2._replace(alive=False, log=((1, 0),), high_watermark=1, leader_epoch=-1, leader=-1, shutting_down=True)),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0,), live_brokers=(0, 1, 2)),
        consumer_visible=(1,),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((0, 2),),
    )
    return s


def _cti4(init):
    """The pre-state of BrokerApplyPartitionChange(broker=2) into isr-holds-every-hw."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(alive=False, log=((1, 0),), leader_epoch=-1, leader=-1, isr=(), remote_log_end_offsets=(-1, -1, -1), partition_epoch_current=False), r1._replace(leader_epoch=2), r2._replace(log=((1, 0),), leader_epoch=1, leader=2, isr=(0, 2), remote_log_end_offsets=(1, -1, -1), shutting_down=True, alter_partition=(4, (0, 1, 2), 1, False, False), partition_change=((0, 2), 1, False))),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0, 1), live_brokers=(0, 1, 2)),
        leader_and_isr=((2, 2, 0, (0,)),),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti4_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(alive=False, log=((1, 0),), leader_epoch=-1, leader=-1, isr=(), remote_log_end_offsets=(-1, -1, -1), partition_epoch_current=False), r1._replace(leader_epoch=2), r2._replace(log=((1, 0),), leader_epoch=1, shutting_down=True)),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0, 1), live_brokers=(0, 1, 2)),
        leader_and_isr=((2, 2, 0, (0, 1)),),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((0, 2),),
    )
    return s


def _cti5(init):
    """The pre-state of ControllerHandleAlterPartition(leader=0) into isr-holds-every-hw."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), isr=(0,), remote_log_end_offsets=(-1, -1, -1), alter_partition=(1, (0, 2), 0, True, True), partition_epoch_current=False), r1._replace(alive=False, log=((1, 0),), high_watermark=1, leader_epoch=-1, leader=-1), r2._replace(alive=False, leader_epoch=-1, leader=-1)),
        controller=PartitionState(leader=0, leader_epoch=0, isr=(0,), live_brokers=(0, 2)),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti5_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), partition_epoch_current=False), r1._replace(alive=False, leader_epoch=-1, leader=-1), r2._replace(alive=False, leader_epoch=-1, leader=-1)),
        controller=PartitionState(leader=0, leader_epoch=1, isr=(0, 1), live_brokers=(0, 1)),
        leader_and_isr=((0, 1, 0, (0, 1)),),
        pending_acks=((0, 1, 0),),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((0, 1),),
    )
    return s


def _cti6(init):
    """The pre-state of FollowerTruncate(follower=1) into isr-followers-hold-hw."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), high_watermark=1, leader_epoch=2, isr=(0, 1), remote_log_end_offsets=(-1, -1, -1), alter_partition=(2, (0,), 2, True, True), partition_epoch_current=False), r1._replace(log=((1, 0),), leader_epoch=1, leader=2, truncating=True, flushed_offset=1), r2._replace(leader_epoch=1, leader=2, isr=(0, 2), shutting_down=True, alter_partition=(4, (2,), 2, False, False))),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0,), live_brokers=(0, 1, 2)),
        leader_and_isr=((1, 2, 0, (0, 1)), (2, 2, 0, (0, 1))),
        records_written=1,
        controlled_shutdowns=1,
    )
    return s


def _cti6_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), high_watermark=1, leader_epoch=2, isr=(0,), remote_log_end_offsets=(-1, -1, -1)), r1._replace(log=((1, 0),), leader_epoch=1, truncating=True), r2._replace(log=((1, 0),), leader_epoch=1, truncating=True, shutting_down=True)),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0,), live_brokers=(0, 1, 2)),
        leader_and_isr=((1, 2, 0, (0,)), (2, 2, 0, (0,))),
        consumer_visible=(1,),
        records_written=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((0, 2),),
    )
    return s


def _cti7(init):
    """The pre-state of BecomeLeaderOrFollower(broker=2, leader_epoch=1) into added-members-caught-up."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), leader_epoch=2, isr=(0, 1), remote_log_end_offsets=(-1, -1, -1), flushed_offset=1, alter_partition=(2, (0,), 2, False, True), partition_epoch_current=False), r1._replace(alive=False, leader_epoch=-1, leader=-1), r2._replace(truncating=True, shutting_down=True, partition_change=((0, 1, 2), 0, False))),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0,), live_brokers=(0, 2)),
        leader_and_isr=((2, 1, 2, (0, 2)), (2, 2, 0, (0,))),
        consumer_visible=(1,),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti7_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), high_watermark=1, leader_epoch=2, isr=(0,), remote_log_end_offsets=(-1, -1, -1)), r1._replace(alive=False, leader_epoch=-1, leader=-1), r2._replace(log=((1, 0),), shutting_down=True)),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0,), live_brokers=(0, 2)),
        leader_and_isr=((2, 1, 0, (0, 2)), (2, 2, 0, (0,))),
        consumer_visible=(1,),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((0, 2),),
    )
    return s


def _cti8(init):
    """The pre-state of FollowerTruncate(follower=0) into isr-holds-every-hw."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), leader_epoch=1, leader=1, isr=(), remote_log_end_offsets=(-1, -1, -1), truncating=True, partition_epoch_current=False), r1._replace(leader_epoch=1, leader=1, isr=(0, 1), remote_log_end_offsets=(-1, -1, 0), shutting_down=True), r2._replace(alive=False, log=((1, 0),), high_watermark=1, leader_epoch=-1, leader=-1)),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0,), live_brokers=(0, 1)),
        leader_and_isr=((0, 2, 0, (0,)), (1, 2, 0, (0,))),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti8_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), leader_epoch=1, leader=1, isr=(), remote_log_end_offsets=(-1, -1, -1), truncating=True, partition_epoch_current=False, remote_current=(0, 0, 1)), r1._replace(leader_epoch=1, leader=1, isr=(1, 2)), r2._replace(alive=False, log=((1, 0),), leader_epoch=-1, leader=-1)),
        controller=PartitionState(leader=1, leader_epoch=2, isr=(1,), live_brokers=(0, 1)),
        leader_and_isr=((0, 2, 1, (1,)), (1, 2, 1, (1,))),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((1, 2),),
    )
    return s


def _cti10(init):
    """The pre-state of ControllerHandleAlterPartition(leader=0) into isr-holds-every-hw."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 2),), leader_epoch=2, isr=(0,), remote_log_end_offsets=(-1, 0, -1), alter_partition=(1, (0, 2), 2, True, True), partition_epoch_current=False), r1._replace(alive=False, log=((1, 2),), high_watermark=1, leader_epoch=-1, leader=-1), r2._replace(alive=False, leader_epoch=-1, leader=-1)),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0,), live_brokers=(0, 2)),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti10_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), high_watermark=1, leader_epoch=2, isr=(0,), remote_log_end_offsets=(-1, -1, -1)), r1._replace(alive=False, leader_epoch=-1, leader=-1), r2._replace(alive=False, leader_epoch=-1, leader=-1)),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0,), live_brokers=(0, 2)),
        consumer_visible=(1,),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((0, 2),),
    )
    return s


def _cti11(init):
    """The pre-state of LeaderHandleFetch(leader=2, follower=1) into shutdown-leader-holds-older-acked."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(leader_epoch=-1, leader=-1, isr=(), remote_log_end_offsets=(-1, -1, -1), flushed_offset=1, shutting_down=True, partition_epoch_current=False), r1._replace(log=((1, 0),), high_watermark=1, leader_epoch=2, leader=2), r2._replace(log=((1, 0),), leader_epoch=2, leader=2, isr=(2,), alter_partition=(4, (1, 2), 2, False, False))),
        controller=PartitionState(leader=2, leader_epoch=2, isr=(2,), live_brokers=(0, 1, 2)),
        leader_and_isr=((0, 1, 0, (0, 2)), (0, 2, 2, (2,))),
        pending_acks=((2, 1, 0),),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti11_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), leader_epoch=-1, leader=-1, isr=(), remote_log_end_offsets=(-1, -1, -1), shutting_down=True, partition_epoch_current=False), r1._replace(leader_epoch=2, leader=2), r2._replace(leader_epoch=2, leader=2, isr=(2,), partition_epoch_current=True)),
        controller=PartitionState(leader=2, leader_epoch=2, isr=(2,), live_brokers=(0, 1, 2)),
        leader_and_isr=((0, 2, 2, (2,)),),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((2, 2),),
    )
    return s


def _cti12(init):
    """The pre-state of FollowerTruncate(follower=1) into isr-holds-every-hw, requested-leaders-hold-hw, later-leaders-hold-hw."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), high_watermark=1, leader_epoch=-1, leader=-1, isr=(), remote_log_end_offsets=(-1, -1, -1), partition_epoch_current=False), r1._replace(log=((1, 0),), leader_epoch=1, leader=2, truncating=True), r2._replace(leader_epoch=1, leader=2, isr=(0, 1, 2), remote_log_end_offsets=(0, -1, -1), shutting_down=True, alter_partition=(4, (1, 2), 2, False, False))),
        controller=PartitionState(leader=1, leader_epoch=2, isr=(1,), live_brokers=(0, 1, 2)),
        leader_and_isr=((0, 2, 1, (1,)), (1, 2, 1, (1,)), (2, 2, 1, (1,))),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti12_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), leader_epoch=-1, leader=-1, isr=(), remote_log_end_offsets=(-1, -1, -1), partition_epoch_current=False), r1._replace(leader_epoch=1, leader=2, assignment_rank=2), r2._replace(leader_epoch=1, leader=2, isr=(1, 2), shutting_down=True, assignment_rank=1)),
        controller=PartitionState(leader=1, leader_epoch=2, isr=(1,), live_brokers=(0, 1, 2)),
        leader_and_isr=((0, 1, 2, (1, 2)), (0, 2, 1, (1,)), (1, 2, 1, (1,)), (2, 2, 1, (1,))),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((1, 2),),
    )
    return s


def _cti13(init):
    """The pre-state of FollowerTruncate(follower=0) into isr-holds-every-hw, leader-holds-followers-hw."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), leader_epoch=1, leader=2, isr=(), remote_log_end_offsets=(-1, -1, -1), truncating=True, partition_epoch_current=False), r1._replace(log=((1, 0),), high_watermark=1, leader_epoch=2, truncating=True), r2._replace(leader_epoch=1, leader=2, isr=(2,), flushed_offset=1, shutting_down=True, alter_partition=(2, (0, 2), 1, False, False))),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0,), live_brokers=(0, 1, 2)),
        leader_and_isr=((0, 2, 0, (0,)), (2, 2, 0, (0,))),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti13_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), leader_epoch=1, leader=1, isr=(), remote_log_end_offsets=(-1, -1, -1), truncating=True, partition_epoch_current=False), r1, r2._replace(leader_epoch=1, leader=1, shutting_down=True)),
        controller=PartitionState(leader=1, leader_epoch=2, isr=(1,), live_brokers=(0, 1, 2)),
        leader_and_isr=((0, 2, 1, (1,)), (1, 1, 1, (1, 2)), (1, 2, 1, (1,)), (2, 2, 1, (1,))),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((1, 2),),
    )
    return s


def _cti14(init):
    """The pre-state of LeaderHandleFetch(leader=0, follower=2) into fetch-hw-committed, isr-holds-every-hw, requested-leaders-hold-hw, later-leaders-hold-hw."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), isr=(0, 1), remote_log_end_offsets=(-1, 1, -1), shutting_down=True, alter_partition=(3, (0,), 0, False, False), partition_epoch_current=False), r1._replace(alive=False, log=((1, 0),), leader_epoch=-1, leader=-1), r2._replace(flushed_offset=1)),
        controller=PartitionState(leader=2, leader_epoch=2, isr=(2,), live_brokers=(0, 1, 2)),
        leader_and_isr=((0, 1, 1, (1,)), (0, 2, 2, (2,)), (2, 1, 1, (1,)), (2, 2, 2, (2,))),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti14_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 0),), leader_epoch=1, isr=(0, 1), remote_log_end_offsets=(-1, 0, -1), shutting_down=True, alter_partition=(1, (0,), 1, False, True), partition_epoch_current=False), r1._replace(alive=False, leader_epoch=-1, leader=-1), r2._replace(log=((1, 0),))),
        controller=PartitionState(leader=1, leader_epoch=2, isr=(1,), live_brokers=(0, 1, 2)),
        leader_and_isr=((0, 2, 1, (1,)), (2, 1, 0, (0, 1)), (2, 2, 1, (1,))),
        pending_acks=((0, 1, 0),),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti15(init):
    """The pre-state of LeaderHandleAlterPartitionResponse(leader=2) into acked-below-writer-hw."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(alive=False, log=((1, 1),), leader_epoch=-1, leader=-1, isr=(), remote_log_end_offsets=(-1, -1, -1), partition_epoch_current=False), r1._replace(log=((1, 1),), leader_epoch=1, leader=1, isr=(1, 2), remote_log_end_offsets=(0, -1, -1), shutting_down=True), r2._replace(log=((1, 1),), leader_epoch=2, leader=2, isr=(2,), remote_log_end_offsets=(1, -1, -1), flushed_offset=1, alter_partition=(2, (0, 2), 2, False, False))),
        controller=PartitionState(leader=2, leader_epoch=2, isr=(0, 2), live_brokers=(0, 1, 2)),
        leader_and_isr=((1, 2, 2, (2,)),),
        pending_acks=((2, 1, 0),),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti15_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(alive=False, log=((1, 0),), leader_epoch=-1, leader=-1, isr=(), remote_log_end_offsets=(-1, -1, -1), partition_epoch_current=False), r1._replace(leader_epoch=1, leader=1, isr=(1, 2), remote_log_end_offsets=(-1, -1, 0), shutting_down=True, remote_current=(0, 0, 1)), r2._replace(leader_epoch=2, leader=2, isr=(2,), partition_epoch_current=True)),
        controller=PartitionState(leader=2, leader_epoch=2, isr=(2,), live_brokers=(1, 2)),
        leader_and_isr=((1, 2, 2, (2,)),),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((2, 2),),
    )
    return s


def _cti22(init):
    """The pre-state of LeaderHandleAlterPartitionResponse(leader=2) into shutdown-leader-view-covers-next-isr."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(alive=False, log=((1, 2),), leader_epoch=-1, leader=-1, isr=(), remote_log_end_offsets=(-1, -1, -1), flushed_offset=1, partition_epoch_current=False), r1._replace(log=((1, 2),), leader_epoch=2), r2._replace(leader_epoch=1, leader=2, isr=(0, 2), remote_log_end_offsets=(0, 0, -1), shutting_down=True, alter_partition=(3, (0, 1, 2), 1, False, False))),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0, 1), live_brokers=(0, 1, 2)),
        leader_and_isr=((2, 2, 0, (0, 1)),),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti24(init):
    """The pre-state of FollowerTruncate(follower=1) into isr-holds-every-hw."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(alive=False, log=((1, 0),), high_watermark=1, leader_epoch=-1, leader=-1, isr=(), remote_log_end_offsets=(-1, -1, -1), partition_epoch_current=False), r1._replace(log=((1, 0),), leader_epoch=1, leader=2, truncating=True, flushed_offset=1), r2._replace(leader_epoch=1, leader=2, isr=(0, 1, 2), remote_log_end_offsets=(0, -1, -1), shutting_down=True, alter_partition=(1, (1, 2), 1, False, False))),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0, 1), live_brokers=(0, 1, 2)),
        leader_and_isr=((1, 2, 0, (0, 1)), (2, 2, 0, (0, 1))),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
    )
    return s


def _cti24_reachable(init):
    """A reachable state near it (BFS)."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(alive=False, log=((1, 0),), leader_epoch=-1, leader=-1, isr=(), remote_log_end_offsets=(-1, -1, -1), partition_epoch_current=False), r1._replace(leader_epoch=1), r2._replace(log=((1, 0),), leader_epoch=1, shutting_down=True)),
        controller=PartitionState(leader=0, leader_epoch=2, isr=(0, 1), live_brokers=(0, 1, 2)),
        leader_and_isr=((1, 2, 0, (0, 1)), (2, 2, 0, (0, 1))),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((0, 2),),
    )
    return s


CTIS = {  # fact -> (its CTI's pre-state, a reachable state near it)
    'shutdown-leader-holds-older-acked': (_cti1, _cti1_reachable),
    'shutdown-leader-out-of-later-isrs': (_cti2, _cti2_reachable),
    'shutting-down-live': (_cti3, _cti3_reachable),
    'controller-isr-added-caught-up': (_cti4, _cti4_reachable),
    'shutdown-first-epoch-isr-full': (_cti5, _cti5_reachable),
    'epoch-requests-within-controller-isr': (_cti6, _cti6_reachable),
    'shutdown-accepted-shrink-in-next-epoch': (_cti7, _cti7_reachable),
    'leader-moves-counted': (_cti8, _cti8_reachable),
    'shutdown-hw-behind-epoch-leader': (_cti10, _cti10_reachable),
    'consecutive-leader-holds-its-records': (_cti11, _cti11_reachable),
    'answer-epoch-names-its-leader': (_cti12, _cti12_reachable),
    'shutdown-leader-holds-older-committed': (_cti13, _cti13_reachable),
    'shutdown-first-epoch-leader-isr-full': (_cti14, _cti14_reachable),
    'pending-ack-on-its-writer': (_cti15, _cti15_reachable),
    'shutdown-leader-view-covers-next-isr': (_cti22, _cti4_reachable),  # (the same reachable state)
    'lagging-member-leader-holds-hw': (_cti24, _cti24_reachable),
}


def _as_written_false(init):
    """A reachable state (BFS) on which added-members-caught-up as written is false."""
    r0, r1, r2 = init.replicas
    s = init._replace(replicas=(r0._replace(log=((1, 1),), leader_epoch=1, isr=(0, 2), remote_log_end_offsets=(-1, 0, 1), shutting_down=True, alter_partition=(2, (0, 1, 2), 1, False, True), partition_epoch_current=False, partition_change=((0, 1, 2), 1, False), remote_current=(0, 1, 1)), r1._replace(leader_epoch=2, leader=2, assignment_rank=2), r2._replace(log=((1, 1),), leader_epoch=2, leader=2, isr=(1, 2), alter_partition=(1, (2,), 2, True, True), partition_epoch_current=True, assignment_rank=1)),
        controller=PartitionState(leader=2, leader_epoch=2, isr=(1, 2), live_brokers=(0, 1, 2)),
        leader_and_isr=((0, 2, 2, (1, 2)),),
        pending_acks=((0, 1, 0),),
        records_written=1,
        crashes=1,
        controlled_shutdowns=1,
        leader_and_isr_current=((2, 2),),
    )
    return s


@pytest.mark.parametrize("name", sorted(CTIS))
def test_each_rf3_fact_is_false_on_its_cti_and_true_on_a_reachable_neighbour(name):
    # issue 29bp: predicate and formula alike (mutants run by hand: docs/symbolic.md)
    from tests.symbolic.helpers import formula_evaluator

    config = _config()
    init = _init(config)
    cti, reachable = (build(init) for build in CTIS[name])
    st = STRENGTHENINGS[name]
    assert not st.holds(cti, config) and st.holds(reachable, config)
    evaluate = formula_evaluator(Dims.of(config), {name: st.formula})
    assert not evaluate(cti)[name] and evaluate(reachable)[name]


def test_every_rf3_fact_has_its_cti():
    assert set(CTIS) == set(RF3)


def test_the_rf3_facts_change_no_other_row():
    # at RF=2 (3.5, 4.1) and on 3.6+ at RF=3, 29bp's facts are True and out of `-s all`, and the
    # form of added-members-caught-up is the fact as written: those rows keep their terms
    import z3

    ours = RF3[1:]  # RF3[0] is 29bo's fact (3.3+ at RF>=3)
    for version, rf in (("3.5", 2), ("4.1", 2), ("3.7", 3), ("4.1", 3)):
        config = _config(version, rf)
        assert not set(ours) & set(all_names(config)), (version, rf)
        d = Dims.of(config)
        s = fresh(d, f"o{version.replace('.', '')}{rf}")
        for name in ours:
            assert z3.is_true(z3.simplify(STRENGTHENINGS[name].formula(d, s))), (version, rf, name)
        for name in controlled.RF3_FORMS:
            assert STRENGTHENINGS[name].formula(d, s).eq(UNSWITCHED[name].formula(d, s)), (version, rf)
    assert set(RF3) <= set(all_names(_config("3.5", 3)))


def test_added_members_caught_up_needs_its_rf3_form():
    # the fact as written is false on 8 of the 934,403 reachable states of 3.5 RF=3 with one
    # controlled shutdown (the previous epoch's leader is marked and its view lags the
    # controller's ISR); the RF=3 form holds there (predicate and formula)
    from tests.symbolic.helpers import formula_evaluator

    name = "added-members-caught-up"
    config = _config()
    s = _as_written_false(_init(config))
    assert not UNSWITCHED[name].holds(s, config) and STRENGTHENINGS[name].holds(s, config)
    d = Dims.of(config)
    values = formula_evaluator(d, {"as written": UNSWITCHED[name].formula,
                                   "form": STRENGTHENINGS[name].formula})(s)
    assert not values["as written"] and values["form"]
