"""What the configuration says, as the kernel reads it: the ``cfg`` array.

Settings, bounds and protocol rules are run-time data, never compile-time constants: one
compiled kernel serves every replication factor, bound and rule set (numba compiles it once per
installation). ``cfg[ACKS]`` is the producer's acks, ``cfg[RULE_FENCED_FETCH]`` is 1 when the
KIP-320 rule is on, and so on. ``model/kernel/spec.py`` fills the array from a ``ModelConfig``;
``model/rules.py`` says which Kafka release has which rule.
"""

from __future__ import annotations

_names: list[str] = []


def _param(name: str) -> int:
    _names.append(name)
    return len(_names) - 1


# -- settings
ACKS = _param("acks")  # ACKS_0, ACKS_1 or ACKS_ALL
MIN_INSYNC_REPLICAS = _param("min_insync_replicas")
UNCLEAN_LEADER_ELECTION = _param("unclean_leader_election_enable")
POWER_LOSS = _param("power_loss")  # crash model: 1 = unflushed records are lost
DISK_LOSS = _param("disk_loss")  # crash model: 1 = a crash may lose the whole disk
# -- bounds
MAX_RECORDS = _param("max_records")
MAX_LEADER_EPOCH = _param("max_leader_epoch")
MAX_CRASHES = _param("max_crashes")
MAX_UNFLUSHED_LOSSES = _param("max_unflushed_losses")
MAX_CONTROLLED_SHUTDOWNS = _param("max_controlled_shutdowns")
MAX_SESSION_EXPIRIES = _param("max_session_expiries")
MAX_CONTROLLER_FAILOVERS = _param("max_controller_failovers")
MAX_DELAYED_FETCHES = _param("max_delayed_fetches")
# -- environment settings
HW_CHECKPOINT_INTERVAL = _param("hw_checkpoint_interval")  # 1: the HW checkpoint lags the HW
TRACK_READS = _param("track_reads")  # 1: consumer reads are recorded (no-read-loss)
FETCH_FROM_FOLLOWERS = _param("fetch_from_followers")  # KIP-392: followers serve consumers
# -- protocol rules (model/rules.py names each, with its KIP or JIRA and releases)
RULE_TRUNCATION = _param("truncation")  # TRUNCATE_TO_HW, TRUNCATE_BY_EPOCH_0_11 or TRUNCATE_BY_EPOCH_LOOP
RULE_FENCED_FETCH = _param("fenced_fetch")  # KIP-320
RULE_EPOCH_CACHE_ON_ELECTION = _param("epoch_cache_on_election")  # KAFKA-7415
RULE_TRUNCATE_ON_EPOCH_CHANGE = _param("truncate_on_epoch_change")  # KIP-320
RULE_RESET_FOLLOWERS_ON_EPOCH = _param("reset_followers_on_epoch")  # not Kafka: kmc 0.1's rule
RULE_ISR_JOIN_NEEDS_EPOCH_START = _param("isr_join_needs_epoch_start")  # KAFKA-7128
RULE_BROKER_EPOCH = _param("broker_epoch")  # KIP-380
RULE_HW_NEEDS_MIN_ISR = _param("hw_needs_min_isr")  # KAFKA-15583
RULE_ISR_EXPANSION_AS_OWN_STEP = _param("isr_expansion_as_own_step")  # not Kafka: kmc 0.1's rule
RULE_ALTER_PARTITION = _param("alter_partition")  # KIP-497
RULE_KRAFT = _param("kraft")  # KIP-500/631
RULE_ISR_ELIGIBILITY = _param("isr_eligibility")  # KIP-841
RULE_BROKER_EPOCH_IN_FETCH = _param("broker_epoch_in_fetch")  # KIP-903
RULE_ISR_SHRINK_KEEPS_LEADER_EPOCH = _param("isr_shrink_keeps_leader_epoch")  # KAFKA-15021
RULE_KRAFT_UNCLEAN_ELECTION = _param("kraft_unclean_election")  # KAFKA-12670
RULE_ELR = _param("eligible_leader_replicas")  # KIP-966
RULE_STALE_FETCH_REJECTED = _param("stale_fetch_rejected")  # KAFKA-15221
RULE_CONTROLLER_EPOCH = _param("controller_epoch")  # 0.8: STALE_CONTROLLER_EPOCH
RULE_LAST_KNOWN_LEADER_CHECK = _param("last_known_leader_check")  # KAFKA-19522

PARAM_COUNT = len(_names)
PARAM_NAMES = tuple(_names)

ACKS_0, ACKS_1, ACKS_ALL = 0, 1, 2
TRUNCATE_TO_HW, TRUNCATE_BY_EPOCH_0_11, TRUNCATE_BY_EPOCH_LOOP = 0, 1, 2
