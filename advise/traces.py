"""Writing the counterexamples and witnesses ``kmc advise`` found, one ITF trace file each
(``kmc trace show|replay|html`` read them), beside the table that cites them:
``DIR/<cell>/<property>.itf.json``, the cell named by ``Settings.slug``.

A file already there with the same content is left alone; one with other content (an earlier
run on another model, or the user's own file) is kept unless ``force``: nothing is overwritten
without asking.
"""

from __future__ import annotations

from pathlib import Path

from model.errors import KmcError
from viewer.trace_file import dumps


def write_traces(advice, directory: str, *, force: bool = False) -> list[str]:
    """Write every trace of ``advice`` under ``directory``; sets each verdict's ``trace_file``
    and returns notes for the user (files kept)."""
    root = Path(directory)
    if root.exists() and not root.is_dir():
        raise KmcError(f"--trace-dir {directory} exists and is not a directory")
    kept = []
    for cell in advice.all_checks():
        for verdict in cell.verdicts.values():
            if verdict.itf is None:
                continue
            where = cell.settings.slug() + _corner_suffix(cell)
            path = root / where / f"{verdict.name}.itf.json"
            text = dumps(verdict.itf)
            try:
                if path.exists() and path.read_text(encoding="utf-8") != text and not force:
                    kept.append(str(path))  # not what this run found: not cited either
                    continue
                if not path.exists() or path.read_text(encoding="utf-8") != text:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(text, encoding="utf-8")
                verdict.trace_file = str(path)
            except OSError as e:
                raise KmcError(f"--trace-dir {directory}: cannot write {path}: {e.strerror or e}") from None
    if kept:
        return [f"{len(kept)} trace file(s) under {directory} differ from what this run found and "
                f"were kept (e.g. {kept[0]}); pass --force to overwrite them"]
    return []


def _corner_suffix(cell) -> str:
    """A goal check's corner in its directory name (``-at-2-3-0``), so the counterexamples of
    one setting at several bounds do not overwrite each other."""
    if cell.kind != "goal":
        return ""
    b = cell.config["bounds"]
    return f"-at-{b['max_records']}-{b['max_leader_epoch']}-{b['max_crashes']}"
