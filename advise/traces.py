"""Writing the counterexamples and witnesses ``kmc advise`` found, one ITF trace file each
(``kmc trace show|replay|html`` read them), beside the table that cites them:
``DIR/<cell>/<property>.itf.json``, the cell named by ``Settings.slug``.

A file already there with the same content is left alone; one with other content (an earlier
run on another model, or the user's own file) is kept unless ``force``: nothing is overwritten
without asking.
"""

from __future__ import annotations

from pathlib import Path

from model.bounded import clip
from model.errors import KmcError
from model.outputs import OutputAppeared, OutputError, write_text_atomic
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
                if (path.is_symlink() and not path.exists()) or (path.exists() and not path.is_file()):
                    # a pipe would block the read below, a link would write elsewhere
                    raise OutputError(f"--trace-dir {clip(directory)}: {clip(str(path))} is not a "
                                      "regular file; kmc writes trace files only as regular files")
                old = path.read_text(encoding="utf-8", errors="replace") if path.exists() else None
                if old is not None and old != text and not force:
                    kept.append(str(path))  # not what this run found: not cited either
                    continue
                if old != text:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    try:
                        write_text_atomic(path, text, force=force or old is not None)
                    except OutputAppeared:  # created by something else while advise ran
                        kept.append(str(path))
                        continue
                verdict.trace_file = str(path)
            except OSError as e:
                raise KmcError(f"--trace-dir {clip(directory)}: cannot write {clip(str(path))}: {e.strerror or e}") from None
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
