"""kmc trace files: a counterexample as an ITF trace with kmc's metadata.

``write_trace(path, trace, result)`` (``kmc check --trace-out``) writes the trace; ``read_trace``
loads one back, checking on the way that it is ITF (``vars``, ``states``), that kmc wrote it
(``#meta.kmc.trace_format``), that it is complete (as many states as the metadata says steps,
plus the initial one) and that every state decodes; anything else is a ``TraceFormatError``
(one line, exit code 2 on the command line).

The top-level ``#meta`` carries, under ``"kmc"``: the format marker and version, the kmc version,
the model fingerprint (``viewer.model_version``), the configuration (``ModelConfig.as_dict()``:
protocol, replication factor, acks, min.insync.replicas, unclean leader election, crash model,
bounds), the violated property with its description, the step where it is first violated, and
the engine that found it. Each state's ``#meta`` has its index, the action and the action in
Kafka words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib.metadata import version

from checker.trace import Step, Trace
from model.config import ModelConfig
from model.describe import describe
from model.bounded import clip, shown
from model.errors import ConfigError
from model.files import parse_json, read_text
from model.state import shape_error
from properties import PROPERTIES
from viewer.itf import (
    ACTION_VAR, ITF_VARS, REQUIRED_VARS, STATE_VARS, TraceFormatError, decode_action, decode_state,
    encode_action, encode_state,
)
from viewer.model_version import model_fingerprint
from viewer.trace_meta import check_config, check_meta, check_violation_step

FORMAT_MARKER = "kmc-itf"
FORMAT_VERSION = 1
ITF_SPEC = "https://apalache-mc.org/docs/adr/015adr-trace.html"

MAX_TRACE_BYTES = 64 * 2**20  # a kmc trace of 100 steps at RF=5 is well under a megabyte
MAX_TRACE_DEPTH = 32  # kmc's ITF nests 10 levels deep (a record id inside a fetch response)
MAX_STATES = 100_000  # far beyond any shortest counterexample kmc can find


def kmc_version() -> str:
    try:
        return version("kmc")
    except Exception:  # not installed: running from a checkout
        return "unknown"


def violation_step(trace: Trace) -> int | None:
    """The first step (0 = initial state) whose state violates the trace's property; None if the
    property is not registered or holds in every state of the trace."""
    prop = PROPERTIES.get(trace.property_name or "")
    if prop is None:
        return None
    for i, state in enumerate(trace.states):
        if not prop.check(state):
            return i
    return None


def trace_to_itf(trace: Trace, config: dict, *, engine: str | None = None) -> dict:
    """The ITF document of ``trace`` recorded under ``config`` (``ModelConfig.as_dict()``)."""
    prop = PROPERTIES.get(trace.property_name or "")
    kmc_meta = {
        "trace_format": FORMAT_MARKER,
        "trace_format_version": FORMAT_VERSION,
        "kmc_version": kmc_version(),
        "model_fingerprint": model_fingerprint(ModelConfig.from_dict(config).rules),
        "protocol": config["protocol"],
        "config": config,
        "bounds": config.get("bounds", {}),
        "property": trace.property_name,
        "property_description": prop.description if prop else None,
        "violation_step": violation_step(trace),
        "steps": len(trace.steps),
        "engine": engine,
    }
    states = []
    before = None
    for i, state in enumerate(trace.states):
        act = trace.steps[i - 1].action if i else None
        meta = {"index": i}
        if act is not None:
            meta["action"] = str(act)
            meta["description"] = describe(act, before, state)
        states.append({"#meta": meta, **encode_state(state), ACTION_VAR: encode_action(act)})
        before = state
    what = f"counterexample for {trace.property_name}" if trace.property_name else "trace"
    return {
        "#meta": {
            "format": "ITF",
            "format-description": ITF_SPEC,
            "source": "kmc",
            "description": f"kmc {what}: protocol {config['protocol']}, {len(trace.steps)} steps",
            "kmc": kmc_meta,
        },
        "vars": list(ITF_VARS),
        "states": states,
    }


def dumps(doc: dict) -> str:
    """The document as JSON with one line per state variable, so a trace reads (and diffs)
    state by state."""

    def one_line(value) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))

    head = {k: v for k, v in doc.items() if k != "states"}
    text = json.dumps(head, indent=1, ensure_ascii=False)[:-2]  # drop the closing "\n}"
    states = []
    for state in doc["states"]:
        fields = []
        for k, v in state.items():
            if k == "replicas" and isinstance(v, list) and v:  # one replica a line
                inner = ",\n".join(f"    {one_line(r)}" for r in v)
                fields.append(f"   {one_line(k)}: [\n{inner}\n   ]")
            else:
                fields.append(f"   {one_line(k)}: {one_line(v)}")
        states.append("  {\n" + ",\n".join(fields) + "\n  }")
    return text + ',\n "states": [\n' + ",\n".join(states) + "\n ]\n}\n"


def write_trace(path: str, trace: Trace, result) -> None:
    """Write ``trace`` (found by ``result``, a ``CheckResult``) to ``path`` as kmc ITF."""
    doc = trace_to_itf(trace, result.config, engine=getattr(result, "engine", None))
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps(doc))


def write_lasso(path: str, result, config: dict) -> None:
    """Write a liveness result's lasso (``checker/liveness.py``) as kmc ITF with ITF's ``loop``:
    the index of the state the last one is followed by (the last state itself when it stutters
    for ever; else the state after the loop's first, which the last state repeats)."""
    trace = Trace(result.trace.initial, result.trace.steps)  # named below, not as an invariant
    doc = trace_to_itf(trace, config, engine="liveness")
    doc["loop"] = len(trace.steps) if result.stuttering else result.loop_start + 1
    # (``property`` names invariants, judged state by state on replay; a lasso is judged whole,
    # so ``kmc trace replay`` replays it as a plain trace)
    doc["#meta"]["kmc"]["liveness_property"] = result.property_name
    doc["#meta"]["kmc"]["liveness_description"] = result.description
    doc["#meta"]["description"] = (f"kmc lasso for the liveness property {result.property_name}: "
                                   f"protocol {config['protocol']}, {len(trace.steps)} steps")
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps(doc))


@dataclass
class TraceFile:
    """A loaded trace file: the trace, the configuration and kmc's metadata, and the raw ITF
    states (for exact comparison on replay)."""

    path: str
    trace: Trace
    config: ModelConfig
    meta: dict
    raw_states: list = field(default_factory=list)
    loop: int | None = None  # ITF's ``loop`` of a lasso (``write_lasso``), else None

    @property
    def property_name(self) -> str | None:
        return self.meta.get("property")

    def view_meta(self) -> dict:
        """What the viewers draw with: kmc's metadata, and the lasso's loop if the file has one."""
        return {**self.meta, "loop": self.loop} if self.loop is not None else dict(self.meta)


def loop_start(meta: dict, steps: int) -> tuple[int, bool] | None:
    """A lasso's loop from its viewer metadata: (the index of the state the loop returns to,
    whether that is the last state stuttering for ever), or None for a plain trace. ITF's
    ``loop`` is the index of the state that follows the last one: the last itself when it
    stutters, else the state after the loop's first (which the last state repeats)."""
    loop = meta.get("loop")
    if loop is None:
        return None
    return (steps, True) if loop == steps else (loop - 1, False)


def parse_trace(doc, source: str = "trace", *, judge: bool = True) -> TraceFile:
    """Validate and decode an ITF document written by kmc; ``TraceFormatError`` otherwise.
    With ``judge`` (``trace show``, ``trace html``), the metadata's violation step must be the
    one the states show (``viewer.trace_meta``); ``trace replay`` passes ``judge=False`` and
    judges it itself, as a verdict (a trace the current model no longer violates is "invalid",
    exit code 1, not a malformed file)."""
    if not isinstance(doc, dict) or "states" not in doc or "vars" not in doc:
        raise TraceFormatError(f"{source} is not an ITF trace (it needs 'vars' and 'states')")
    top = doc.get("#meta")
    kmc = top.get("kmc") if isinstance(top, dict) else None
    if not isinstance(kmc, dict) or kmc.get("trace_format") != FORMAT_MARKER:
        made_by = top.get("source") if isinstance(top, dict) else None
        raise TraceFormatError(
            f"{source} is an ITF trace but not one written by kmc"
            + (f" (its source is {str(made_by)[:40]!r})" if made_by else "")
            + "; kmc can only replay and draw traces of its own model"
        )
    version = kmc.get("trace_format_version")
    if version != FORMAT_VERSION:
        raise TraceFormatError(
            f"{source} uses kmc trace format version {_short(version)}; this kmc reads version "
            f"{FORMAT_VERSION} (write the trace again with this kmc)"
        )
    names = {v for v in doc["vars"] if isinstance(v, str)} if isinstance(doc["vars"], list) else set()
    if not set(REQUIRED_VARS) <= names:
        raise TraceFormatError(f"{source}: 'vars' lacks {', '.join(sorted(set(REQUIRED_VARS) - names))}")
    check_config(kmc.get("config"), source)
    try:
        config = ModelConfig.from_dict(kmc["config"])
    except ConfigError as e:
        raise TraceFormatError(f"{source}: bad configuration in #meta.kmc.config: {e}") from None
    except Exception as e:  # wrong types check_config let through: say it in one line
        raise TraceFormatError(f"{source}: malformed #meta.kmc.config ({type(e).__name__}: {clip(str(e))})") from None
    states = doc["states"]
    steps = kmc.get("steps")
    if not isinstance(states, list) or not states:
        raise TraceFormatError(f"{source} has no states")
    if len(states) > MAX_STATES:
        raise TraceFormatError(f"{source} has {len(states):,} states; kmc reads traces of at most {MAX_STATES:,}")
    for key, kinds in (("property", (str,)), ("property_description", (str,)),
                       ("violation_step", (int,)), ("model_fingerprint", (str,)),
                       ("kmc_version", (str,)), ("engine", (str,))):
        value = kmc.get(key)
        if value is not None and (not isinstance(value, kinds) or isinstance(value, bool)):
            raise TraceFormatError(f"{source}: #meta.kmc.{key} should be {kinds[0].__name__} or null, "
                                   f"found {type(value).__name__}")
    if not isinstance(steps, int) or isinstance(steps, bool) or len(states) != steps + 1:
        raise TraceFormatError(
            f"{source} is truncated or was edited: its metadata says {steps!r} steps (so "
            f"{steps + 1 if isinstance(steps, int) else '?'} states) but it has {len(states)} states"
        )
    check_meta(kmc, source)
    decoded, actions = [], []
    for i, raw in enumerate(states):
        where = f"{source}: state {i}"
        if not isinstance(raw, dict):
            raise TraceFormatError(f"{where} is not a JSON object")
        index = raw.get("#meta", {}).get("index") if isinstance(raw.get("#meta"), dict) else None
        if index != i or type(index) is not int:  # True == 1 and 1.0 == 1 in Python
            raise TraceFormatError(f"{where} has #meta.index {shown(index, 60)}; states must be numbered 0, 1, ...")
        decoded.append(decode_state(raw, where))
        act = decode_action(raw.get(ACTION_VAR), where) if ACTION_VAR in raw else "missing"
        if act == "missing":
            raise TraceFormatError(f"{where} has no {ACTION_VAR}")
        if (i == 0) != (act is None):
            raise TraceFormatError(
                f"{where}: {ACTION_VAR} must be 'init' in state 0 and an action in every later state"
            )
        actions.append(act)
    for i, state in enumerate(decoded):
        problem = shape_error(state, config.replication_factor)
        if problem:
            raise TraceFormatError(
                f"{source}: state {i} does not fit replication.factor={config.replication_factor}: {problem}"
            )
    broker_params = {"leader", "follower", "broker"}
    for i, act in enumerate(actions[1:], 1):
        for name, value in act.params().items():
            in_range = 0 <= value < config.replication_factor or (name == "new_leader" and value == -1)
            if (name in broker_params or name == "new_leader") and not in_range:
                raise TraceFormatError(f"{source}: state {i}'s action {act} names broker {value}, which does not exist")
    prop = kmc.get("property")
    trace = Trace(decoded[0], [Step(a, s) for a, s in zip(actions[1:], decoded[1:])],
                  prop if isinstance(prop, str) else None)
    if trace.property_name is None and kmc.get("violation_step") is not None:
        raise TraceFormatError(f"{source}: #meta.kmc.violation_step is set but no property is named")
    if judge and trace.property_name is not None:
        try:
            actual = violation_step(trace)
        except Exception as e:  # a property's check on states it was not written for
            raise TraceFormatError(f"{source}: the states cannot be judged by {trace.property_name} "
                                   f"({type(e).__name__}: {clip(str(e))})") from None
        check_violation_step(kmc, actual, source)
    raw_states = [{k: raw[k] for k in STATE_VARS if k in raw} for raw in states]
    loop = _lasso_loop(doc, kmc, raw_states, source)
    return TraceFile(source, trace, config, kmc, raw_states, loop)


def _lasso_loop(doc: dict, kmc: dict, raw_states: list, source: str) -> int | None:
    """ITF's ``loop`` of a lasso file, checked: a whole number naming a state, the last state
    the same as the one before the state it names (the loop closes), and the liveness property
    a name; None for a plain trace."""
    if doc.get("loop") is None:  # absent, or null (itf-py writes "loop": null)
        if kmc.get("liveness_property") is not None:
            raise TraceFormatError(f"{source}: #meta.kmc.liveness_property is set but the file has no 'loop'")
        return None
    loop, steps = doc["loop"], len(raw_states) - 1
    if type(loop) is not int or not (loop == steps or 1 <= loop < steps):
        raise TraceFormatError(f"{source}: 'loop' is {shown(loop, 40)}; a lasso's loop is the index "
                               f"of a state from 1 to {steps}")
    if loop < steps and raw_states[loop - 1] != raw_states[-1]:
        raise TraceFormatError(f"{source}: 'loop' is {loop}, but the last state is not state "
                               f"{loop - 1}, so the loop does not close")
    name = kmc.get("liveness_property")
    if not isinstance(name, str):
        raise TraceFormatError(f"{source}: a lasso ('loop') needs #meta.kmc.liveness_property, a name")
    return loop


def _short(value) -> str:
    """``repr(value)``, cut to 40 characters (a file's value quoted in a message)."""
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def read_trace(path: str, *, judge: bool = True) -> TraceFile:
    """Load and validate a kmc trace file (see ``parse_trace``); at most ``MAX_TRACE_BYTES``,
    JSON nested at most ``MAX_TRACE_DEPTH`` deep."""
    text = read_text(path, what="a trace file", limit=MAX_TRACE_BYTES, error=TraceFormatError)
    doc = parse_json(text, path, what="a trace file", max_depth=MAX_TRACE_DEPTH, error=TraceFormatError)
    return parse_trace(doc, path, judge=judge)
