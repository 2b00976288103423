"""States and actions in the Informal Trace Format (ITF) used by Apalache and Quint.

ITF (https://apalache-mc.org/docs/adr/015adr-trace.html) is JSON: a trace is
``{"#meta": {...}, "vars": [...], "states": [{"#meta": {"index": i}, var: value, ...}]}`` where
integers are JSON numbers (``{"#bigint": "..."}`` beyond 2**53), sequences are JSON arrays,
records are JSON objects, tuples are ``{"#tup": [...]}`` and sets are ``{"#set": [...]}``.

kmc's encoding of a ``ClusterState`` uses one ITF variable per field of the state:

=================== ========================================================================
``replicas``        sequence, one record per broker (index = broker id): ``alive``, ``log``
                    (sequence of ``{"id", "epoch"}``), ``high_watermark``, ``leader_epoch``,
                    ``leader``, ``isr`` (set), ``remote_log_end_offsets`` (sequence),
                    ``truncating``, ``fetch_response`` (a sequence of at most one response in
                    flight), ``flushed_offset``
``controller``      record: ``leader``, ``leader_epoch``, ``isr`` (set), ``live_brokers`` (set)
``leader_and_isr``  set of LeaderAndIsr requests in flight ``{"broker", "leader_epoch",
                    "leader", "isr"}``
``pending_acks``    sequence of acks=all produce requests waiting in purgatory
``acked``           set of acknowledged ``{"record", "offset"}``
``consumer_visible``, ``records_written``, ``crashes``, ``unflushed_losses``
``action_taken``    the action that led to this state: ``{"name", "params"}`` (``"init"`` for
                    the initial state), the convention of Quint's model-based testing traces
=================== ========================================================================

Set elements are sorted (on their Python values, before encoding) so that a file is byte-for-byte
the same on every run. Record field names are identifiers, so generic ITF readers (``itf-py``)
can turn records into named tuples.

Reading is as liberal as the standard: an integer may be a JSON number or ``{"#bigint": "..."}``
anywhere (Quint and itf-py write every integer that way), and a set's elements may come in any
order. Comparisons (``kmc trace replay``) go through ``normalise``, which decodes ``#bigint``,
``#set``, ``#map``, ``#tup`` and ``#unserializable`` into one canonical form first.
"""

from __future__ import annotations

import json
import re

from model.actions import ACTION_PARAMS, Action
from model.errors import KmcError
from model import schema as S
from model.state import RECORD_CLASSES, ClusterState, ReplicaState

BASE_STATE_VARS = ("replicas",) + tuple(f.name for f in S.CLUSTER if not f.optional)
STATE_VARS = ("replicas",) + tuple(f.name for f in S.CLUSTER)
"""Every state variable kmc writes, one per field of the state schema (``model/schema.py``);
files written before a variable existed may lack it (its default is read then), so only
``BASE_STATE_VARS`` are required."""
ACTION_VAR = "action_taken"
INIT_ACTION = "init"
ITF_VARS = STATE_VARS + (ACTION_VAR,)
REQUIRED_VARS = BASE_STATE_VARS + (ACTION_VAR,)

_MAX_JSON_INT = 2**53
_BIGINT = re.compile(r"-?[0-9]+")


class TraceFormatError(KmcError):
    """A trace file that is not valid kmc ITF."""


# ---------------------------------------------------------------------------- encoding

def _int(v) -> object:
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= _MAX_JSON_INT:
        return {"#bigint": str(v)}
    return v


def _set(items) -> dict:
    return {"#set": [_int(x) for x in sorted(items)]}


def _record_log(log) -> list:
    return [{"id": _int(rid), "epoch": _int(ep)} for rid, ep in log]


def _value(f: S.Field, value):
    """A field's value as ITF, by its readable type (``model/schema.py``): ints, booleans, sets,
    sequences, records; a message in flight as a sequence of at most one record."""
    t = f.type
    if t in (S.INT, S.BROKER):
        return _int(value)
    if t == S.BOOL:
        return bool(value)
    if t == S.BROKERS_SET:
        return _set(value)
    if t in (S.PER_BROKER, S.PREFIX, S.PRODUCER_EPOCHS, S.PER_RECORD):
        return [_int(x) for x in value]
    if t == S.LOG:
        return _record_log(value)
    if t == S.RECORD:
        return {p.name: _value(p, x) for p, x in zip(f.parts, value)}
    if t == S.MESSAGE:
        return [{p.name: _value(p, x) for p, x in zip(f.parts, value)}] if value else []
    if t == S.REQUESTS:
        return {"#set": [{"broker": _int(b), "leader_epoch": _int(e), "leader": _int(l), "isr": _set(isr)}
                         for b, e, l, isr in sorted(value)]}
    if t == S.REQUEST_FLAGS:
        return {"#set": [{"broker": _int(b), "leader_epoch": _int(e)} for b, e in sorted(value)]}
    if t == S.REQUEST_VALUES:
        return {"#set": [{"broker": _int(b), "leader_epoch": _int(e), "value": _int(x)}
                         for b, e, x in sorted(value)]}
    if t == S.ACKS_PENDING:
        return [{"leader": _int(l), "record": _int(rid), "offset": _int(off)} for l, rid, off in value]
    if t in (S.ACKS_DONE, S.RECORD_OFFSETS):
        return {"#set": [{"record": _int(rid), "offset": _int(off)} for rid, off in sorted(value)]}
    raise AssertionError(f"field {f.name}: no ITF for type {t}")


def encode_state(state: ClusterState) -> dict:
    """The ITF values of the state variables (no ``#meta``, no ``action_taken``)."""
    return {
        "replicas": [{f.name: _value(f, v) for f, v in zip(S.REPLICA, r)} for r in state.replicas],
        **{f.name: _value(f, v) for f, v in zip(S.CLUSTER, state[1:])},
    }


def encode_action(act: Action | None) -> dict:
    if act is None:
        return {"name": INIT_ACTION, "params": {}}
    return {"name": act.name, "params": {k: _int(v) for k, v in act.params().items()}}


# ---------------------------------------------------------------------------- decoding

class _Decoder:
    """Strict decoding with a path for error messages ("state 3: replicas[1].log[0].epoch")."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, path: str, expected: str, value) -> None:
        shown = repr(value)
        if len(shown) > 40:
            shown = shown[:37] + "..."
        raise TraceFormatError(f"{self.where}: {path} should be {expected}, found {shown}")

    def field(self, obj, key: str, path: str):
        if not isinstance(obj, dict):
            self.fail(path, "a record", obj)
        if key not in obj:
            raise TraceFormatError(f"{self.where}: {path} has no field {key!r}")
        return obj[key]

    def int(self, v, path: str) -> int:
        if isinstance(v, dict) and set(v) == {"#bigint"}:
            digits = v["#bigint"]
            if not isinstance(digits, str) or not _BIGINT.fullmatch(digits) or len(digits) > 40:
                self.fail(path, "an integer", v)
            return int(digits)
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(path, "an integer", v)
        return v

    def bool(self, v, path: str) -> bool:
        if not isinstance(v, bool):
            self.fail(path, "true or false", v)
        return v

    def seq(self, v, path: str) -> list:
        if not isinstance(v, list):
            self.fail(path, "a sequence (JSON array)", v)
        return v

    def set(self, v, path: str) -> list:
        if not (isinstance(v, dict) and set(v) == {"#set"} and isinstance(v["#set"], list)):
            self.fail(path, 'a set ({"#set": [...]})', v)
        return v["#set"]

    def int_set(self, v, path: str) -> tuple:
        return tuple(sorted(self.int(x, f"{path}[{i}]") for i, x in enumerate(self.set(v, path))))

    def value(self, f: S.Field, v, path: str):
        """Inverse of ``_value``: the readable value of field ``f``."""
        t = f.type
        if t in (S.INT, S.BROKER):
            return self.int(v, path)
        if t == S.BOOL:
            return self.bool(v, path)
        if t == S.BROKERS_SET:
            return self.int_set(v, path)
        if t in (S.PER_BROKER, S.PREFIX, S.PRODUCER_EPOCHS, S.PER_RECORD):
            return tuple(self.int(x, f"{path}[{i}]") for i, x in enumerate(self.seq(v, path)))
        if t == S.LOG:
            return self.log(v, path)
        if t == S.RECORD:
            return RECORD_CLASSES[f.name](*self.parts(f, v, path))
        if t == S.MESSAGE:
            items = self.seq(v, path)
            if len(items) > 1:
                self.fail(path, "at most one message in flight", items)
            return self.parts(f, items[0], path + "[0]") if items else ()
        if t == S.ACKS_PENDING:
            return tuple(self.entry(q, ("leader", "record", "offset"), f"{path}[{k}]")
                         for k, q in enumerate(self.seq(v, path)))
        keys = {S.REQUEST_FLAGS: ("broker", "leader_epoch"),
                S.REQUEST_VALUES: ("broker", "leader_epoch", "value"),
                S.ACKS_DONE: ("record", "offset"), S.RECORD_OFFSETS: ("record", "offset"),
                S.REQUESTS: ("broker", "leader_epoch", "leader")}[t]
        out = []
        for k, q in enumerate(self.set(v, path)):
            entry = self.entry(q, keys, f"{path}[{k}]")
            if t == S.REQUESTS:
                entry += (self.int_set(self.field(q, "isr", f"{path}[{k}]"), f"{path}[{k}].isr"),)
            out.append(entry)
        return tuple(sorted(out))

    def entry(self, q, keys, path: str) -> tuple:
        return tuple(self.int(self.field(q, key, path), f"{path}.{key}") for key in keys)

    def parts(self, f: S.Field, q, path: str) -> tuple:
        return tuple(self.value(p, self.field(q, p.name, path), f"{path}.{p.name}") for p in f.parts)

    def fields(self, fields, obj, path: str) -> list:
        """The values of ``fields`` in ``obj``; an optional field missing from a file written
        before it existed is its default."""
        out = []
        for f in fields:
            if f.optional and isinstance(obj, dict) and f.name not in obj:
                out.append(f.default)
                continue
            where = f.name if path == "state" else f"{path}.{f.name}"
            out.append(self.value(f, self.field(obj, f.name, path), where))
        return out

    def log(self, v, path: str) -> tuple:
        out = []
        for i, rec in enumerate(self.seq(v, path)):
            p = f"{path}[{i}]"
            out.append((self.int(self.field(rec, "id", p), p + ".id"),
                        self.int(self.field(rec, "epoch", p), p + ".epoch")))
        return tuple(out)


def decode_state(values: dict, where: str) -> ClusterState:
    """The ``ClusterState`` of one ITF state; ``TraceFormatError`` naming the bad field."""
    d = _Decoder(where)
    replicas = tuple(ReplicaState._make(d.fields(S.REPLICA, r, f"replicas[{b}]"))
                     for b, r in enumerate(d.seq(d.field(values, "replicas", "state"), "replicas")))
    return ClusterState._make([replicas] + d.fields(S.CLUSTER, values, "state"))


def decode_action(value, where: str) -> Action | None:
    """The action of ``action_taken`` (None for the initial state's ``"init"``)."""
    d = _Decoder(where)
    name = d.field(value, "name", ACTION_VAR)
    params = d.field(value, "params", ACTION_VAR)
    if not isinstance(name, str):
        d.fail(f"{ACTION_VAR}.name", "an action name (a string)", name)
    if name == INIT_ACTION:
        return None
    if name not in ACTION_PARAMS:
        shown = name if len(name) <= 40 else name[:37] + "..."
        raise TraceFormatError(f"{where}: unknown action {shown!r} (kmc knows {', '.join(ACTION_PARAMS)})")
    args = tuple(
        d.int(d.field(params, p, f"{ACTION_VAR}.params"), f"{ACTION_VAR}.params.{p}")
        for p in ACTION_PARAMS[name]
    )
    return Action(name, args)


def normalise(value):
    """An ITF value in one canonical form, so that two encodings of the same value are equal:
    ``{"#bigint": "7"}`` becomes ``7``; a ``#set``'s elements and a ``#map``'s pairs are sorted
    (on their canonical JSON); ``#tup`` and ``#unserializable`` keep their tags; records and
    sequences are normalised element by element. A malformed tagged value is left as it is (it
    then differs from any well-formed one)."""
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        (tag, inner), = value.items()
        if tag == "#bigint" and isinstance(inner, str) and _BIGINT.fullmatch(inner) and len(inner) <= 40:
            return int(inner)
        if tag == "#set" and isinstance(inner, list):
            return {"#set": sorted((normalise(v) for v in inner), key=_canonical)}
        if tag == "#map" and isinstance(inner, list) and all(
                isinstance(p, list) and len(p) == 2 for p in inner):
            return {"#map": sorted(([normalise(k), normalise(v)] for k, v in inner), key=_canonical)}
        if tag == "#tup" and isinstance(inner, list):
            return {"#tup": [normalise(v) for v in inner]}
        if tag == "#unserializable":
            return {"#unserializable": inner}
    return {k: normalise(v) for k, v in value.items()}


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def first_difference(expected, found, path: str = "") -> tuple[str, object, object] | None:
    """The first path where two ITF values differ, with both values; None if they are equal."""
    if isinstance(expected, dict) and isinstance(found, dict):
        for key in list(expected) + [k for k in found if k not in expected]:
            if key not in expected or key not in found:
                return (_join(path, key), expected.get(key, "(absent)"), found.get(key, "(absent)"))
            diff = first_difference(expected[key], found[key], path if key == "#set" else _join(path, key))
            if diff:
                return diff
        return None
    if isinstance(expected, list) and isinstance(found, list):
        for i, (a, b) in enumerate(zip(expected, found)):
            diff = first_difference(a, b, f"{path}[{i}]")
            if diff:
                return diff
        if len(expected) != len(found):
            return (path, expected, found)
        return None
    if expected == found and type(expected) is type(found):
        return None
    return (path, expected, found)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
