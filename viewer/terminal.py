"""``kmc trace show``: a counterexample in the terminal, drawn with rich.

Per step: the action and what it did in Kafka words, a table with one row per replica (its log
as a row of record cells coloured by the leader epoch they were written in, the HW marked as
``HW|`` before the first uncommitted record, the LEO), the controller's leader/ISR/epoch, the
LeaderAndIsr requests in flight, the waiting and acknowledged produce requests, and what changed
since the previous step (highlighted, and marked ``*`` so it shows in plain text too).

Everything from the trace goes into rich ``Text`` objects, never into console markup, so a
record or property name is printed as it is, after ``terminal_safe`` for the strings a file can
set freely (the property's name and description): rich keeps an escape character, which would
drive the terminal. When stdout is not a terminal, rich prints plain text with no escape codes.
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from viewer.changes import (
    acked_text, changes, describe_step, fetch_in_flight, fmt_set, leader_and_isr_text, pending_text,
    replica_role,
)
from viewer.report import describe_config, is_reachability
from viewer.safe_text import terminal_safe
from viewer.trace_file import loop_start

EPOCH_STYLES = (
    "black on green", "white on blue", "black on magenta", "black on yellow", "black on cyan",
    "white on red", "black on white",
)
CHANGED = "bold reverse"
MARK = " *"


def epoch_style(epoch) -> str:
    return EPOCH_STYLES[epoch % len(EPOCH_STYLES)] if isinstance(epoch, int) and epoch >= 0 else ""


def make_console(file=None) -> Console:
    """A console that is plain (no colour, no escape codes) when its output is not a terminal."""
    console = Console(file=file, highlight=False, soft_wrap=False)
    if not console.is_terminal:
        console = Console(file=file, highlight=False, soft_wrap=False, width=max(console.width, 120),
                          no_color=True, color_system=None)
    return console


def log_cells(r) -> Text:
    """A replica's log: ``[r1 e0] HW| [r2 e1]``, cells coloured by epoch."""
    text = Text()
    for offset, (rid, epoch) in enumerate(r.log):
        if offset == r.high_watermark:
            text.append("HW| ", style="bold")
        text.append(f"[r{rid} e{epoch}]", style=epoch_style(epoch))
        text.append(" ")
    if r.high_watermark >= len(r.log):
        text.append("HW|", style="bold")
    return text


def _cell(value: str, changed: bool) -> Text:
    return Text(value + (MARK if changed else ""), style=CHANGED if changed else "")


def state_table(state, changed: set) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for col in ("broker", "role", "log  (cells: record, epoch)", "LEO", "HW", "ISR", "fetch response in flight"):
        table.add_column(col, no_wrap=(col != "fetch response in flight"))
    for b, r in enumerate(state.replicas):
        k = f"replica.{b}."
        log = log_cells(r)
        if k + "log" in changed:
            log.append(MARK, style=CHANGED)
        role = replica_role(b, r) + (", must truncate" if r.truncating else "")
        table.add_row(
            Text(str(b)),
            _cell(role, k + "role" in changed or k + "truncating" in changed),
            log,
            _cell(str(len(r.log)), k + "leo" in changed),
            _cell(str(r.high_watermark), k + "hw" in changed),
            _cell(fmt_set(r.isr) if r.alive and r.leader == b else "", k + "isr" in changed),
            _cell(fetch_in_flight(r), k + "fetch" in changed),
        )
    return table


def state_lines(state, changed: set) -> list:
    c = state.controller
    leader = "none" if c.leader < 0 else str(c.leader)
    ctrl = Text("controller: ")
    ctrl.append_text(_cell(f"leader {leader}", "controller.leader" in changed))
    ctrl.append(", ")
    ctrl.append_text(_cell(f"epoch {c.leader_epoch}", "controller.epoch" in changed))
    ctrl.append(", ")
    ctrl.append_text(_cell(f"ISR {fmt_set(c.isr)}", "controller.isr" in changed))
    ctrl.append(", ")
    ctrl.append_text(_cell(f"live brokers {fmt_set(c.live_brokers)}", "controller.live" in changed))
    lines = [ctrl]
    lai = Text("LeaderAndIsr in flight: ")
    lai.append_text(_cell("; ".join(leader_and_isr_text(q) for q in state.leader_and_isr) or "none",
                          "leader_and_isr" in changed))
    lines.append(lai)
    producer = Text("producer: acknowledged ")
    producer.append_text(_cell(acked_text(state.acked), "acked" in changed))
    producer.append("; waiting for acks=all ")
    producer.append_text(_cell(pending_text(state.pending_acks), "pending_acks" in changed))
    lines.append(producer)
    return lines


def header(meta: dict, steps: int) -> list:
    prop = terminal_safe(meta["property"]) if meta.get("property") else None
    out = []
    title = Text("kmc trace: ", style="bold")
    lasso = loop_start(meta, steps)
    if lasso is not None:
        name = terminal_safe(str(meta.get("liveness_property")))
        first, stutters = lasso
        title.append(f"lasso for the liveness property {name}, {steps} steps, ", style="bold")
        title.append(f"state {first} stutters for ever" if stutters
                     else f"steps {first + 1}-{steps} repeat for ever")
    elif prop:
        reach = is_reachability(prop)
        title.append(f"{'witness' if reach else 'counterexample'} for {prop}", style="bold")
        where = meta.get("violation_step")
        verb = "reached" if reach else "violated"
        title.append(f", {steps} steps" + (f", {verb} at step {where}" if where is not None else ""))
    else:
        title.append(f"{steps} steps")
    out.append(title)
    if meta.get("property_description"):
        out.append(Text(f"  {prop}: {terminal_safe(meta['property_description'])}"))
    config = meta.get("config")
    if isinstance(config, dict):
        try:
            out += [Text("  " + line) for line in describe_config(config)]
        except (KeyError, TypeError):
            pass
    out.append(Text("  cells [rN eE] = record N written in leader epoch E; HW| = high watermark "
                    "(records before it are committed); * = changed by this step", style="dim"))
    return out


def step_renderables(trace, i: int, meta: dict, *, diff_only: bool) -> list:
    states = trace.states
    state = states[i]
    before = states[i - 1] if i else None
    act = trace.steps[i - 1].action if i else None
    found = changes(before, state)
    changed = {c.key for c in found}
    violated = meta.get("violation_step") == i and meta.get("property")
    title = f"Step {i}/{len(trace.steps)}: {act}" if act else f"Initial state (step 0 of {len(trace.steps)})"
    out: list = [Rule(Text(title, style="bold"), align="left")]
    if act is not None:
        out.append(Text(describe_step(act, before, state)))
    if violated:
        verb = "reached" if is_reachability(meta["property"]) else "violated"
        out.append(Text(f"!! {terminal_safe(meta['property'])} is {verb} in this state", style="bold red"))
    lasso = loop_start(meta, len(trace.steps))
    if lasso is not None:
        first, stutters = lasso
        n = len(trace.steps)
        if stutters and i == n:
            out.append(Text("<> the loop: this state stutters for ever", style="bold magenta"))
        elif not stutters and i == first:
            out.append(Text(f"<> the loop starts here: steps {first + 1}-{n} repeat for ever",
                            style="bold magenta"))
        elif not stutters and i == n:
            out.append(Text(f"<> back to state {first}: the loop repeats for ever", style="bold magenta"))
    if not diff_only:
        out.append(state_table(state, changed))
        out += state_lines(state, changed)
    if found:
        out.append(Text("changed: " + "; ".join(c.text for c in found), style="yellow"))
    elif act is not None:
        out.append(Text("changed: nothing the viewer draws"))
    return out


def render_trace(console: Console, trace, meta: dict, *, diff_only: bool = False,
                 step: int | None = None) -> None:
    """Print ``trace`` (steps 0..n, or only ``step``) with its header."""
    for line in header(meta, len(trace.steps)):
        console.print(line, soft_wrap=True)
    indices = [step] if step is not None else range(len(trace.states))
    for i in indices:
        console.print()
        for part in step_renderables(trace, i, meta, diff_only=diff_only):
            # sentences are never wrapped (the terminal wraps them; pipes keep them greppable)
            console.print(part, soft_wrap=isinstance(part, Text))
