"""The conformance producer stops its network thread even when kafka-python's close fails.

kafka-python's ``KafkaProducer.close`` flushes first and raises ``KafkaTimeoutError`` when the
flush times out, before it stops its network thread; left running after the cluster stopped,
that thread looped at full speed in the test process for the rest of a suite run (one core for
20 minutes, halving the suite's speed). A stand-in client here, since the failure needs a flush
that times out and then a cluster that is gone."""

from __future__ import annotations

import threading
import time

from kafka.errors import KafkaTimeoutError

from conformance.history import History, Producer


class _Sender(threading.Thread):
    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            time.sleep(0.005)

    def force_close(self) -> None:
        self.stop.set()


class _ClientWhoseFlushTimesOut:
    def __init__(self) -> None:
        self._sender = _Sender()
        self._sender.start()

    def close(self, timeout=None):
        raise KafkaTimeoutError("Timeout after waiting for 2000 secs.")


def test_a_producer_whose_close_times_out_still_stops_its_network_thread():
    producer = Producer.__new__(Producer)
    producer.history = History()
    producer._producer = _ClientWhoseFlushTimesOut()
    assert producer._producer._sender.is_alive()
    producer.close()
    assert not producer._producer._sender.is_alive()
