"""The model's semantic fingerprint: which version of the model a trace file was recorded with.

A trace is only evidence about the model that produced it, and kmc's model is the compiled
kernel under a rule set: ``model_fingerprint(rules)`` hashes the source of every module that
decides the kernel's behaviour (``MODEL_SOURCES``: the kernel, its actions and rule switches, the
rule table, the state schema and the readable state it is compared as) together with the rules in
force (``ModelConfig.rules``). The same kernel under other rules is another model: Kafka 3.5 and
3.6 differ by a rule, and so do their fingerprints. Sources are hashed as their syntax trees with
docstrings removed, so comments, docstrings and formatting do not change the fingerprint; any
change to code does, even one that should be harmless, and ``kmc trace replay`` then says so
instead of silently accepting the trace.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
MODEL_SOURCES = (
    "model/kernel/**/*.py", "model/actions.py", "model/constants.py", "model/rules.py",
    "model/schema.py", "model/state.py",
)
"""The files whose code is the model (globs from the checkout's root): what ``kmc trace replay``
runs a trace through."""


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list) and body and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return tree


def _source_digest(path: Path) -> bytes:
    text = path.read_text(encoding="utf-8")
    tree = _strip_docstrings(ast.parse(text))
    return hashlib.sha256(ast.dump(tree, include_attributes=False).encode()).digest()


def model_sources() -> list[Path]:
    """The source files of the model (``MODEL_SOURCES``), in a fixed order."""
    files: list[Path] = []
    for pattern in MODEL_SOURCES:
        for path in sorted(_ROOT.glob(pattern)):
            if path not in files:
                files.append(path)
    return files


def model_fingerprint(rules) -> str:
    """A short hex digest of the model's code under ``rules`` (the rule names in force, as
    ``ModelConfig.rules`` gives them; see the module docstring)."""
    h = hashlib.sha256()
    for path in model_sources():
        h.update(path.relative_to(_ROOT).as_posix().encode())
        h.update(_source_digest(path))
    h.update(("rules:" + ",".join(rules)).encode())
    return h.hexdigest()[:16]
