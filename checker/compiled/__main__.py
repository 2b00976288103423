"""``python -m checker.compiled``: compile the exploration kernel now (``make install`` does)."""

from checker.compiled.warmup import CACHE_DIR, ensure_compiled

if not ensure_compiled(print):
    print(f"kmc: the exploration kernel is already compiled ({CACHE_DIR})")
