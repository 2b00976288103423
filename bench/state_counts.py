"""The table behind ``model/estimate.py``: distinct states of small bounds, to extrapolate from.

For each replication factor and each (max-records, max-leader-epoch, max-crashes) in a small
box, the compiled engine explores every reachable state of kip-320 (Kafka 2.1's rules), acks=all,
min.insync.replicas=2, unclean election off, process crashes, symmetry on (checking only
hw-le-leo, which holds everywhere, so nothing stops the search early) and prints the count as a
Python dict literal, to paste into ``model/estimate.py``. A row that hits the time limit is left
out. About 3 minutes on 2 shared cores.

Leader moves decide the size: by default the table is of today's model (Kafka's own leader
moves, each with its cause, LeaderAndIsr applied in order: ``MEASURED``); ``--unordered`` measures
kmc 0.1's free moves instead (``+unordered-leader-moves -leader-and-isr-in-order``, what
``make bench`` runs: ``MEASURED_UNORDERED``), a space up to a hundred times larger.

    python bench/state_counts.py [--rf 2,3] [--time-limit 60] [--unordered]

``--families`` prints the other table, ``FAMILY_FACTOR``: how many times kip-320's states each
family of rules (ZooKeeper with broker epochs, AlterPartition, KRaft, KRaft with ELR) has at a
replication factor's default bounds, with process crashes, and ``CRASH_FACTOR``: how many times
a family's process-crash states power-loss and disk-loss crashes have, at RF=2's default bounds
(RF=3 power-loss runs take minutes). About 3 minutes on 2 shared cores.

``--by-records`` prints how those factors change with the records: each family's over kip-320's
and power-loss over process crashes, at (records, 2 epochs, 1 crash) for 1 to 4 records at RF=2
and 1 to 3 at RF=3 (power-loss adds each broker's flushed offset, up to the records: RF=3 goes
from x6 at 1 record to x15 at 2). About 2 minutes of CPU.

``--past-epochs`` prints the rows past the box that the estimate needs along the crash bound:
for each replication factor, records and leader-epoch bound E in ``PAST_EPOCHS``, the crash
bounds from E - 2 to E + ``--past`` (6 by default; crashes past the epoch bound are restarts no
election follows, and grow the states more slowly than the box's slope says), with one worker,
until a row takes longer than ``--time-limit`` or its memory (``--memory-gib``, 3 by default)
runs out. The counts are deterministic; the time a row takes is not, so on a loaded machine a
line ends earlier (at RF=3 the lines at epochs <= 5 and 6 end at 3 GiB).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from checker import check  # noqa: E402  (after the path: run from a checkout)
from model import Bounds, ModelConfig  # noqa: E402

BOXES = {2: (3, 3, 2), 3: (3, 3, 2)}  # the largest records, epochs, crashes measured per RF
UNORDERED = ("+unordered-leader-moves", "-leader-and-isr-in-order")  # kmc 0.1's leader moves
# the lines --past-epochs measures: (replication factor, max-records, max-leader-epoch)
PAST_EPOCHS = tuple((rf, r, e) for rf in (2, 3) for r, last in ((1, 6), (2, 3))
                    for e in range(last + 1))


def families(time_limit: float) -> None:
    """Print ``FAMILY_FACTOR`` and ``CRASH_FACTOR`` for ``model/estimate.py``."""
    from model.config import default_bounds
    from model.estimate import FAMILY_RELEASES

    def states(rf, version, crash="process"):
        config = ModelConfig(kafka_version=version, replication_factor=rf, crash_model=crash,
                             bounds=default_bounds(rf))
        result = check(config, ["hw-le-leo"], time_limit=time_limit)
        return result.stats.distinct_states if result.limit is None else None

    print("FAMILY_FACTOR = {")
    base = {rf: states(rf, "2.1") for rf in (2, 3)}
    for family, version in FAMILY_RELEASES.items():
        factors = {rf: (n / base[rf] if (n := states(rf, version)) else None) for rf in (2, 3)}
        print(f"    {family!r}: {{2: {factors[2]:.2f}, 3: {factors[3]:.2f}}},  # Kafka {version}",
              flush=True)
    print("}")
    print("CRASH_FACTOR = {")
    for family, version in FAMILY_RELEASES.items():
        process = states(2, version)
        factors = {crash: states(2, version, crash) / process for crash in ("power-loss", "disk-loss")}
        print(f"    {family!r}: {{'power-loss': {factors['power-loss']:.2f}, "
              f"'disk-loss': {factors['disk-loss']:.2f}}},", flush=True)
    print("}")


RECORDS = {2: (1, 2, 3, 4), 3: (1, 2, 3)}  # the records --by-records measures at each RF


def by_records(time_limit: float, memory_limit: int) -> None:
    """Print ``FAMILY_BY_RECORDS`` and ``POWER_LOSS_BY_RECORDS`` for ``model/estimate.py``: each
    family's states over kip-320's, and kip-320's power-loss states over its process-crash
    states, at (records, 2 epochs, 1 crash) for the records of ``RECORDS``, one worker."""
    from model.estimate import FAMILY_RELEASES

    def states(rf, records, version=None, crash="process"):
        config = ModelConfig(kafka_version=version or "2.1", replication_factor=rf,
                             crash_model=crash, bounds=Bounds(records, 2, 1, 1))
        result = check(config, ["hw-le-leo"], time_limit=time_limit, workers=1,
                       memory_limit=memory_limit, disk_limit=0)
        return result.stats.distinct_states if result.limit is None else None

    base = {(rf, r): states(rf, r) for rf, records in RECORDS.items() for r in records}
    print("POWER_LOSS_BY_RECORDS = {")
    for rf, records in RECORDS.items():
        factors = {r: n / base[(rf, r)] for r in records
                   if (n := states(rf, r, crash="power-loss"))}
        shown = ", ".join(f"{r}: {f:.2f}" for r, f in factors.items())
        print(f"    {rf}: {{{shown}}},", flush=True)
    print("}")
    print("FAMILY_BY_RECORDS = {")
    for family, version in FAMILY_RELEASES.items():
        if family == "kip-320":
            continue
        rows = []
        for rf, records in RECORDS.items():
            factors = {r: n / base[(rf, r)] for r in records if (n := states(rf, r, version))}
            rows.append(f"{rf}: {{{', '.join(f'{r}: {f:.2f}' for r, f in factors.items())}}}")
        print(f"    {family!r}: {{{', '.join(rows)}}},  # Kafka {version}", flush=True)
    print("}")


def past_epochs(rfs, time_limit: float, memory_limit: int, past: int) -> None:
    """Print the rows along the crash bound past each line of ``PAST_EPOCHS`` (see the module
    docstring), with each row's CPU seconds as a comment."""
    import resource

    for rf, records, epochs in PAST_EPOCHS:
        if rf not in rfs:
            continue
        for crashes in range(max(epochs - 2, 0), epochs + past + 1):
            config = ModelConfig(protocol="kip-320", replication_factor=rf,
                                 bounds=Bounds(records, epochs, crashes, 1))
            before = resource.getrusage(resource.RUSAGE_SELF).ru_utime
            result = check(config, ["hw-le-leo"], time_limit=time_limit, workers=1,
                           memory_limit=memory_limit, disk_limit=0)
            cpu = resource.getrusage(resource.RUSAGE_SELF).ru_utime - before
            if result.limit is not None:
                print(f"        # ({records}, {epochs}, {crashes}) RF={rf}: stopped at "
                      f"{result.limit}"
                      f" after {result.stats.distinct_states} states, {cpu:.0f} s user", flush=True)
                break
            print(f"        ({records}, {epochs}, {crashes}): {result.stats.distinct_states},  "
                  f"# RF={rf}, {cpu:.1f} s user", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rf", default="2,3")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--unordered", action="store_true",
                        help="kmc 0.1's free leader moves (MEASURED_UNORDERED) instead of Kafka's")
    parser.add_argument("--families", action="store_true",
                        help="the factors of each family of rules and crash model instead")
    parser.add_argument("--past-epochs", action="store_true",
                        help="the rows along the crash bound past the leader-epoch bound instead")
    parser.add_argument("--memory-gib", type=float, default=3.0, help="for --past-epochs")
    parser.add_argument("--past", type=int, default=6,
                        help="for --past-epochs: crash bounds up to the epoch bound plus this")
    parser.add_argument("--by-records", action="store_true",
                        help="the family and power-loss factors by records instead")
    args = parser.parse_args()
    if args.by_records:
        by_records(max(args.time_limit, 300.0), int(args.memory_gib * 2**30))
        return
    if args.past_epochs:
        past_epochs({int(x) for x in args.rf.split(",")}, args.time_limit,
                    int(args.memory_gib * 2**30), args.past)
        return
    if args.families:
        families(max(args.time_limit, 300.0))
        return
    for rf in (int(x) for x in args.rf.split(",")):
        records, epochs, crashes = BOXES[rf]
        print(f"    {rf}: {{")
        for r, e, c in itertools.product(range(records + 1), range(epochs + 1), range(crashes + 1)):
            config = ModelConfig(protocol="kip-320", replication_factor=rf, bounds=Bounds(r, e, c, 1),
                                 rule_changes=UNORDERED if args.unordered else ())
            result = check(config, ["hw-le-leo"], time_limit=args.time_limit)
            if result.limit is None:
                print(f"        ({r}, {e}, {c}): {result.stats.distinct_states},", flush=True)
        print("    },")


if __name__ == "__main__":
    main()
