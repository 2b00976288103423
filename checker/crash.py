"""A bug in kmc, written down: the traceback of an unexpected exception goes to a file, and the
user gets one line saying where.

Every command reaches this through one place (``cli.py``: ``KmcGroup._run``), and the gate for a
check whose run raised (``gate/run.py``), so an internal error is never reported as a verdict:
its exit code is ``EXIT_INTERNAL`` (70), not 1 (violated) or 2 (bad input). The file goes under
the temporary directory (``$TMPDIR``, else the system's), never the working directory.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from pathlib import Path


def write_crash_report(exc: BaseException, argv=None) -> Path | None:
    """Write ``exc``'s traceback, the command line and the versions to a new
    ``kmc-crash-*.txt`` file under the temporary directory; its path, or None if it could not be
    written (the caller still reports the bug)."""
    header = [
        "kmc internal error: this is a bug in kmc, not a verdict about Kafka.",
        f"time: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}",
        f"command: {' '.join(sys.argv if argv is None else argv)}",
        f"python: {sys.version.split()[0]} on {sys.platform}",
        "",
    ]
    text = "\n".join(header) + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    try:
        fd, name = tempfile.mkstemp(prefix=f"kmc-crash-{time.strftime('%Y%m%d-%H%M%S')}-",
                                    suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as f:
            f.write(text)
        return Path(name)
    except OSError:
        return None


def internal_error_line(exc: BaseException, path: Path | None, command: str = "kmc") -> str:
    """The one line a user sees; ``command`` (``kmc check``) starts it, as every error line."""
    where = f"the traceback is in {path}" if path else "the traceback could not be written"
    return (f"{command}: internal error ({type(exc).__name__}): this is a bug in kmc, not a verdict; "
            f"{where}; please report it")
