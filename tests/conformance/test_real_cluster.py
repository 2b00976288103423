"""Real Kafka brokers (Kafka 4.1.2 from Maven Central): the smoke test of ``make test`` and the
proof that no JVM outlives a run, a Ctrl-C or a failed start.

Skipped, with the reason, where Java is missing or the jars cannot be had (no cache and Maven
Central unreachable). A cluster start is 15-40 s on 2 shared cores; the module takes 1-3 minutes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance import jars
from conformance.admin import Admin
from conformance.cluster import Cluster, ClusterStartError
from conformance.history import History, Producer, check, read_partition
from conformance.nodeconfig import ClusterSettings
from tests.conftest import default_sigint

pytestmark = pytest.mark.kafka
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def release():
    try:
        return jars.ensure(jars.DEFAULT_VERSION)
    except jars.JarsUnavailable as e:
        pytest.skip(f"no Kafka jars: {e}")


def jvms_under(path: Path) -> list[int]:
    """Pids of running JVMs whose command line names ``path`` (a run directory)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().decode(errors="replace")
            state = (d / "stat").read_text().split()[2]
        except OSError:
            continue
        if cmd.startswith("java") and str(path) in cmd and state != "Z":
            found.append(int(d.name))
    return found


def test_acks_all_survives_kill_9_of_the_leader_and_no_jvm_is_left(release, tmp_path):
    run_dir = tmp_path / "smoke"
    history = History()
    with Cluster.start(release, run_dir) as cluster:
        assert len(jvms_under(run_dir)) == 4
        admin = Admin(cluster)
        admin.create_topic("smoke", [0, 1, 2], {"min.insync.replicas": "2"})
        producer = Producer(cluster.bootstrap(), "smoke", history, acks="all", request_timeout_ms=15000)
        for _ in range(20):
            producer.send()
        producer.wait(60)
        assert len(history.acked()) == 20, history.events[-3:]
        leader = admin.partition("smoke").leader
        mark = cluster.mark(cluster.controller.node_id)
        cluster.kill9(leader)
        cluster.wait_for(mark, rf"partition change for smoke-0 .*leader: {leader} -> \d", 60)
        for _ in range(10):
            producer.send()
        producer.wait(60)
        producer.close()
        final = read_partition(cluster.bootstrap(), "smoke", history, label="final")
        verdict = check(history, final)
        assert verdict.ok, verdict.summary()
        assert verdict.acked >= 20 and len(final) >= verdict.acked
        pids = list(cluster.pids().values())
    assert pids and not jvms_under(run_dir)


def test_no_jvm_is_left_after_ctrl_c(release, tmp_path):
    run_dir = tmp_path / "sigint"
    script = (f"import sys, time; sys.path.insert(0, {str(ROOT)!r})\n"
              "from pathlib import Path\nfrom conformance import jars\nfrom conformance.cluster import Cluster\n"
              f"with Cluster.start(jars.ensure({jars.DEFAULT_VERSION!r}), Path({str(run_dir)!r})):\n"
              "    print('started', flush=True)\n    time.sleep(300)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=default_sigint)
    try:
        assert proc.stdout.readline().strip() == "started"
        assert len(jvms_under(run_dir)) == 4
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 10
    while jvms_under(run_dir) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not jvms_under(run_dir)


def test_no_jvm_is_left_after_a_failed_start(release, tmp_path):
    # the brokers start but cannot reach the controller (a wrong quorum address): never ready
    run_dir = tmp_path / "unready"
    settings = ClusterSettings(extra_broker={"controller.quorum.voters": "100@127.0.0.1:1"})
    with pytest.raises(TimeoutError, match="no line"):
        Cluster.start(release, run_dir, settings, timeout=15)  # (waits it out: 15 s)
    assert (run_dir / "broker0" / "node.log").exists()      # the JVMs did start
    assert not jvms_under(run_dir)
    # a setting Kafka refuses: StorageTool fails, the start stops there
    run_dir = tmp_path / "refused"
    with pytest.raises(ClusterStartError, match="num.network.threads"):
        Cluster.start(release, run_dir, ClusterSettings(extra_broker={"num.network.threads": "0"}), timeout=60)
    assert not jvms_under(run_dir)


def test_no_jvm_is_left_when_the_harness_is_killed(release, tmp_path):
    """kill -9 of the Python process: PR_SET_PDEATHSIG makes the kernel kill its JVMs."""
    run_dir = tmp_path / "sigkill"
    script = (f"import sys, time; sys.path.insert(0, {str(ROOT)!r})\n"
              "from pathlib import Path\nfrom conformance import jars\nfrom conformance.cluster import Cluster\n"
              f"with Cluster.start(jars.ensure({jars.DEFAULT_VERSION!r}), Path({str(run_dir)!r})):\n"
              "    print('started', flush=True)\n    time.sleep(300)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=default_sigint)
    try:
        assert proc.stdout.readline().strip() == "started"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 15
    while jvms_under(run_dir) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not jvms_under(run_dir)
