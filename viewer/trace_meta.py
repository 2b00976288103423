"""The ``#meta.kmc`` of a trace file, checked strictly: it must be what kmc writes, and it must
agree with the states it describes.

``kmc trace show`` prints the summary from the metadata and ``kmc trace replay`` judges the file
against it, so metadata that an editor, a script or a hostile author changed must not be
believed: a violation step of 99 in a 3-step trace, a replication factor written as ``"3"``, an
acks of ``"ALL"``, a boolean where an index goes (``true == 1`` in Python) or a property name
carrying an escape sequence. Each is a ``TraceFormatError`` (one line naming the file and the
key, at most ``model.bounded.ECHO_LIMIT`` characters of the value, exit code 2).

What is checked (``check_config`` and ``check_meta`` before the states are decoded,
``check_violation_step`` after):

* ``config``: a JSON object with only the keys ``ModelConfig.as_dict()`` writes, each of its
  type (integers are integers, not strings, floats or booleans; booleans are ``true``/``false``),
  ``acks`` one of ``"0"``, ``"1"``, ``"all"`` as kmc writes it, the bounds an object of the
  known bound names;
* ``property``: the name of a registered property (one defined by a plugin needs the same
  ``kmc --load``), printable;
* ``violation_step``: an integer from 0 to ``steps`` (or null), equal to the first state the
  named property fails in: recomputed from the states, not believed.
"""

from __future__ import annotations

from model.bounded import shown
from model.config import BOUND_NAMES
from model.constants import ACKS_CHOICES
from properties import PROPERTIES
from viewer.itf import TraceFormatError
from viewer.safe_text import terminal_safe

_INT, _BOOL, _STR, _STRS, _OBJ = "a whole number", "true or false", "a string", "a list of strings", "an object"
_OPT_BOOL = "true, false or null"

CONFIG_TYPES = {
    "protocol": _STR, "replication.factor": _INT, "min.insync.replicas": _INT, "acks": _STR,
    "unclean.leader.election.enable": _BOOL, "crash.model": _STR, "bounds": _OBJ,
    "symmetry": _BOOL, "kafka.version": _STR, "rule.changes": _STRS, "rules": _STRS,
    "rules.release": _STR, "ignored": _STRS, "hw.checkpoint": _STR,
    "fetch.from.followers": _BOOL, "track.reads": _BOOL,
    "enable.idempotence": _OPT_BOOL, "idempotent": _BOOL,
    "max.in.flight.requests.per.connection": _INT,
    "consumer.commit": _STR,
    "max.consumer.restarts": _INT,  # written before it became bounds.max_consumer_restarts (26d)
}
"""Every key ``ModelConfig.as_dict()`` writes, with its JSON type (and one it wrote before,
still read: ``ModelConfig.from_dict`` moves it into the bounds)."""


def _is(value, kind: str) -> bool:
    if kind == _INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == _BOOL:
        return isinstance(value, bool)
    if kind == _OPT_BOOL:
        return value is None or isinstance(value, bool)
    if kind == _STR:
        return isinstance(value, str)
    if kind == _STRS:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return isinstance(value, dict)


def check_config(config, source: str) -> None:
    """``#meta.kmc.config`` has the keys and types kmc writes (``ModelConfig.from_dict`` then
    checks the values)."""
    where = f"{source}: #meta.kmc.config"
    if not isinstance(config, dict):
        raise TraceFormatError(f"{where} must be an object, found {type(config).__name__}")
    for key, value in config.items():
        kind = CONFIG_TYPES.get(key)
        if kind is None:
            raise TraceFormatError(f"{where} has the unknown key {shown(key, 60)}; kmc writes "
                                   f"only {', '.join(CONFIG_TYPES)}")
        if not _is(value, kind):
            raise TraceFormatError(f"{where}.{key} must be {kind}, found {shown(value, 60)}")
    if config.get("acks") not in ACKS_CHOICES:
        raise TraceFormatError(f"{where}.acks must be one of {', '.join(repr(a) for a in ACKS_CHOICES)} "
                               f"as kmc writes it, found {shown(config.get('acks'), 60)}")
    for key, value in config.get("bounds", {}).items():
        if key not in BOUND_NAMES:
            raise TraceFormatError(f"{where}.bounds has the unknown bound {shown(key, 60)}")
        if not _is(value, _INT):
            raise TraceFormatError(f"{where}.bounds.{key} must be {_INT}, found {shown(value, 60)}")


def check_meta(kmc: dict, source: str) -> None:
    """The property named by ``#meta.kmc.property`` exists and is printable, and
    ``violation_step`` is a whole number within the trace (``steps`` is checked before)."""
    name = kmc.get("property")
    if name is not None:
        if terminal_safe(name) != name:
            raise TraceFormatError(f"{source}: #meta.kmc.property {shown(name, 60)} holds control "
                                   "characters; no property is called that")
        if name not in PROPERTIES:
            raise TraceFormatError(
                f"{source}: #meta.kmc.property {shown(name, 60)} is not a property kmc knows (one a "
                "plugin defines needs the same kmc --load MODULE); 'kmc list' shows them")
    step, steps = kmc.get("violation_step"), kmc.get("steps")
    if step is not None:
        if not _is(step, _INT):
            raise TraceFormatError(f"{source}: #meta.kmc.violation_step must be {_INT} or null, "
                                   f"found {shown(step, 60)}")
        if not 0 <= step <= steps:
            raise TraceFormatError(f"{source}: #meta.kmc.violation_step is {step}, but the trace "
                                   f"has states 0 to {steps}")


def check_violation_step(kmc: dict, actual: int | None, source: str) -> None:
    """The metadata's violation step is the one the states show (``actual``, recomputed with the
    property's check)."""
    claimed = kmc.get("violation_step")
    if claimed != actual:
        said = "no violation" if claimed is None else f"a violation at step {claimed}"
        found = "violate it in no state" if actual is None else f"violate it first at step {actual}"
        raise TraceFormatError(
            f"{source}: its metadata says {said} of {kmc.get('property')}, but its states {found}; "
            "the file is inconsistent (edited?)")
