"""One step of the transition system: how an action writes a successor.

A successor ``t = out[k]`` starts as a copy of the state being expanded (``begin``), labelled
with its action's id (its index in ``model/actions.py``'s ``ACTION_NAMES``) and arguments, and
is changed in place through the accessors of ``model/kernel/fields.py``. An action writes one
successor per choice it has (a broker, a new leader, ...), in a fixed order: traces are replayed
by successor index, so the order of actions and of their arguments is part of the contract.
"""

from __future__ import annotations

from model.actions import ACTION_IDS
from model.kernel.fields import SlotOverflow
from model.kernel.intrinsics import load_word, store_word
from model.kernel.jit import kernel

PRODUCE_RECORD = ACTION_IDS["ProduceRecord"]
LEADER_HANDLE_FETCH = ACTION_IDS["LeaderHandleFetch"]
FOLLOWER_HANDLE_FETCH_RESPONSE = ACTION_IDS["FollowerHandleFetchResponse"]
FOLLOWER_TRUNCATE = ACTION_IDS["FollowerTruncate"]
LEADER_SHRINK_ISR = ACTION_IDS["LeaderShrinkIsr"]
LEADER_EXPAND_ISR = ACTION_IDS["LeaderExpandIsr"]
BECOME_LEADER_OR_FOLLOWER = ACTION_IDS["BecomeLeaderOrFollower"]
CONTROLLER_ELECT_LEADER = ACTION_IDS["ControllerElectLeader"]
CONTROLLER_HANDLE_BROKER_FAILURE = ACTION_IDS["ControllerHandleBrokerFailure"]
BROKER_CRASH = ACTION_IDS["BrokerCrash"]
BROKER_RESTART = ACTION_IDS["BrokerRestart"]
FLUSH_LOG = ACTION_IDS["FlushLog"]
CHECKPOINT_HIGH_WATERMARK = ACTION_IDS["CheckpointHighWatermark"]
CONTROLLER_HANDLE_CONTROLLED_SHUTDOWN = ACTION_IDS["ControllerHandleControlledShutdown"]
BROKER_SHUTDOWN = ACTION_IDS["BrokerShutdown"]
CONTROLLER_FENCE_BROKER = ACTION_IDS["ControllerFenceBroker"]
CONTROLLER_UNFENCE_BROKER = ACTION_IDS["ControllerUnfenceBroker"]
CONTROLLER_HANDLE_ALTER_PARTITION = ACTION_IDS["ControllerHandleAlterPartition"]
LEADER_HANDLE_ALTER_PARTITION_RESPONSE = ACTION_IDS["LeaderHandleAlterPartitionResponse"]
BROKER_APPLY_PARTITION_CHANGE = ACTION_IDS["BrokerApplyPartitionChange"]
FETCH_DELAYED = ACTION_IDS["FetchDelayed"]
LEADER_HANDLE_DELAYED_FETCH = ACTION_IDS["LeaderHandleDelayedFetch"]
CONTROLLER_FAILOVER = ACTION_IDS["ControllerFailover"]
ZOMBIE_CONTROLLER_SEND_LEADER_AND_ISR = ACTION_IDS["ZombieControllerSendLeaderAndIsr"]
BROKER_HANDLE_ZOMBIE_LEADER_AND_ISR = ACTION_IDS["BrokerHandleZombieLeaderAndIsr"]
PRODUCER_RETRY = ACTION_IDS["ProducerRetry"]
CONSUMER_FETCH = ACTION_IDS["ConsumerFetch"]
CONSUMER_PROCESS = ACTION_IDS["ConsumerProcess"]
CONSUMER_COMMIT = ACTION_IDS["ConsumerCommit"]
CONSUMER_RESTART = ACTION_IDS["ConsumerRestart"]
CONTROLLER_PREFERRED_ELECTION = ACTION_IDS["ControllerPreferredElection"]
CONTROLLER_REASSIGN_REPLICAS = ACTION_IDS["ControllerReassignReplicas"]
LEADER_HANDLE_FETCH_ON_STALE_METADATA = ACTION_IDS["LeaderHandleFetchOnStaleMetadata"]
LEADER_SHRINK_ISR_SET = ACTION_IDS["LeaderShrinkIsrSet"]
PRODUCER_BUMP_EPOCH = ACTION_IDS["ProducerBumpEpoch"]

NO_ARG = -1


@kernel
def begin(s, out, acts, k, action, arg0, arg1):
    """Start successor ``k``: ``out[k]`` becomes a copy of ``s``, labelled with its action."""
    if k >= out.shape[0]:
        raise SlotOverflow("a state has more successors than the successor buffer holds")
    row = out[k]
    for i in range(s.shape[0] // 8):  # rows are whole 64-bit words
        store_word(row, i, load_word(s, i))
    acts[k, 0] = action
    acts[k, 1] = arg0
    acts[k, 2] = arg1
