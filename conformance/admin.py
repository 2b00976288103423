"""Admin requests to a real cluster, routed to a running broker only.

kafka-python 3.0.x is the client here because it is the one Python client that sends
DescribeTopicPartitions (API 75, KIP-966): leader, **leader epoch**, ISR, **ELR** and **last
known ELR** per partition, which is the controller's partition registration as kmc keeps it;
it also sends ElectLeaders (preferred and unclean) and AlterPartitionReassignments, and is pure
Python (one pip install, no native library). confluent-kafka's ``describe_topics`` returns no
leader epoch and no ELR; aiokafka's admin client has no elections or reassignments
(docs/conformance.md).

A paused broker (SIGSTOP) answers nothing, and kafka-python picks a random broker for most
admin requests, so each call here opens a short-lived client bootstrapped to one running,
unpaused broker and routes every request of that client to it (the "least loaded node" and
the "controller" of kafka-python's admin client both become that broker; in KRaft a broker
forwards controller requests to the controller). What ``partition`` returns is that broker's
metadata image, which lags the controller by up to one metadata fetch.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass

from kafka import KafkaAdminClient, TopicPartition
from kafka.admin import NewTopic

logging.getLogger("kafka").setLevel(logging.CRITICAL)  # its warnings about paused brokers are expected

PREFERRED = 0
UNCLEAN = 1


@dataclass(frozen=True)
class PartitionView:
    """One broker's view of a partition (DescribeTopicPartitions)."""
    leader: int
    leader_epoch: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    elr: tuple[int, ...]
    last_known_elr: tuple[int, ...]
    offline: tuple[int, ...]
    seen_by: int

    def as_dict(self) -> dict:
        return {"leader": self.leader, "leader_epoch": self.leader_epoch, "replicas": list(self.replicas),
                "isr": list(self.isr), "elr": list(self.elr), "last_known_elr": list(self.last_known_elr),
                "offline": list(self.offline), "seen_by": self.seen_by}


@contextmanager
def routed_client(port: int, node_id: int, timeout_ms: int = 15000):
    """A KafkaAdminClient that sends every request to broker ``node_id`` at 127.0.0.1:``port``."""
    admin = KafkaAdminClient(bootstrap_servers=f"127.0.0.1:{port}", request_timeout_ms=timeout_ms,
                             client_id="kmc-conformance")
    try:
        admin._manager.least_loaded_node = lambda: node_id
        admin._controller_id = node_id
        yield admin
    finally:
        admin.close()


class Admin:
    """Admin calls on a ``Cluster``, each through one running, unpaused broker."""

    def __init__(self, cluster, timeout_ms: int = 15000) -> None:
        self.cluster = cluster
        self.timeout_ms = timeout_ms

    def _via(self, via: int | None):
        usable = self.cluster.usable()
        if via is None:
            if not usable:
                raise RuntimeError("no running, unpaused broker to send an admin request to")
            via = usable[0]
        return routed_client(self.cluster.brokers[via].layout.port, via, self.timeout_ms), via

    def create_topic(self, topic: str, assignment: list[int], configs: dict[str, str], via: int | None = None) -> None:
        client, _ = self._via(via)
        with client as admin:
            admin.create_topics([NewTopic(topic, replica_assignments={0: list(assignment)},
                                          topic_configs=dict(configs))])

    def partition(self, topic: str, via: int | None = None) -> PartitionView:
        client, via = self._via(via)
        with client as admin:
            res = admin.describe_topic_partitions([topic])
        p = res["topics"][0]["partitions"][0]
        return PartitionView(p["leader_id"], p["leader_epoch"], tuple(p["replica_nodes"]), tuple(p["isr_nodes"]),
                             tuple(p["eligible_leader_replicas"] or ()), tuple(p["last_known_elr"] or ()),
                             tuple(p["offline_replicas"]), via)

    def reassign(self, topic: str, replicas: list[int], via: int | None = None) -> None:
        """AlterPartitionReassignments to the same replica set in a new order: the controller
        completes it at once (no replica added or removed) and bumps only the partition epoch."""
        client, _ = self._via(via)
        with client as admin:
            res = admin.alter_partition_reassignments({TopicPartition(topic, 0): list(replicas)})
        errors = {str(tp): err for tp, err in (res or {}).items() if err is not None}
        if errors:
            raise RuntimeError(f"reassignment refused: {errors}")

    def elect(self, topic: str, election_type: int = PREFERRED, via: int | None = None) -> None:
        client, _ = self._via(via)
        with client as admin:
            admin.elect_leaders(election_type, {topic: [0]})

    def set_topic_config(self, topic: str, configs: dict[str, str], via: int | None = None) -> None:
        """IncrementalAlterConfigs (SET) on a topic."""
        from kafka.admin import ConfigResource, ConfigResourceType  # noqa: PLC0415 (only here)
        client, _ = self._via(via)
        with client as admin:
            admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, dict(configs))], incremental=True)

    def end_offset(self, topic: str, via: int | None = None) -> int:
        from kafka.admin import OffsetSpec  # noqa: PLC0415 (only here)
        client, _ = self._via(via)
        with client as admin:
            res = admin.list_partition_offsets({TopicPartition(topic, 0): OffsetSpec.LATEST})
        return list(res.values())[0].offset
