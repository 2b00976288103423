"""Write ``model/kernel/slots.py`` from the state schema (``model/schema.py``).

    python model/kernel/generate.py          # write it
    python model/kernel/generate.py --check  # exit 1 if it is out of date

The generated module holds what the kernel needs as compile-time constants and tiny functions:
every layout slot's index (``HIGH_WATERMARK = 19``) and, for every slot whose schema row names
them, its one-slot accessors (``high_watermark(s, lay, b)``, ``set_high_watermark(s, lay, b,
value)``; flags read as booleans; a slot of several values takes an index). numba caches
functions only from real files, so they are written out rather than made at import time; the
output depends on the schema alone, and ``model/kernel/layout.py`` refuses to load a stale one.
It is a script that reads ``model/schema.py`` by its path: importing the ``model`` package would
load the kernel, and with it the stale module it is about to replace.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TARGET = Path(__file__).resolve().parent / "slots.py"
SCHEMA = Path(__file__).resolve().parent.parent / "schema.py"


def _load_schema():
    spec = importlib.util.spec_from_file_location("_kmc_schema", SCHEMA)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while they are made
    spec.loader.exec_module(module)
    return module


S = _load_schema()

HEADER = '''"""Slot indices and one-slot accessors of a state row: GENERATED from ``model/schema.py`` by
``python model/kernel/generate.py``; do not edit (``tests/unit/test_codec.py`` checks it is up
to date, and ``model/kernel/layout.py`` refuses a stale one).

``s`` is a state row, ``lay`` the layout array (``lay[SLOT]`` is where a slot starts: in the row
for the partition's slots, in a broker's block for a broker's), ``b`` a broker id. Accessors that
carry meaning beyond one slot are written by hand in ``model/kernel/fields.py``.
"""

from model.kernel.jit import kernel

SCHEMA_DIGEST = "{digest}"

'''


def _getter(s: S.Slot) -> list[str]:
    name = s.get or s.name
    block = s.level == S.BLOCK
    base = f" - {s.index_base}" if s.index_base else ""
    where = "at(lay, b, {c})" if block else "lay[{c}]"
    where = where.format(c=s.constant)
    args = "s, lay, b" if block else "s, lay"
    index = ""
    if s.width != S.ONE:
        args += ", i"
        index = f" + i{base}"
    read = f"s[{where}{index}]"
    if s.value == S.BOOL:
        read += " != 0"
    return ["@kernel", f"def {name}({args}):", f"    return {read}"]


def _setter(s: S.Slot) -> list[str]:
    name = s.set or f"set_{s.name}"
    block = s.level == S.BLOCK
    base = f" - {s.index_base}" if s.index_base else ""
    where = f"at(lay, b, {s.constant})" if block else f"lay[{s.constant}]"
    args = "s, lay, b" if block else "s, lay"
    index = ""
    if s.width != S.ONE:
        args += ", i"
        index = f" + i{base}"
    value = "1 if value else 0" if s.value == S.BOOL else "value"
    return ["@kernel", f"def {name}({args}, value):", f"    s[{where}{index}] = {value}"]


def source() -> str:
    """The text of ``model/kernel/slots.py``."""
    lines = [HEADER.format(digest=S.digest()).rstrip("\n"), ""]
    lines.append("# -- the layout array: its own entries, then where each slot starts")
    for i, name in enumerate(S.SLOT_NAMES):
        lines.append(f"{name.upper()} = {i}")
    lines.append(f"SLOT_COUNT = {len(S.SLOT_NAMES)}")
    lines += ["", "@kernel", "def at(lay, b, slot):",
              '    """The row position of broker ``b``\'s slot ``slot``."""',
              "    return lay[BROKER0] + b * lay[BROKER_STRIDE] + lay[slot]"]
    for s in S.SLOTS:
        for make, wanted in ((_getter, s.get is not None), (_setter, s.set is not None)):
            if wanted:
                lines += [""] + make(s)
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    text = source()
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is out of date with model/schema.py: run python model/kernel/generate.py")
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET} ({len(S.SLOTS)} slots)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
