"""Where a compiled search's time goes phase by phase, with one worker or several.

Runs the search in this process (the flags of ``profile_kernel.py``) with ``--workers N`` and
prints, for each of the three phases of ``checker/compiled/expand.py``, the thread CPU time
its kernel calls took on all workers together and the wall time the driver spent in it
(``Workers.run_items``). With two workers, a phase's wall time less half its CPU time is the
time a worker waited at its barrier; the search's wall time less the phases' is the driver's
work between batches (and the kernel's loading, which ``Search`` does before the clock of the
search it reports: included here).

    python bench/profile_phases.py [--workers 2] [-r 3] [--max-records 2] [more flags]
"""

from __future__ import annotations

import sys
import threading
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])

from profile_kernel import _options  # noqa: E402

from checker.compiled import expand as X  # noqa: E402
from checker.compiled import search as S  # noqa: E402
from checker.compiled.driver import CompiledProperty  # noqa: E402
from checker.compiled.space import Space, peak_rss_bytes  # noqa: E402
from model.kernel.spec import kernel_spec  # noqa: E402
from model.options import config_from_options  # noqa: E402
from properties import get_properties  # noqa: E402
from properties.compiled import COMPILED_IDS  # noqa: E402

PHASES = {"expand_rows": "expand", "insert_candidates": "insert", "admit_fresh": "admit"}


def main(argv) -> None:
    workers = 2
    if "--workers" in argv:
        at = argv.index("--workers")
        workers = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    config, _ = config_from_options(**_options(argv))
    spec = kernel_spec(config)
    compiled = [CompiledProperty(p.name, COMPILED_IDS[p.name]) for p in get_properties(None)]
    cpu, wall, lock = {}, {}, threading.Lock()

    def timed_kernel(name, f):
        def call(*args):
            started = time.thread_time()
            result = f(*args)
            with lock:
                cpu[PHASES[name]] = cpu.get(PHASES[name], 0.0) + time.thread_time() - started
            return result
        return call

    def timed_items(run_items):
        def call(self, count, work, parallel=True):
            started = time.perf_counter()
            run_items(self, count, work, parallel)
            wall[work.__name__] = wall.get(work.__name__, 0.0) + time.perf_counter() - started
        return call

    saved = {name: getattr(X, name) for name in PHASES}
    run_items = S.Workers.run_items
    for name, f in saved.items():
        setattr(X, name, timed_kernel(name, f))
    S.Workers.run_items = timed_items(run_items)
    try:
        started, cpu_started = time.perf_counter(), time.process_time()
        search = S.Search(spec, compiled, [], max_states=None, time_limit=None, max_depth=None,
                          space=Space(None, 0, None), workers=workers, fp_bits=64, progress=None,
                          progress_every=1e9, checkpoints=None)
        search.start_fresh()
        search.explore()
        search.workers.close()
    finally:
        for name, f in saved.items():
            setattr(X, name, f)
        S.Workers.run_items = run_items
    seconds, process_cpu = time.perf_counter() - started, time.process_time() - cpu_started
    print(f"{search.distinct:,} distinct states, {workers} worker(s): {seconds:.2f} s wall, "
          f"{process_cpu:.2f} s CPU, peak RSS {peak_rss_bytes() / 2 ** 20:.1f} MiB")
    print("phase    thread CPU   wall")
    for phase in ("expand", "insert", "admit"):
        if phase in cpu:
            print(f"{phase:<8} {cpu[phase]:9.3f} s {wall.get(phase, 0.0):6.3f} s")
    rest = seconds - sum(wall.values())
    print(f"between the phases (driver, kernel loading): {rest:.3f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
