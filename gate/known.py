"""The losses the known-results suite finds (``scenarios/known-results.toml``), as data: which
configuration, which property, at which bounds. Two things read them:

* ``kmc check`` and the gate, to say what a HOLDS does not cover: a row of the same
  configuration family (the same rules and settings; only the bounds differ) that is violated
  at bounds the run did not reach names the bounds to raise (``beyond``);
* ``kmc advise``, to check every cell at least at the bounds where the suite finds a loss
  (``advise/evidence.py``).

Nothing here is typed by hand: a row added to the suite is picked up by both. If the suite is
not there (kmc installed without its checkout), there is simply nothing known.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from gate.suite import load_suite
from model.config import BOUND_NAMES, ModelConfig

KNOWN_RESULTS = Path(__file__).resolve().parent.parent / "scenarios" / "known-results.toml"

FAMILY_KEYS = ("replication.factor", "min.insync.replicas", "acks", "unclean.leader.election.enable",
               "crash.model", "rules", "hw.checkpoint", "fetch.from.followers")
"""What makes two configurations the same family: everything but the bounds (and the names the
rules were picked by: ``--protocol kip-320`` and ``--kafka-version 2.1`` have the same rules)."""


@dataclass(frozen=True)
class KnownLoss:
    """A known-results row that expects a violation: ``config`` (with its bounds) violates
    ``prop`` with a shortest counterexample of ``trace_length`` steps (None if not pinned)."""

    name: str
    config: ModelConfig
    prop: str
    trace_length: int | None

    @property
    def bounds(self):
        return self.config.bounds

    def to_json(self) -> dict:
        return {"known_result": self.name, "property": self.prop,
                "bounds": self.bounds.as_dict(), "trace_length": self.trace_length,
                "replication.factor": self.config.replication_factor,
                "rules": list(self.config.rules)}


def family(config: ModelConfig, producer: bool = False, consumer: bool = False) -> tuple:
    """The family key. With ``producer`` (a delivery property, issue 26) the producer's settings
    in force are part of it, so a run with an idempotent producer is never told of a duplicate a
    non-idempotent one gets; the replication properties do not depend on them. With
    ``consumer`` (at-least-once, at-most-once) the consumer's commit order is part of it: a
    consumer that commits before processing is never told to raise ``max-consumer-restarts``
    to reach what one that commits after gets (the restarts are a bound since issue 26d)."""
    data = config.as_dict()
    key = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in data.items()
                if k in FAMILY_KEYS)
    if producer:
        key += (("idempotent", config.idempotent),
                ("max.in.flight.requests.per.connection", config.max_in_flight_requests_per_connection))
    if consumer:
        key += (("consumer.commit", config.consumer_commit),)
    return key


DELIVERY_PROPERTIES = ("no-duplicates", "in-order", "exactly-once-to-log")
CONSUMER_PROPERTIES = ("at-least-once", "at-most-once")


@lru_cache(maxsize=4)
def known_losses(path: str = str(KNOWN_RESULTS)) -> tuple[KnownLoss, ...]:
    """Every (row, violated property) of the suite at ``path``; empty if it is not there.
    Liveness rows are not losses (nothing is lost, progress stops), and the safety engines that
    read this list cannot check their properties: they are left out."""
    if not Path(path).is_file():
        return ()
    out = []
    for spec in load_suite(path).checks:
        if spec.expect != "violated" or spec.liveness:
            continue
        for prop in spec.violates:
            out.append(KnownLoss(spec.name, spec.config, prop, spec.trace_length))
    return tuple(out)


def covers(bounds, other) -> bool:
    """Do ``bounds`` include every behaviour within ``other`` (each bound at least as large)?"""
    return all(getattr(bounds, n) >= getattr(other, n) for n in BOUND_NAMES)


def beyond(config: ModelConfig, held, losses=None) -> list[dict]:
    """The known losses of ``config``'s family, of a property in ``held`` (those that HOLD in a
    run of ``config``), at bounds the run did not cover: each a dict with the row, the property,
    its bounds, and ``raise``: the bounds to raise (name -> the row's value)."""
    found = []
    for loss in known_losses() if losses is None else losses:
        producer, consumer = loss.prop in DELIVERY_PROPERTIES, loss.prop in CONSUMER_PROPERTIES
        if (loss.prop not in held
                or family(loss.config, producer, consumer) != family(config, producer, consumer)
                or covers(config.bounds, loss.bounds)):
            continue
        to_raise = {n: getattr(loss.bounds, n) for n in BOUND_NAMES
                    if getattr(loss.bounds, n) > getattr(config.bounds, n)}
        found.append({**loss.to_json(), "raise": to_raise})
    return found
