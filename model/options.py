"""Building a ``ModelConfig`` from what a user gives: command-line options, Kafka properties
files (``--config``), ``--kafka-version``, and Kafka's defaults, with the provenance of each value.

Every front end builds its configuration here: ``kmc check``, ``kmc prove``, ``kmc graph`` and the
gate's suites, so they accept and reject the same things with the same words. The keyword
arguments are named like the command-line options (``--unclean-leader-election`` ->
``unclean_leader_election``).
"""

from __future__ import annotations

from model.config import BOUND_NAMES, Bounds, ModelConfig, default_bounds
from model.errors import ConfigError
from model.kafka_config import Provenance, resolve_kafka_config


def config_from_options(*, protocol=None, kafka_version=None, config_files=(),
                        replication_factor=None, min_insync_replicas=None, acks=None,
                        unclean_leader_election=None, crash_model=None, symmetry=True,
                        rule_changes=(), hw_checkpoint=None, fetch_from_followers=None,
                        enable_idempotence=None, max_in_flight_requests_per_connection=None,
                        consumer_commit=None,
                        **bounds):
    """Build the configuration from flags (which win), Kafka properties files and Kafka's
    defaults. ``bounds`` are the ``Bounds`` fields by name (``max_records=...``; None = the
    default for the replication factor). Returns ``(config, provenance)``: the lines saying
    where each value came from, a list whose ``notes`` are the lines to show with the verdict
    too (``model.kafka_config.Provenance``).

    One set of defaults whatever the entry point: the crash model is ``process`` unless
    ``crash_model`` says otherwise, from flags and from Kafka properties files alike."""
    unknown = sorted(set(bounds) - set(BOUND_NAMES))
    if unknown:
        raise TypeError(f"config_from_options: unknown options {unknown}")
    max_unflushed_losses = bounds.get("max_unflushed_losses")
    if protocol is not None and kafka_version is not None:
        raise ConfigError("give --protocol or --kafka-version, not both")
    if max_unflushed_losses is not None and (crash_model or "process") == "process" and not config_files:
        raise ConfigError("--max-unflushed-losses needs --crash-model power-loss or disk-loss")
    values = {
        "protocol": protocol if protocol is not None else "kip-320",
        "replication_factor": 3,
        "min_insync_replicas": 2,
        "acks": "all",
        "unclean_leader_election_enable": False,
        "crash_model": "process",
    }
    provenance = Provenance()
    if config_files or kafka_version is not None:  # an empty --kafka-version is an error, not "none"
        from_files, provenance = resolve_kafka_config(config_files, kafka_version, overrides=dict(
            replication_factor=replication_factor, min_insync_replicas=min_insync_replicas,
            acks=acks, unclean_leader_election_enable=unclean_leader_election,
            crash_model=crash_model, enable_idempotence=enable_idempotence,
            max_in_flight_requests_per_connection=max_in_flight_requests_per_connection,
            consumer_commit=consumer_commit,
        ), protocol=protocol)  # so the provenance names the flags that win over the files
        values.update(from_files)
    flags = {
        "replication_factor": replication_factor,
        "min_insync_replicas": min_insync_replicas,
        "acks": acks,
        "unclean_leader_election_enable": unclean_leader_election,
        "crash_model": crash_model,
        "hw_checkpoint": hw_checkpoint,
        "fetch_from_followers": fetch_from_followers,
        "enable_idempotence": enable_idempotence,
        "max_in_flight_requests_per_connection": max_in_flight_requests_per_connection,
        "consumer_commit": consumer_commit,
    }
    for key, value in flags.items():
        if key == "crash_model" and config_files:
            continue  # resolved with the files' flush policy (model.kafka_config._crash_model)
        if value is not None:
            values[key] = value
    file_rule_changes = tuple(values.get("rule_changes", ()))
    try:
        rf = values["replication_factor"]
        if not isinstance(rf, int) or not 2 <= rf <= 5:
            raise ConfigError(f"replication factor must be between 2 and 5, got {rf}")
        base = default_bounds(rf)
        chosen = Bounds(**{k: (bounds[k] if bounds.get(k) is not None else getattr(base, k))
                           for k in BOUND_NAMES})
        if max_unflushed_losses is not None and values["crash_model"] == "process":
            raise ConfigError("--max-unflushed-losses needs a crash model that loses data "
                              "(--crash-model power-loss or disk-loss)")
        from_files = tuple(values.pop("rule_changes", ()))  # the command line's come after
        config = ModelConfig(bounds=chosen, symmetry=symmetry,
                             rule_changes=from_files + tuple(rule_changes), **values)
        if chosen.max_stale_metadata_reads and not {"isr-eligibility", "alter-partition"} <= set(config.rules):
            # the user's own release only: advise may still sweep older releases with the bound
            raise ConfigError(
                "--max-stale-metadata-reads models a KRaft leader reading ISR eligibility on its "
                "own metadata cache (KIP-841, rule isr-eligibility, Kafka 3.3+); these rules lack "
                "it, so the bound would change nothing (leave it out, or use --kafka-version 3.3 "
                "or later)")
        return config, provenance
    except ConfigError as e:
        # the values the error may be about, and the rule changes a properties file asked for
        # (eligible.leader.replicas.enable, zookeeper.connect): the user did not type those
        # "--rule" flags, so the line names the file that did
        named = tuple(change[1:] for change in file_rule_changes if change[1:] in str(e))
        keys = named or ("replication.factor", "min.insync.replicas", "acks")
        sources = [" ".join(line.split()) for line in provenance if "<-" in line and any(
            key in line.split("<-")[0] for key in keys)]
        if sources:
            raise ConfigError(f"{e} (where the values came from: {'; '.join(sources)})") from None
        raise
