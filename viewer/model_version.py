"""The model's semantic fingerprint: which version of the model a trace file was recorded with.

A trace is only evidence about the model that produced it. ``model_fingerprint(config)`` hashes
the source of every module that decides the model's behaviour for ``config.protocol``: the state
records, actions, log helpers, constants, configuration, and every class in the protocol
variant's inheritance chain (so a third-party variant is covered too). Sources are hashed as
their syntax trees with docstrings removed, so comments, docstrings and formatting do not change
the fingerprint; any change to code does, even one that should be harmless, and
``kmc trace replay`` then says so instead of silently accepting the trace.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
from pathlib import Path

import model.actions
import model.config
import model.constants
import model.log
import model.state
from model.variants import get_variant

_CORE_MODULES = (model.state, model.actions, model.log, model.constants, model.config)


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list) and body and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return tree


def _source_digest(path: str) -> bytes:
    text = Path(path).read_text(encoding="utf-8")
    tree = _strip_docstrings(ast.parse(text))
    return hashlib.sha256(ast.dump(tree, include_attributes=False).encode()).digest()


def model_sources(protocol: str) -> list[str]:
    """The source files whose code decides the behaviour of ``protocol``, in a fixed order."""
    files = [inspect.getsourcefile(m) for m in _CORE_MODULES]
    for cls in get_variant(protocol).__mro__:
        if cls is object:
            continue
        src = inspect.getsourcefile(cls)
        if src and src not in files:
            files.append(src)
    return files


def model_fingerprint(protocol: str) -> str:
    """A short hex digest of the model's code for ``protocol`` (see the module docstring)."""
    h = hashlib.sha256()
    for path in model_sources(protocol):
        h.update(Path(path).name.encode())
        h.update(_source_digest(path))
    return h.hexdigest()[:16]
