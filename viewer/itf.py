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
from model.state import CLUSTER_EXTENSIONS, REPLICA_EXTENSIONS, ClusterState, PartitionState, ReplicaState

BASE_STATE_VARS = (
    "replicas", "controller", "leader_and_isr", "pending_acks", "acked", "consumer_visible",
    "records_written", "crashes", "unflushed_losses",
)
STATE_VARS = BASE_STATE_VARS + tuple(name for name, _, _ in CLUSTER_EXTENSIONS)
"""Every state variable kmc writes; files written before a variable existed may lack it (its
default is read then), so only ``BASE_STATE_VARS`` are required."""
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


def _extension(kind, value):
    """An extension field (``model.state.REPLICA_EXTENSIONS``) as ITF: ints, booleans, sets of
    brokers, and a message in flight as a sequence of at most one record."""
    if kind in ("int", "broker"):
        return _int(value)
    if kind == "bool":
        return bool(value)
    if kind == "brokers":
        return _set(value)
    if kind == "per-broker":
        return [_int(x) for x in value]
    if kind == "requests":
        return {"#set": [{"broker": _int(b), "leader_epoch": _int(e)} for b, e in sorted(value)]}
    if kind == "request-values":
        return {"#set": [{"broker": _int(b), "leader_epoch": _int(e), "value": _int(x)}
                         for b, e, x in sorted(value)]}
    if kind == "record-offsets":
        return {"#set": [{"record": _int(r), "offset": _int(o)} for r, o in sorted(value)]}
    if not value:
        return []
    return [{name: _extension(k, v) for (name, k), v in zip(kind, value)}]


def encode_state(state: ClusterState) -> dict:
    """The ITF values of the state variables (no ``#meta``, no ``action_taken``)."""
    replicas = []
    for r in state.replicas:
        fetch = []
        if r.fetch_response:
            leader, epoch, offset, records, hw, leo = r.fetch_response
            fetch.append({
                "leader": _int(leader), "leader_epoch": _int(epoch), "fetch_offset": _int(offset),
                "records": _record_log(records), "leader_high_watermark": _int(hw),
                "leader_log_end_offset": _int(leo),
            })
        replicas.append({
            "alive": bool(r.alive),
            "log": _record_log(r.log),
            "high_watermark": _int(r.high_watermark),
            "leader_epoch": _int(r.leader_epoch),
            "leader": _int(r.leader),
            "isr": _set(r.isr),
            "remote_log_end_offsets": [_int(x) for x in r.remote_log_end_offsets],
            "truncating": bool(r.truncating),
            "fetch_response": fetch,
            "flushed_offset": _int(r.flushed_offset),
            **{name: _extension(kind, getattr(r, name)) for name, kind, _ in REPLICA_EXTENSIONS},
        })
    c = state.controller
    return {
        "replicas": replicas,
        "controller": {
            "leader": _int(c.leader), "leader_epoch": _int(c.leader_epoch),
            "isr": _set(c.isr), "live_brokers": _set(c.live_brokers),
        },
        "leader_and_isr": {"#set": [
            {"broker": _int(b), "leader_epoch": _int(e), "leader": _int(l), "isr": _set(isr)}
            for b, e, l, isr in sorted(state.leader_and_isr)
        ]},
        "pending_acks": [
            {"leader": _int(l), "record": _int(rid), "offset": _int(off)}
            for l, rid, off in state.pending_acks
        ],
        "acked": {"#set": [
            {"record": _int(rid), "offset": _int(off)} for rid, off in sorted(state.acked)
        ]},
        "consumer_visible": [_int(x) for x in state.consumer_visible],
        "records_written": _int(state.records_written),
        "crashes": _int(state.crashes),
        "unflushed_losses": _int(state.unflushed_losses),
        **{name: _extension(kind, getattr(state, name)) for name, kind, _ in CLUSTER_EXTENSIONS},
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

    def extension(self, kind, v, path: str):
        """Inverse of ``_extension``."""
        if kind in ("int", "broker"):
            return self.int(v, path)
        if kind == "bool":
            return self.bool(v, path)
        if kind == "brokers":
            return self.int_set(v, path)
        if kind == "per-broker":
            return tuple(self.int(x, f"{path}[{i}]") for i, x in enumerate(self.seq(v, path)))
        if kind == "requests":
            return tuple(sorted(
                (self.int(self.field(q, "broker", path), path + ".broker"),
                 self.int(self.field(q, "leader_epoch", path), path + ".leader_epoch"))
                for q in self.set(v, path)))
        if kind == "record-offsets":
            return tuple(sorted(
                (self.int(self.field(q, "record", path), path + ".record"),
                 self.int(self.field(q, "offset", path), path + ".offset"))
                for q in self.set(v, path)))
        if kind == "request-values":
            return tuple(sorted(
                (self.int(self.field(q, "broker", path), path + ".broker"),
                 self.int(self.field(q, "leader_epoch", path), path + ".leader_epoch"),
                 self.int(self.field(q, "value", path), path + ".value"))
                for q in self.set(v, path)))
        items = self.seq(v, path)
        if len(items) > 1:
            self.fail(path, "at most one message in flight", items)
        if not items:
            return ()
        q, pq = items[0], path + "[0]"
        return tuple(self.extension(k, self.field(q, name, pq), f"{pq}.{name}") for name, k in kind)

    def optional(self, obj, name: str, kind, default, path: str):
        """An extension field, or its default in a file written before it existed."""
        if isinstance(obj, dict) and name not in obj:
            return default
        return self.extension(kind, self.field(obj, name, path), f"{path}.{name}" if path != "state" else name)

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
    f, i_ = d.field, d.int
    replicas = []
    for b, r in enumerate(d.seq(f(values, "replicas", "state"), "replicas")):
        p = f"replicas[{b}]"
        fetch = ()
        responses = d.seq(f(r, "fetch_response", p), p + ".fetch_response")
        if len(responses) > 1:
            d.fail(p + ".fetch_response", "at most one response", responses)
        if responses:
            q, pq = responses[0], p + ".fetch_response[0]"
            fetch = (
                i_(f(q, "leader", pq), pq + ".leader"),
                i_(f(q, "leader_epoch", pq), pq + ".leader_epoch"),
                i_(f(q, "fetch_offset", pq), pq + ".fetch_offset"),
                d.log(f(q, "records", pq), pq + ".records"),
                i_(f(q, "leader_high_watermark", pq), pq + ".leader_high_watermark"),
                i_(f(q, "leader_log_end_offset", pq), pq + ".leader_log_end_offset"),
            )
        replicas.append(ReplicaState(
            alive=d.bool(f(r, "alive", p), p + ".alive"),
            log=d.log(f(r, "log", p), p + ".log"),
            high_watermark=i_(f(r, "high_watermark", p), p + ".high_watermark"),
            leader_epoch=i_(f(r, "leader_epoch", p), p + ".leader_epoch"),
            leader=i_(f(r, "leader", p), p + ".leader"),
            isr=d.int_set(f(r, "isr", p), p + ".isr"),
            remote_log_end_offsets=tuple(
                i_(x, f"{p}.remote_log_end_offsets[{k}]")
                for k, x in enumerate(d.seq(f(r, "remote_log_end_offsets", p), p + ".remote_log_end_offsets"))
            ),
            truncating=d.bool(f(r, "truncating", p), p + ".truncating"),
            fetch_response=fetch,
            flushed_offset=i_(f(r, "flushed_offset", p), p + ".flushed_offset"),
            **{name: d.optional(r, name, kind, default, p)
               for name, kind, default in REPLICA_EXTENSIONS},
        ))
    c = f(values, "controller", "state")
    controller = PartitionState(
        leader=i_(f(c, "leader", "controller"), "controller.leader"),
        leader_epoch=i_(f(c, "leader_epoch", "controller"), "controller.leader_epoch"),
        isr=d.int_set(f(c, "isr", "controller"), "controller.isr"),
        live_brokers=d.int_set(f(c, "live_brokers", "controller"), "controller.live_brokers"),
    )
    requests = []
    for k, q in enumerate(d.set(f(values, "leader_and_isr", "state"), "leader_and_isr")):
        p = f"leader_and_isr[{k}]"
        requests.append((
            i_(f(q, "broker", p), p + ".broker"), i_(f(q, "leader_epoch", p), p + ".leader_epoch"),
            i_(f(q, "leader", p), p + ".leader"), d.int_set(f(q, "isr", p), p + ".isr"),
        ))
    pending = []
    for k, q in enumerate(d.seq(f(values, "pending_acks", "state"), "pending_acks")):
        p = f"pending_acks[{k}]"
        pending.append((i_(f(q, "leader", p), p + ".leader"), i_(f(q, "record", p), p + ".record"),
                        i_(f(q, "offset", p), p + ".offset")))
    acked = []
    for k, q in enumerate(d.set(f(values, "acked", "state"), "acked")):
        p = f"acked[{k}]"
        acked.append((i_(f(q, "record", p), p + ".record"), i_(f(q, "offset", p), p + ".offset")))
    return ClusterState(
        replicas=tuple(replicas),
        controller=controller,
        leader_and_isr=tuple(sorted(requests)),
        pending_acks=tuple(pending),
        acked=tuple(sorted(acked)),
        consumer_visible=tuple(
            i_(x, f"consumer_visible[{k}]")
            for k, x in enumerate(d.seq(f(values, "consumer_visible", "state"), "consumer_visible"))
        ),
        records_written=i_(f(values, "records_written", "state"), "records_written"),
        crashes=i_(f(values, "crashes", "state"), "crashes"),
        unflushed_losses=i_(f(values, "unflushed_losses", "state"), "unflushed_losses"),
        **{name: d.optional(values, name, kind, default, "state")
           for name, kind, default in CLUSTER_EXTENSIONS},
    )


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
