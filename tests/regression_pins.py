"""Every state count a test pins, in one place, with what (if anything) checks it besides kmc's
own output.

A pinned count catches any change to the explored state space, but a count computed once by the
kernel and pinned proves nothing about Kafka: it is a *regression pin*. Where a second
computation exists (the reference engine, another engine, a small model counted by hand) it is
named. ``tests/test_regression_pins.py`` fails when a test pins a count not listed here, so a
new pin is a decision written down; a change that alters a count must say why in its commit and
in docs (COMMON.md).
"""

REGRESSION_PIN = "regression pin (kmc's own output)"

PINS = {
    # (test file, count): (what is counted, what checks it besides the kernel)
    ("tests/scenarios/test_known_results.py", 20198): (
        "kip-101 RF=2 default bounds, no-acked-loss", REGRESSION_PIN),
    ("tests/scenarios/test_known_results.py", 93629): (
        "kip-279 RF=2, 3 records, log-matching", REGRESSION_PIN),
    ("tests/scenarios/test_known_results.py", 17926): (
        "kip-320 RF=2 default bounds, every property (17,202 before 2026-11-29: a leader restarted "
        "into its own epoch now records its start, docs/model.md)", REGRESSION_PIN),
    ("tests/scenarios/test_environment.py", 17926): (
        "kip-320 RF=2 with immediate HW checkpoints: the same count as without the feature", 
        "the same configuration's count in test_known_results.py (the feature must cost nothing)"),
    ("tests/scenarios/test_environment.py", 69672): (
        "kip-320 RF=2 with interval HW checkpoints (65,859 before the epoch start slot of "
        "2026-11-29)", REGRESSION_PIN),
    ("tests/scenarios/test_environment.py", 39634): (
        "Kafka 2.2 RF=2 with one controlled shutdown", REGRESSION_PIN),
    ("tests/scenarios/test_environment.py", 44031): (
        "Kafka 2.2 RF=2 with one session expiry (48,296 before issue 29ae: the LeaderAndIsr an "
        "unfenced broker would ignore is dropped at once)", REGRESSION_PIN),
    ("tests/scenarios/test_delivery.py", 3847): (
        "0.9 RF=2 with one retry and one session expiry, in-order: 0.10's rules and 0.9 with "
        "+in-flight-per-partition (KAFKA-3197)",
        "the two configurations' counts agree (0.10's rules and 0.9 plus the rule explore the same "
        "space); the number itself is kmc's own output (3,943 before issue 29ae: a request the "
        "unfenced broker would ignore is dropped at once)"),
    ("tests/spark/test_equality.py", 6665): (
        "kip-320 RF=2 small bounds, interval checkpoints, one session expiry, on Spark (7,049 "
        "before issue 29ae: the LeaderAndIsr an unfenced broker would ignore is dropped at once; "
        "6,239 before the epoch start slot of 2026-11-29)",
        "the compiled engine's count of the same run (summary(spark) == summary(local))"),
    ("tests/unit/test_bfs.py", 16): (
        "a 4x4 grid of two counters", "counted by hand: 4 x 4 states"),
}
