"""The decorators every kernel function wears.

``kernel`` is numba's ``njit`` with the options the kernel relies on:

* ``cache=True``: compiled once per installation (``model/kernel/cache.py`` picks the directory);
* no reference counting (numba's NRT off): kernel functions never allocate, they only read and
  write rows of arrays the driver owns, so the row views they take need no reference counts,
  which would otherwise cost two atomic calls per view in the hot loop;
* ``error_model="numpy"``: no Python-style checks on integer division (the kernel divides by
  nothing that can be zero).

``inlined_kernel`` is the same for a small function on the hot path that takes many arrays (the
symmetry reduction's steps): numba copies its body into each caller. A call passes every array
as its seven or nine fields, so a call with ten tables costs more than the work behind it; once
inlined, the tables stay in registers.

``nogil_kernel`` is for the explorer's entry points (``checker/compiled``): the driver calls them
from several threads at once (``--workers``), so they let go of Python's global interpreter lock
while they run. (Kernel functions they call run inside them, so only entry points need it.)
"""

from numba import njit

kernel = njit(cache=True, _nrt=False, error_model="numpy")
inlined_kernel = njit(cache=True, _nrt=False, error_model="numpy", inline="always")
nogil_kernel = njit(cache=True, _nrt=False, error_model="numpy", nogil=True)
