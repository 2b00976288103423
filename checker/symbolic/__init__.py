"""The symbolic engine: the Kafka model as z3 terms, bounded model checking and k-induction.

``bmc_check`` is ``--engine bmc``; ``prove`` is ``kmc prove``. The encoding (``state``,
``transitions``, ``formulas``) mirrors the explicit model action by action; ``tests/symbolic``
checks it against the explicit successors state by state.

z3 is loaded lazily on purpose: importing this package (every ``import checker`` does, so that
``bmc`` joins the engine registry) must not pay for z3 until a symbolic engine runs.
"""

from __future__ import annotations

from checker.reference import make_reference_model, oracle_notes


def bmc_check(model, properties, **kwargs):
    """See ``checker.symbolic.bmc.bmc_check``."""
    from checker.symbolic.bmc import bmc_check as run  # lazy on purpose: z3 (see the module docstring)

    return run(model, properties, **kwargs)


def prove(config, prop_name, **kwargs):
    """See ``checker.symbolic.induction.prove``."""
    from checker.symbolic.induction import prove as run  # lazy on purpose: z3 (see the module docstring)

    return run(config, prop_name, **kwargs)


def run_bmc(config, properties, *, max_states=None, **options):
    """``--engine bmc``: ``bmc_check`` on the pure-Python model of ``config``, with the
    configuration recorded in the result (a state limit means nothing to it)."""
    result = bmc_check(make_reference_model(config), properties, config=config.as_dict(), **options)
    result.notes.extend(oracle_notes(config))
    return result


__all__ = ["bmc_check", "prove", "run_bmc"]
