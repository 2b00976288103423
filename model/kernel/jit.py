"""The one decorator every kernel function wears.

``kernel`` is numba's ``njit`` with the options the kernel relies on:

* ``cache=True``: compiled once per installation (``model/kernel/cache.py`` picks the directory);
* no reference counting (numba's NRT off): kernel functions never allocate, they only read and
  write rows of arrays the driver owns, so the row views they take need no reference counts,
  which would otherwise cost two atomic calls per view in the hot loop;
* ``error_model="numpy"``: no Python-style checks on integer division (the kernel divides by
  nothing that can be zero).
"""

from numba import njit

kernel = njit(cache=True, _nrt=False, error_model="numpy")
