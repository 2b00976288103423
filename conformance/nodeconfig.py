"""Each node's ``server.properties`` and log4j2 configuration.

One dedicated KRaft controller (node 100) and brokers 0, 1, 2: node ids equal kmc's broker
numbers. kmc models the metadata log as one linearizable log with no controller failover under
KRaft (docs/kraft.md), which a single controller matches; it also keeps broker faults (pause,
kill) away from the Raft quorum, which combined nodes would not.

Every listener is on 127.0.0.1 at a port chosen free at start, and advertised as such.
``auto.leader.rebalance.enable=false`` keeps the controller from moving leaders on its own
(every 300 s by default), so every election in a run is one the harness asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

CONTROLLER_ID = 100

# The loggers the observers read (conformance/loglines.py), each raised only as far as needed.
# Strings checked in the 4.0.2, 4.1.2 and 4.4.0 jars (docs/conformance.md).
LOGGERS = {
    # Partition.makeLeader / makeFollower: "... starts at leader epoch ... Previous leader ..."
    "state.change.logger": "INFO",
    # Partition: "High watermark updated from", "Recorded replica N log end offset (LEO)",
    # "Shrinking ISR from", "ISR updated to" (DEBUG for the first two)
    "kafka.cluster.Partition": "DEBUG",
    # PartitionRegistration.maybeLogPartitionChange, through the controller's logger:
    # "partition change for ...: leader: a -> b, leaderEpoch: ..." (DEBUG), "UNCLEAN partition change"
    "org.apache.kafka.controller.ReplicationControlManager": "DEBUG",
    # MetadataBatchLoader: "handleCommit: Generated a metadata delta between X and Y from N batch(es)"
    "org.apache.kafka.image.loader.MetadataBatchLoader": "DEBUG",
    # the fetchers' truncation lines ("Truncating partition ... due to leader epoch and offset")
    "kafka.server.ReplicaFetcherThread": "INFO",
    "kafka.server.ReplicaAlterLogDirsThread": "WARN",
    # broker lifecycle ("The broker has been unfenced", "Beginning controlled shutdown")
    "kafka.server.BrokerLifecycleManager": "INFO",
    "org.apache.kafka.server.BrokerLifecycleManager": "INFO",
    # noise that fills the file without telling the observers anything
    "org.apache.kafka.raft": "WARN",
    "kafka.log.LogCleaner": "WARN",
    "org.apache.kafka.clients": "WARN",
    "kafka.request.logger": "WARN",
}

LOG4J2 = """\
status = warn
name = kmc
appender.f.type = File
appender.f.name = F
appender.f.fileName = {log_file}
appender.f.immediateFlush = true
appender.f.layout.type = PatternLayout
appender.f.layout.pattern = %d{{yyyy-MM-dd'T'HH:mm:ss.SSS}} %p [%t] %c %m%n
rootLogger.level = INFO
rootLogger.appenderRef.f.ref = F
"""


def log4j2_text(log_file: Path) -> str:
    lines = [LOG4J2.format(log_file=log_file)]
    for i, (name, level) in enumerate(sorted(LOGGERS.items())):
        lines.append(f"logger.l{i}.name = {name}\nlogger.l{i}.level = {level}\n")
    return "".join(lines)


@dataclass
class Timeouts:
    """The time-driven parts of Kafka that kmc leaves as free choices. Controlled schedules
    raise them so that fencing and ISR shrinks happen only when a schedule waits for them."""
    broker_session_timeout_ms: int = 9000      # KRaftConfigs default
    broker_heartbeat_interval_ms: int = 2000   # default
    replica_lag_time_max_ms: int = 30000       # default


@dataclass
class NodeLayout:
    node_id: int
    root: Path
    port: int

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def meta_dir(self) -> Path:
        return self.root / "meta"

    @property
    def log_file(self) -> Path:
        return self.root / "node.log"

    @property
    def properties_file(self) -> Path:
        return self.root / "server.properties"

    @property
    def log4j_file(self) -> Path:
        return self.root / "log4j2.properties"


@dataclass
class ClusterSettings:
    brokers: int = 3
    timeouts: Timeouts = field(default_factory=Timeouts)
    min_insync_replicas: int = 2
    unclean_leader_election: bool = False
    extra_broker: dict[str, str] = field(default_factory=dict)


def _props(d: dict[str, object]) -> str:
    return "".join(f"{k}={v}\n" for k, v in d.items())


def controller_properties(ctl: NodeLayout, settings: ClusterSettings) -> str:
    return _props({
        "process.roles": "controller",
        "node.id": ctl.node_id,
        "controller.quorum.voters": f"{ctl.node_id}@127.0.0.1:{ctl.port}",
        "controller.listener.names": "CONTROLLER",
        "listeners": f"CONTROLLER://127.0.0.1:{ctl.port}",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT",
        "log.dirs": ctl.data_dir,
        # fencing and cluster-wide defaults are the controller's to apply
        "broker.session.timeout.ms": settings.timeouts.broker_session_timeout_ms,
        "min.insync.replicas": settings.min_insync_replicas,
        "unclean.leader.election.enable": str(settings.unclean_leader_election).lower(),
        "auto.leader.rebalance.enable": "false",
        "num.io.threads": 2,
        "num.network.threads": 1,
        "background.threads": 2,
    })


def broker_properties(node: NodeLayout, ctl: NodeLayout, settings: ClusterSettings) -> str:
    rf = min(3, settings.brokers)
    props: dict[str, object] = {
        "process.roles": "broker",
        "node.id": node.node_id,
        "controller.quorum.voters": f"{ctl.node_id}@127.0.0.1:{ctl.port}",
        "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
        "inter.broker.listener.name": "PLAINTEXT",
        "log.dirs": node.data_dir,
        "metadata.log.dir": node.meta_dir,
        "auto.create.topics.enable": "false",
        "auto.leader.rebalance.enable": "false",
        "min.insync.replicas": settings.min_insync_replicas,
        "unclean.leader.election.enable": str(settings.unclean_leader_election).lower(),
        "offsets.topic.replication.factor": rf,
        "offsets.topic.num.partitions": 1,
        "transaction.state.log.replication.factor": rf,
        "transaction.state.log.min.isr": 1,
        "transaction.state.log.num.partitions": 1,
        "share.coordinator.state.topic.replication.factor": rf,
        "share.coordinator.state.topic.min.isr": 1,
        "group.initial.rebalance.delay.ms": 0,
        "num.network.threads": 1,
        "num.io.threads": 2,
        "background.threads": 2,
        "num.replica.fetchers": 1,
        "log.cleaner.enable": "false",
        "replica.lag.time.max.ms": settings.timeouts.replica_lag_time_max_ms,
        "broker.heartbeat.interval.ms": settings.timeouts.broker_heartbeat_interval_ms,
        # the high-watermark checkpoint file (kmc's checkpointed_hw) every second
        "replica.high.watermark.checkpoint.interval.ms": 1000,
    }
    props.update(settings.extra_broker)
    return _props(props)
