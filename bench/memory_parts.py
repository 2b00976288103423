"""What a compiled search's peak memory is made of, on one configuration (one worker).

Runs the search in this process (same flags as ``profile_kernel.py``) and, after every batch and
just before and after each growth of the fingerprint table, notes the process's RSS and the
bytes of each structure: the table, the level being expanded, the next level, the pool of
read blocks kept for reuse and the parent index. Prints the RSS before the search, the peak,
the moments around each growth and the five largest moments. A growth holds the old and the
new table at once: its "before" RSS plus the new table is the peak of that moment.

    python bench/memory_parts.py [-r 3] [--max-records 2] [more kmc check flags]
"""

from __future__ import annotations

import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])

from profile_kernel import _options  # noqa: E402

from checker.compiled import visited as V  # noqa: E402
from checker.compiled.driver import CompiledProperty  # noqa: E402
from checker.compiled.search import Search  # noqa: E402
from checker.compiled.space import Space, peak_rss_bytes, rss_bytes  # noqa: E402
from model.kernel.spec import kernel_spec  # noqa: E402
from model.options import config_from_options  # noqa: E402
from properties import get_properties  # noqa: E402
from properties.compiled import COMPILED_IDS  # noqa: E402

MIB = 2 ** 20


class _Noting(Search):
    """The explorer, noting its memory after every batch."""

    moments: list

    def note(self, where: str) -> None:
        level = self.level.memory_bytes if self.level is not None else 0
        nxt = self.nxt.memory_bytes if self.nxt is not None else 0
        self.moments.append((rss_bytes() / MIB, where, self.visited.table.nbytes / MIB,
                             level / MIB, nxt / MIB, self.pool.nbytes / MIB,
                             self.parents.memory_bytes / MIB, self.distinct))

    def _between_batches(self) -> None:
        self.note("batch")
        super()._between_batches()


def main(argv) -> None:
    config, _ = config_from_options(**_options(argv))
    spec = kernel_spec(config)
    compiled = [CompiledProperty(p.name, COMPILED_IDS[p.name]) for p in get_properties(None)]
    print(f"RSS before the search: {rss_bytes() / MIB:.1f} MiB")
    search = _Noting(spec, compiled, [], max_states=None, time_limit=None, max_depth=None,
                     space=Space(None, 0, None), workers=1, fp_bits=64, progress=None,
                     progress_every=1e9, checkpoints=None)
    search.moments = []
    grow = V.Visited.grow

    def noted_grow(visited, capacity):
        search.note("before a growth")
        grow(visited, capacity)
        search.note("after it")
    V.Visited.grow = noted_grow
    try:
        search.start_fresh()
        search.explore()
    finally:
        V.Visited.grow = grow
        search.workers.close()
    print(f"peak RSS {peak_rss_bytes() / MIB:.1f} MiB, {search.distinct:,} distinct states")
    print("RSS MiB  moment           table  level  next  pool  parents (MiB)  distinct")
    shown = [m for m in search.moments if m[1] != "batch"] + sorted(search.moments)[-5:]
    for rss, where, table, level, nxt, pool, parents, distinct in shown:
        print(f"{rss:7.1f}  {where:<16} {table:6.1f} {level:6.1f} {nxt:5.1f} {pool:5.1f} "
              f"{parents:8.1f}  {distinct:>12,}")


if __name__ == "__main__":
    main(sys.argv[1:])
