"""The command-line options that describe a configuration, shared by ``kmc check``, ``kmc graph``
and ``kmc prove``: one definition, so they spell and document them the same way. The decorated
command receives them as keyword arguments named like ``model.options.config_from_options``'s."""

from __future__ import annotations

import click

from commands.params import BoundedInt, INT32_MAX
from model.config import BOUND_HELP, BOUND_NAMES, Bounds, default_bounds
from model.constants import CRASH_MODELS, HW_CHECKPOINT_MODES

FAULT_BOUNDS = tuple(name for name in BOUND_NAMES if Bounds.__dataclass_fields__[name].metadata["fault"])


def _bound_default(name: str) -> str:
    """A bound's default for ``--help``: it depends on the replication factor
    (``model.config.default_bounds``), so both values are shown when they differ."""
    if name in FAULT_BOUNDS:
        return "0"
    two, more = getattr(default_bounds(2), name), getattr(default_bounds(3), name)
    return str(two) if two == more else f"{two} at RF=2, {more} at RF>=3"

_ALIASES = {"max_retries": ("--retries",)}
"""Other spellings of a bound's option: Kafka's producer setting for the retry bound."""

_OPTIONS = (
    click.option("--protocol", metavar="NAME",
                 help="Replication protocol variant (see 'kmc list'). [default: kip-320]"),
    click.option("--replication-factor", "-r", type=BoundedInt(None, INT32_MAX), help="Replicas (2-5). [default: 3]"),
    click.option("--min-insync-replicas", type=BoundedInt(None, INT32_MAX), help="min.insync.replicas. [default: 2]"),
    click.option("--acks", type=click.Choice(["0", "1", "all", "-1"]), help="Producer acks. [default: all]"),
    click.option("--unclean-leader-election/--no-unclean-leader-election", default=None,
                 help="unclean.leader.election.enable. [default: off]"),
    click.option("--crash-model", type=click.Choice(CRASH_MODELS),
                 help="process: a crash keeps the log; power-loss: unflushed records are lost; "
                      "disk-loss: the disk is replaced (the log is gone). [default: process]"),
    click.option("--rule", "rule_changes", multiple=True, metavar="+NAME|-NAME",
                 help="Turn one protocol rule on (+NAME) or off (-NAME), on top of --protocol or "
                      "--kafka-version; repeatable ('kmc list' shows the rules)."),
    click.option("--hw-checkpoint", type=click.Choice(HW_CHECKPOINT_MODES),
                 help="immediate: a restart finds the HW it crashed with; interval: Kafka's "
                      "periodic checkpoint (replica.high.watermark.checkpoint.interval.ms), so a "
                      "restart can bring back an older HW. [default: immediate]"),
    click.option("--fetch-from-followers/--no-fetch-from-followers", default=None,
                 help="Consumers may read from followers (KIP-392, replica.selector.class); "
                      "judged by the no-read-loss property. [default: off]"),
    click.option("--enable-idempotence/--no-enable-idempotence", default=None,
                 help="The producer's enable.idempotence (KIP-98): sequence numbers the leader "
                      "checks; judged with --retries. [default: the release's: on since 3.0]"),
    click.option("--max-in-flight-requests-per-connection", type=BoundedInt(None, INT32_MAX), metavar="N",
                 help="The producer's max.in.flight.requests.per.connection; judged with "
                      "--retries. [default: 5]"),
    click.option("--consumer-commit", type=click.Choice(["before", "after"]),
                 help="Model one consumer that commits its offset before processing a record "
                      "(at-most-once) or after (at-least-once); judged by the at-most-once and "
                      "at-least-once properties. [default: no consumer]"),
) + tuple(
    click.option(f"--{name.replace('_', '-')}", *_ALIASES.get(name, ()), name, type=BoundedInt(None, None),
                 help=f"Bound: {BOUND_HELP[name]}. [default: {_bound_default(name)}]")
    for name in BOUND_NAMES
)

_SOURCE_OPTIONS = (
    click.option("--kafka-version", metavar="X.Y",
                 help="Pick the protocol the given Kafka version ran (instead of --protocol)."),
    click.option("--config", "config_files", multiple=True, type=click.Path(dir_okay=False),
                 metavar="FILE", help="Kafka properties file (server/topic/producer); repeatable."),
)

CONFIG_OPTION_NAMES = (
    "protocol", "replication_factor", "min_insync_replicas", "acks", "unclean_leader_election",
    "crash_model", "rule_changes", "hw_checkpoint", "fetch_from_followers", "enable_idempotence",
    "max_in_flight_requests_per_connection", "consumer_commit",
    *BOUND_NAMES,
)


def config_options(command):
    """Decorator: add the configuration and bound options to a click command."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def source_options(command):
    """Decorator: add ``--kafka-version`` and ``--config`` (Kafka properties files), passed to
    the command as ``kafka_version`` and ``config_files``."""
    for option in reversed(_SOURCE_OPTIONS):
        command = option(command)
    return command


def pop_config_options(kwargs: dict) -> dict:
    """Take the configuration options out of a command's keyword arguments."""
    return {name: kwargs.pop(name) for name in CONFIG_OPTION_NAMES}
