"""Plain-text rendering of a counterexample trace: per step, the action in Kafka words, every
replica's log with HW and LEO marked, and the controller's leader/ISR/epoch."""

from __future__ import annotations

from model.constants import NO_LEADER
from model.describe import describe
from properties import PROPERTIES


def render_replica(b: int, r, state) -> str:
    cells = []
    producer_epochs = r.log_producer_epochs  # () unless --max-producer-epoch-bumps
    for offset, (rid, epoch) in enumerate(r.log):
        cells.append(f"r{rid}e{epoch}" + (f"/p{producer_epochs[offset]}" if producer_epochs else ""))
    # HW and LEO markers: '|' before the first record not committed, LEO is the end
    parts = []
    for offset, cell in enumerate(cells):
        if offset == r.high_watermark:
            parts.append("HW|")
        parts.append(cell)
    if r.high_watermark >= len(cells):
        parts.append("HW|")
    log = " ".join(parts)
    if not r.alive:
        role = "DOWN"
    elif r.leader == b:
        role = f"leader e{r.leader_epoch}"
        c = state.controller
        if c.leader != b or c.leader_epoch != r.leader_epoch:
            role += " (stale: it has not applied epoch " + str(c.leader_epoch) + ")"
    elif r.leader == NO_LEADER:
        role = f"no leader e{r.leader_epoch}" if r.leader_epoch >= 0 else "waiting"
    else:
        role = f"follower of {r.leader} e{r.leader_epoch}"
    extra = ""
    if r.alive and r.leader == b:
        extra = f" isr={{{','.join(map(str, r.isr))}}}"
    if r.shutting_down:
        extra += ", shutting down"
    if r.alive and b not in state.controller.live_brokers:
        extra += ", fenced: the controller thinks it is down"
    checkpoint = ""
    if r.checkpointed_hw >= 0 and r.checkpointed_hw != r.high_watermark:
        checkpoint = f" (checkpoint file: HW={r.checkpointed_hw})"
    return f"  broker {b} [{role}{extra}] LEO={len(r.log)} HW={r.high_watermark}{checkpoint}: {log}"


ALTER_WORDS = {1: "on its way to the controller", 2: "accepted, the answer on its way back",
               3: "refused (INELIGIBLE_REPLICA), the answer on its way back",
               4: "failed; waiting for metadata"}


def render_partition_change(b: int, r) -> str:
    """A KRaft broker's pending PartitionChangeRecord (rule ``kraft``): a change of the ISR that
    keeps the leader epoch, written by the controller and not yet applied by its leader
    (``ReplicaManager.applyDelta``, action BrokerApplyPartitionChange); "current" while it holds
    the partition's latest partition epoch."""
    isr, epoch, current = r.partition_change
    return (f"  broker {b}: PartitionChangeRecord(ISR {{{','.join(map(str, isr))}}}, leader epoch "
            f"{epoch}{', current' if current else ''}) on its way to it")


def render_state(state) -> list:
    c = state.controller
    lines = [render_replica(b, r, state) for b, r in enumerate(state.replicas)]
    leader = "none" if c.leader == NO_LEADER else str(c.leader)
    lines.append(
        f"  controller: leader={leader} epoch={c.leader_epoch} isr={{{','.join(map(str, c.isr))}}}"
        + (f" acked={','.join(f'r{rid}@{off}' for rid, off in state.acked)}" if state.acked else "")
    )
    if state.zombie_controller:
        z = state.zombie_controller
        lines.append(f"  zombie controller (controller epoch {z[0]}, now {state.controller_epoch}): "
                     f"still believes leader={z[1]} epoch={z[2]} isr={{{','.join(map(str, z[3]))}}}")
    if state.elr or state.last_known_elr:
        lines.append(f"  eligible leader replicas={{{','.join(map(str, state.elr))}}} "
                     f"last known={{{','.join(map(str, state.last_known_elr))}}}")
    pending = [f"broker {b}: AlterPartition(ISR {{{','.join(map(str, r.alter_partition[1]))}}}) "
               + ALTER_WORDS.get(r.alter_partition[0], "")
               for b, r in enumerate(state.replicas) if r.alter_partition]
    if pending:
        lines.append("  pending ISR changes: " + "; ".join(pending))
    lines += [render_partition_change(b, r) for b, r in enumerate(state.replicas) if r.partition_change]
    if state.leader_and_isr:
        lines.append(
            "  in flight: "
            + ", ".join(
                f"LeaderAndIsr(epoch {e}, leader {l if l >= 0 else 'none'}) to broker {b}"
                for b, e, l, _ in state.leader_and_isr
            )
        )
    return lines


def render_trace(trace) -> str:
    """The whole trace as text."""
    lines = ["Initial state:"]
    lines += render_state(trace.initial)
    before = trace.initial
    for i, step in enumerate(trace.steps, 1):
        lines.append(f"Step {i}: {step.action}")
        lines.append(f"  -> {describe(step.action, before, step.state)}")
        lines += render_state(step.state)
        before = step.state
    if trace.property_name:
        prop = PROPERTIES.get(trace.property_name)
        why = prop.why(trace.states[-1]) if prop is not None else ""
        verb = "reached" if prop is not None and prop.is_reachability else "violated"
        lines.append(f"=> {trace.property_name} is {verb}" + (f": {why}" if why else ""))
    return "\n".join(lines)
