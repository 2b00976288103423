"""The symbolic engine: the Kafka model as z3 terms, bounded model checking and k-induction.

``bmc_check`` is the ``--engine bmc`` of ``checker.check``; ``prove`` is ``kmc prove``. The
encoding (``state``, ``transitions``, ``formulas``) mirrors the explicit model action by action;
``tests/symbolic`` checks it against the explicit successors state by state.
"""

from __future__ import annotations


def bmc_check(model, properties, **kwargs):
    from checker.symbolic.bmc import bmc_check as run

    return run(model, properties, **kwargs)


def prove(config, prop_name, **kwargs):
    from checker.symbolic.induction import prove as run

    return run(config, prop_name, **kwargs)


__all__ = ["bmc_check", "prove"]
