"""``kmc``: the command line. It parses, calls the library, and prints; nothing more.

This file is the entry point (the ``kmc`` group, its error handling, ``main``); each command lives
in the ``commands`` package and is added to the group below.

Exit codes: 0 every property holds, 1 a property is violated, 2 usage or input error,
3 incomplete (a limit was hit before the search finished, or the run was interrupted by SIGINT or
SIGTERM: an interrupted run never exits 0 or 1, whatever it had found), 70 internal error (an
unexpected exception, a bug in kmc: one line on stderr names the file its traceback went to).
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from checker.crash import internal_error_line, write_crash_report
from checker.interrupt import interruptible, interrupted, signal_name
from checker.result import EXIT_INCOMPLETE, EXIT_INTERNAL, EXIT_USAGE
from commands.plugins import load_plugins
from model.bounded import clip_line
from model.errors import KmcError
from viewer.safe_text import terminal_safe

__version__ = "0.1.0"


class KmcGroup(click.Group):
    """A click group whose errors are one line on stderr with exit code 2, never a traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if sys.stdout is None:  # started with its standard output closed (`kmc list >&-`)
            me = self.command_path_of(sys.argv[1:] if args is None else list(args))
            _echo_err(f"{me}: error: standard output is closed; kmc writes its results there "
                      "(redirect it to a file or /dev/null instead)")
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for the interpreter's exit only
            sys.exit(EXIT_USAGE)
        if not isinstance(sys.stdout, _PipeSafe):
            sys.stdout = _PipeSafe(sys.stdout)
        with interruptible():
            code = self._run(args, prog_name, complete_var, extra)
            if interrupted() and code in (0, 1):
                # the command finished its work, but a signal came meanwhile: a run that was asked
                # to stop is not a verdict a CI may trust
                code = EXIT_INCOMPLETE
        sys.exit(code)

    def _run(self, args, prog_name, complete_var, extra) -> int:
        """Run the command; its exit code (every error is one line on stderr, starting with the
        command's name: ``kmc check: error: ...``, as click's usage errors do)."""
        me = self.command_path_of(sys.argv[1:] if args is None else list(args))
        try:
            rv = super().main(
                args=args, prog_name="kmc", complete_var=complete_var,  # whatever runs it (a test)
                standalone_mode=False, **extra,
            )
        except click.exceptions.Exit as e:
            return e.exit_code
        except (click.exceptions.Abort, KeyboardInterrupt):
            _echo_err(f"{me}: interrupted{_by()} before a result was reached: nothing was verified")
            return EXIT_INCOMPLETE
        except click.ClickException as e:
            msg = e.format_message().replace("\n", " ")
            ctx_cmd = getattr(getattr(e, "ctx", None), "command_path", None) or me
            _echo_err(f"{ctx_cmd}: error: {msg}")
            return EXIT_USAGE
        except KmcError as e:
            _echo_err(f"{me}: error: {e}")
            return EXIT_USAGE
        except BrokenPipeError:
            # the reader went away (`kmc ... | head`): not a verdict, and not worth a traceback
            _silence_stdout()
            return EXIT_USAGE
        except OSError as e:
            if interrupted():
                _echo_err(f"{me}: interrupted{_by()}: nothing was verified")
                return EXIT_INCOMPLETE
            _silence_stdout()
            _echo_err(f"{me}: error: {_os_error(e)}")
            return EXIT_USAGE
        except Exception as e:
            if not interrupted():
                # a bug in kmc: never exit 1 (a CI would read it as a violation found); the
                # traceback, which a report needs, goes to a file
                _echo_err(internal_error_line(e, write_crash_report(e), me))
                return EXIT_INTERNAL
            # the interruption surfaced as another error from a library it hit mid-call
            _echo_err(f"{me}: interrupted{_by()} before a result was reached: nothing was verified")
            return EXIT_INCOMPLETE
        code = rv if isinstance(rv, int) else 0
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _silence_stdout()
        except OSError as e:
            _silence_stdout()
            _echo_err(f"{me}: error: cannot write standard output: {e.strerror or e}")
            code = EXIT_USAGE
        return code


    def command_path_of(self, args: list) -> str:
        """``kmc check``, ``kmc trace show``: the command ``args`` name (as far as they name one),
        for the first word of an error line."""
        words, command = ["kmc"], self
        for arg in args:
            if not isinstance(command, click.Group):
                break
            sub = command.commands.get(arg)
            if sub is not None:
                words.append(arg)
                command = sub
        return " ".join(words)


def _by() -> str:
    name = signal_name()
    return f" ({name})" if name else ""


def _os_error(e: OSError) -> str:
    """An operating-system error in one line, naming the file when the error knows it."""
    reason = e.strerror or str(e)
    if e.filename is not None:
        return f"{e.filename}: {reason}"
    return f"cannot write output: {reason}"


def _echo_err(line: str) -> None:
    """One line on stderr, with anything that could drive the terminal made visible and any
    user value longer than a few hundred characters elided (``model.bounded.clip_line``)."""
    click.echo(terminal_safe(clip_line(line)), err=True)


class _PipeSafe:
    """stdout that survives its reader going away (``kmc check | head``): later writes are
    dropped, so the command still finishes and exits with its verdict, not with click's 1."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self._closed = False

    def write(self, text):
        if self._closed:
            return len(text)
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._closed = True
            _silence_stdout()
            return len(text)

    def flush(self) -> None:
        if self._closed:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._closed = True
            _silence_stdout()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


@click.group(cls=KmcGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kmc")
@click.option("--load", "load", multiple=True, metavar="MODULE|FILE.py",
              help="Import a module or file first (e.g. one that registers properties).")
def cli(load):
    """kmc: a model checker for Apache Kafka's replication protocol."""
    load_plugins(load)


class _LazyCommands(dict):
    """The group's commands, each imported the first time it is looked up (run, or listed by
    ``--help``): ``kmc check`` then never imports what only other commands use (the Kafka client
    library ``kmc conformance`` drives clusters with, the trace viewer's HTML and terminal
    renderers and the ``rich`` library under them), which was 13 MiB of its peak memory (``import
    cli`` took 114 MiB, now 101). The names are known without importing anything."""

    def __init__(self, where: dict) -> None:
        super().__init__()
        self._where = dict(where)  # name -> (module, attribute), not imported yet

    def _load(self, name):
        if name in self._where:
            module, attribute = self._where.pop(name)
            dict.__setitem__(self, name, getattr(importlib.import_module(module), attribute))

    def __iter__(self):
        return iter(list(dict.keys(self)) + list(self._where))

    def __len__(self) -> int:
        return dict.__len__(self) + len(self._where)

    def __contains__(self, name) -> bool:
        return dict.__contains__(self, name) or name in self._where

    def __getitem__(self, name):
        self._load(name)
        return dict.__getitem__(self, name)

    def get(self, name, default=None):
        self._load(name)
        return dict.get(self, name, default)

    def keys(self):
        return list(self)

    def values(self):
        return [self[name] for name in self]

    def items(self):
        return [(name, self[name]) for name in self]


cli.commands = _LazyCommands({
    "check": ("commands.check", "check_command"),
    "simulate": ("commands.simulate", "simulate_command"),
    "advise": ("commands.advise", "advise_command"),
    "list": ("commands.listing", "list_command"),
    "prove": ("commands.prove", "prove_command"),
    "trace": ("commands.trace", "trace_group"),
    "graph": ("commands.graph", "graph_command"),
    "gate": ("commands.gate", "gate_command"),
    "conformance": ("commands.conformance", "conformance_group"),
})


def main() -> None:  # console script entry point
    cli.main()


if __name__ == "__main__":
    main()
