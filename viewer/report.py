"""A ``CheckResult`` as text: the configuration, bounds, statistics, verdicts and counterexample."""

from __future__ import annotations

from checker.limits import LIMIT_WORDS
from checker.result import HOLDS, INCOMPLETE, VIOLATED, scope_of
from model.constants import CRASH_MODEL_MEANING
from model.rules import RULES
from properties import PROPERTIES
from viewer.text import render_trace


CLASSIC_BOUNDS = ("max_records", "max_leader_epoch", "max_crashes", "max_unflushed_losses")
"""Bounds printed even at 0; the fault bounds (0 = the event never happens) only when on."""


def describe_config(config: dict) -> list:
    b = config.get("bounds", {})
    version, changes = config.get("kafka.version", ""), config.get("rule.changes", [])
    if version:
        mode = " (KRaft)" if "kraft" in config.get("rules", []) else ""
        head = f"Kafka {version}{mode}"
        if config.get("rules.release"):  # a release newer than kmc models (ModelConfig.notes)
            head += f" with the rules of Kafka {config['rules.release']}"
    else:
        head = f"protocol {config['protocol']}"
    head += "".join(f" {c}" for c in changes)
    rules = []
    if version or changes:
        shown = config.get("rules", [])
        if not config.get("bounds", {}).get("max_retries"):  # the producer's: nothing to judge
            shown = [r for r in shown if not (r in RULES and RULES[r].producer)]
        rules = ["rules: " + (", ".join(shown) or "none (Kafka before 0.11)")]
    return [
        f"{head}, replication.factor={config['replication.factor']}, "
        f"acks={config['acks']}, min.insync.replicas={config['min.insync.replicas']}, "
        f"unclean.leader.election.enable={str(config['unclean.leader.election.enable']).lower()}"
        + (" (ignored by these rules)" if "unclean.leader.election.enable" in config.get("ignored", ()) else "")
        + ", "
        f"crash model {config['crash.model']} ({CRASH_MODEL_MEANING.get(config['crash.model'], '')})"
        + (", HW checkpoint every interval" if config.get("hw.checkpoint") == "interval" else "")
        + (", consumers fetch from followers" if config.get("fetch.from.followers") else "")
        + _producer_words(config)
        + ("" if config.get("symmetry", True) else ", no symmetry reduction"),
        "bounds: "
        + ", ".join(
            f"{k.replace('_', '-')}={v}"
            for k, v in b.items()
            if (k != "max_unflushed_losses" or config["crash.model"] != "process")
            and (k in CLASSIC_BOUNDS or v)  # fault bounds only when on
        ),
    ] + rules


def render_result(result, *, with_trace: bool = True) -> str:
    """The text report of a check: configuration, bounds, statistics, verdicts, counterexample."""
    s = result.stats
    lines = describe_config(result.config)
    if result.engine == "bmc":
        lines.append(
            f"engine bmc (z3 bounded model checking): every behaviour of up to {s.depth} steps "
            f"examined symbolically, {s.seconds:.1f} s"
        )
    else:
        lines.append(
            f"engine {result.engine}: {s.distinct_states:,} distinct states, {s.states_generated:,} "
            f"states generated, depth {s.depth}, {s.seconds:.1f} s ({s.states_per_second:,.0f} states/s)"
        )
    if result.engine in ("compiled", "reference", "bfs", "spark"):
        lines.append(
            f"fingerprint collision probability: {s.collision_probability:.1e} (TLC's optimistic estimate)"
        )
    if result.engine == "bmc":
        pass  # its notes say how deep it looked ("no violation up to depth K")
    elif result.limit == "max-depth":
        lines.append(
            f"INCOMPLETE: {s.queue:,} states lie beyond the --depth limit; every state within "
            f"{s.depth} steps was checked, nothing beyond"
        )
    elif result.limit:
        lines.append(
            f"INCOMPLETE: stopped at {LIMIT_WORDS.get(result.limit, result.limit)} with "
            f"{s.queue:,} states left to explore; a property not violated is NOT verified"
        )
    for note in result.notes:
        lines.append(note)
    if result.coverage is not None:
        lines.extend(render_coverage(result.coverage))
    lines.append("")
    width = max(len(p.name) for p in result.properties)
    for p in result.properties:
        extra = ""
        reach = is_reachability(p.name)
        if p.verdict == VIOLATED:
            extra = (f"  reached: shortest witness {len(p.trace)} steps" if reach
                     else f"  shortest counterexample: {len(p.trace)} steps")
        elif p.verdict == HOLDS and reach:
            extra = "  unreachable within the bounds"
        elif p.verdict == INCOMPLETE:
            extra = ("  (no violation within the depth: not a proof)" if result.engine == "bmc"
                     else "  (search not finished)")
        if getattr(p, "reported_only", False):
            extra += "  (reported, not failing)"
        lines.append(f"  {p.name:<{width}}  {p.verdict}{extra}")
    if any(p.verdict == HOLDS for p in result.properties) and result.engine != "bmc":
        held = "reached" if all(is_reachability(p.name) for p in result.properties) else "holds"
        lines.append(f"HOLDS = {scope_of(result.config)['holds_means']}"
                     + ("" if held == "holds" else " (unreachable: within the same bounds)"))
    for entry in getattr(result, "known_beyond", ()):
        lines.append(beyond_line(entry))
    reported = [p.name for p in result.properties if getattr(p, "reported_only", False)]
    if reported:
        lines.append(
            f"reported, not failing: {', '.join(reported)}: stronger than what Kafka promises "
            "(kmc list says why); the exit code follows the others. Name one with -p to fail "
            "on it.")
    if with_trace:
        traced = sorted((p for p in result.properties if p.trace is not None),
                        key=lambda p: getattr(p, "reported_only", False))  # a failing one first
        for p in traced[:1]:
            lines.append("")
            what = "Shortest witness" if is_reachability(p.name) else "Counterexample"
            lines.append(f"{what} for {p.name} ({len(p.trace)} steps):")
            lines.append(render_trace(p.trace))
        others = [p.name for p in traced][1:]
        if others:
            lines.append("")
            lines.append(
                "Counterexamples for " + ", ".join(others) + " are in --json output "
                "(or check one property at a time with --property)."
            )
    return "\n".join(lines)


def beyond_line(entry: dict) -> str:
    """A known loss beyond a run's bounds (``gate.known.beyond``), in one line."""
    bounds = entry["bounds"]
    flags = " ".join(f"--{n.replace('_', '-')} {v}" for n, v in bounds.items()
                     if n in CLASSIC_BOUNDS[:3] or (v and n != "max_unflushed_losses"))
    steps = f" ({entry['trace_length']} steps)" if entry.get("trace_length") else ""
    raised = " and ".join(f"{n.replace('_', '-')} to {v}" for n, v in entry["raise"].items())
    return (f"known beyond these bounds: {entry['property']} is violated{steps} with {flags} "
            f"(known-results: \"{entry['known_result']}\"): raise {raised} to reach it")


def is_reachability(name: str) -> bool:
    """Is ``name`` a reachability question (VIOLATED = reached, the trace a witness)?"""
    prop = PROPERTIES.get(name)
    return prop is not None and prop.is_reachability


def render_coverage(coverage) -> list:
    """TLC-style coverage: per action, the states it was enabled in, the successors it produced
    and how many were new; an action never enabled is flagged (a vacuous model is a classic
    model-checking mistake)."""
    width = max(len(a) for a, *_ in coverage.rows)
    lines = ["", "coverage (per action: states it was enabled in, successors, new states):"]
    for action, enabled, found, new in coverage.rows:
        flag = "  <- never enabled" if enabled == 0 else ""
        lines.append(f"  {action:<{width}}  {enabled:>12,} {found:>13,} {new:>12,}{flag}")
    never = coverage.never_enabled
    if never:
        lines.append(f"  {len(never)} action(s) never enabled: {', '.join(never)}: the bounds or "
                     "the rules never let them happen, so the check says nothing about them")
    return lines


def _producer_words(config: dict) -> str:
    """The producer's settings on the first line, when it retries (or they were given)."""
    if "idempotent" not in config:
        return ""
    idempotent = "idempotent" if config["idempotent"] else "not idempotent"
    given = config.get("enable.idempotence")
    why = "" if given is not None else " by default"
    judged = "" if config.get("bounds", {}).get("max_retries") else " (not judged: no --retries)"
    return (f", producer {idempotent}{why} with max.in.flight.requests.per.connection="
            f"{config.get('max.in.flight.requests.per.connection')}{judged}")
