"""What the configuration says, as the kernel reads it: the ``cfg`` array.

Settings, bounds and protocol rules are run-time data, never compile-time constants: one
compiled kernel serves every replication factor, bound and rule set (numba compiles it once per
installation). ``cfg[ACKS]`` is the producer's acks, and so on for the settings and bounds
below; after them come the rules' switches, one per row of the rule table (``model/rules.py``:
``cfg[RULE_FENCED_FETCH]`` is 1 when the KIP-320 rule is on). ``model/kernel/spec.py`` fills
the array from a ``ModelConfig``.
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
MAX_PREFERRED_ELECTIONS = _param("max_preferred_elections")
MAX_REASSIGNMENTS = _param("max_reassignments")
MAX_STALE_METADATA_READS = _param("max_stale_metadata_reads")
# -- environment settings
HW_CHECKPOINT_INTERVAL = _param("hw_checkpoint_interval")  # 1: the HW checkpoint lags the HW
TRACK_READS = _param("track_reads")  # 1: consumer reads are recorded (no-read-loss)
FETCH_FROM_FOLLOWERS = _param("fetch_from_followers")  # KIP-392: followers serve consumers
EPOCH_START_OFFSET = _param("epoch_start_offset")  # 1: the slot of Kafka 2.1's epoch start offset
# -- the producer (0 retries: each record sent once, none of these read)
MAX_RETRIES = _param("max_retries")  # bound: produce requests sent again, in total
IDEMPOTENCE = _param("idempotence")  # 1: the idempotent producer (KIP-98) is in force
MAX_IN_FLIGHT = _param("max_in_flight")  # max.in.flight.requests.per.connection
MAX_PRODUCER_EPOCH_BUMPS = _param("max_producer_epoch_bumps")  # bound: KIP-360 epoch bumps
# -- the consumer (0: no consumer modelled, none of these read)
CONSUMER_COMMIT = _param("consumer_commit")  # 1: commit before processing, 2: after
MAX_CONSUMER_RESTARTS = _param("max_consumer_restarts")  # bound: consumer restarts, in total
# -- the mutation check's guard bits (model/kernel/guards.py); 0 in every real run
MUTATION = _param("mutation")
SETTING_COUNT = len(_names)
SETTING_NAMES = tuple(_names)

ACKS_0, ACKS_1, ACKS_ALL = 0, 1, 2
TRUNCATE_TO_HW, TRUNCATE_BY_EPOCH_0_11, TRUNCATE_BY_EPOCH_LOOP = 0, 1, 2
"""How a follower finds where to truncate (``transitions.truncation``): to its HW, by
OffsetsForLeaderEpoch once (KIP-101), or until leader and follower agree (KIP-279)."""
