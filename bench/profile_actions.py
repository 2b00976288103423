"""Where successor generation's time goes, action by action, on one configuration.

Explores the configuration once with the compiled engine (as ``profile_kernel.py`` does, same
flags), keeping every reachable row, then calls each action of ``successors`` alone over all of
them and prints its thread CPU time (the least of three runs), the successors it wrote and its
cost per expanded state; then ``successors`` itself, whose time is less than the sum when
actions share work or are skipped together.

    python bench/profile_actions.py [-r 3] [--max-records 2] [more kmc check flags]
"""

from __future__ import annotations

import sys

from numba import njit

sys.path.insert(0, __file__.rsplit("/", 1)[0])

from profile_kernel import _options, explore, timed  # noqa: E402

from checker.compiled import expand as X  # noqa: E402
from model.actions import ACTION_NAMES  # noqa: E402
from model.kernel import actions as A  # noqa: E402
from model.kernel.spec import kernel_spec  # noqa: E402
from model.options import config_from_options  # noqa: E402

ORDER = (
    "produce_record", "leader_handle_fetch", "follower_handle_fetch_response", "follower_truncate",
    "leader_shrink_isr", "leader_expand_isr", "become_leader_or_follower",
    "controller_elect_leader", "controller_preferred_election", "controller_reassign_replicas",
    "controller_handle_broker_failure", "broker_crash", "broker_restart", "flush_log",
    "checkpoint_high_watermark", "controller_handle_controlled_shutdown", "broker_shutdown",
    "controller_fence_broker", "controller_unfence_broker", "controller_handle_alter_partition",
    "leader_handle_alter_partition_response", "broker_apply_partition_change", "fetch_delayed",
    "leader_handle_delayed_fetch", "controller_failover", "zombie_controller_send_leader_and_isr",
    "broker_handle_zombie_leader_and_isr", "producer_retry", "producer_bump_epoch",
    "consumer_fetch", "consumer_process", "consumer_commit", "consumer_restart",
    "leader_handle_fetch_on_stale_metadata", "leader_shrink_isr_set",
)


def _harness(action):
    """A compiled loop calling ``action`` alone on every row."""
    @njit
    def run(rows, lay, cfg, out, acts):
        total = 0
        for i in range(rows.shape[0]):
            total += action(rows[i], lay, cfg, out, acts, 0)
        return total
    return run


def main(argv) -> None:
    config, _ = config_from_options(**_options(argv))
    spec = kernel_spec(config)
    buf = X.work_buffers(spec.width, spec.layout.n_brokers, spec.max_successors, len(ACTION_NAMES))
    rows, generated, _ = explore(config)
    n = rows.shape[0]
    args = (rows, spec.lay, spec.cfg, buf["out"], buf["acts"])
    print(f"{n:,} rows, {generated:,} successors")
    total = 0.0
    for name in ORDER:
        _, seconds, written = timed(name, _harness(getattr(A, name)), *args)
        total += seconds
        print(f"{name:<42} {seconds:6.3f} s {written:>11,} successors {seconds / n * 1e9:7.1f} ns/row")
    _, seconds, written = timed("successors", _harness(_successors_only()), *args)
    print(f"{'sum of the actions':<42} {total:6.3f} s")
    print(f"{'successors':<42} {seconds:6.3f} s {written:>11,} successors {seconds / n * 1e9:7.1f} ns/row")


def _successors_only():
    @njit
    def successors6(s, lay, cfg, out, acts, k):
        return A.successors(s, lay, cfg, out, acts)
    return successors6


if __name__ == "__main__":
    main(sys.argv[1:])
