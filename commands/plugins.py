"""``kmc --load MODULE|FILE.py``: importing a user's module (one that registers properties) while
keeping it from ending or hijacking the command.

A plugin is code kmc runs but did not write, so loading it is contained: whatever it does while
it is imported becomes one line naming it and exit code 2 (a usage error: the command it was
loaded for did not run), never a traceback, never another exit code:

* ``sys.exit(n)``, even ``sys.exit(0)``: a command that exits 0 having checked nothing would be
  read by a CI as "holds";
* a ``KeyboardInterrupt`` it raises itself (a real Ctrl-C or SIGTERM, which
  ``checker.interrupt`` records, still stops the run as an interruption, exit code 3);
* any other exception, including one whose ``str()`` itself raises and one whose message is a
  megabyte: the message is cut to ``MESSAGE_LIMIT`` characters and put on one line.

What is not contained: ``os._exit``, a segfault in a C extension, or threads the plugin starts.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path

from checker.interrupt import interrupted
from model.bounded import ECHO_LIMIT, clip
from model.errors import KmcError

MESSAGE_LIMIT = ECHO_LIMIT


class PluginError(KmcError):
    """A ``--load`` module that could not be loaded: one line naming it."""


def describe_exception(e: BaseException) -> str:
    """``TypeName: message`` on one line, at most ``MESSAGE_LIMIT`` characters of message; never
    raises, whatever ``e``'s ``__str__`` or class does."""
    try:
        name = type(e).__name__
        name = name if isinstance(name, str) else "an exception"
    except BaseException:  # a hostile metaclass
        name = "an exception"
    try:
        message = str(e)
        if not isinstance(message, str):
            raise TypeError
    except BaseException:  # noqa: BLE001 - str() of a plugin's exception may raise anything
        message = "(its message could not be turned into text: str() raised)"
    message = " ".join(message.split())
    return f"{clip(name, 80)}: {clip(message, MESSAGE_LIMIT)}" if message else clip(name, 80)


def load_plugins(specs) -> None:
    """Import each ``--load`` spec: a ``.py`` file (or a path) or a module name."""
    for spec in specs:
        label = f"--load {clip(spec)}"
        if spec.endswith(".py") or os.path.sep in spec:
            path = Path(spec)
            if not path.is_file():
                raise PluginError(f"{label}: no such file")
        try:
            if spec.endswith(".py") or os.path.sep in spec:
                mod_spec = importlib.util.spec_from_file_location(path.stem, path)
                if mod_spec is None or mod_spec.loader is None:
                    raise PluginError(f"{label}: not a Python module Python can load")
                module = importlib.util.module_from_spec(mod_spec)
                mod_spec.loader.exec_module(module)
            else:
                importlib.import_module(spec)
        except PluginError:
            raise
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) or e.code is None else "a message"
            raise PluginError(f"{label} called sys.exit({clip(repr(code), 40)}) while being loaded; "
                              "nothing was checked") from None
        except KeyboardInterrupt:
            if interrupted():
                raise  # a real Ctrl-C or SIGTERM: the run was interrupted (exit code 3)
            raise PluginError(f"{label} raised KeyboardInterrupt while being loaded; nothing "
                              "was checked") from None
        except BaseException as e:  # noqa: BLE001 - a user's module may fail in any way
            raise PluginError(f"{label} failed: {describe_exception(e)}") from None
