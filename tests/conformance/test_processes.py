"""Process handling without Kafka: a paused process is stopped in every thread before pause
returns, and stop_all kills what it started, paused or not."""

from __future__ import annotations

import signal
import sys

from conformance import processes

BUSY = ("import threading, time\n"
        "for _ in range(4): threading.Thread(target=lambda: [x for x in iter(int, 1)], daemon=True).start()\n"
        "time.sleep(60)\n")


def test_wait_stopped_sees_every_thread_stopped_and_stop_all_kills_it(tmp_path):
    ps = processes.ProcessSet()
    proc = ps.start("busy", [sys.executable, "-c", BUSY], stdout_path=tmp_path / "out")
    try:
        ps.signal(proc, signal.SIGSTOP)
        assert ps.wait_stopped(proc, timeout=5)
        assert ps.running_pids() == [proc.pid]
    finally:
        assert ps.stop_all() == [proc.pid]
    assert not proc.alive() and ps.running_pids() == []


def test_time_bound_raises_in_the_main_thread():
    import time
    try:
        with processes.time_bound(0.2):
            time.sleep(2)
    except processes.RunTimeout as e:
        assert "time bound" in str(e)
    else:
        raise AssertionError("no RunTimeout")
