"""The symbolic engine: the Kafka model as z3 terms, bounded model checking and k-induction.

``bmc_check`` is ``--engine bmc``; ``prove`` is ``kmc prove``. The encoding (``state``,
``transitions``, ``formulas``) mirrors the explicit model action by action; ``tests/symbolic``
checks it against the explicit successors state by state.

z3 is loaded lazily on purpose: importing this package (every ``import checker`` does, so that
``bmc`` joins the engine registry) must not pay for z3 until a symbolic engine runs.
"""

from __future__ import annotations

def bmc_check(model, properties, **kwargs):
    """See ``checker.symbolic.bmc.bmc_check``."""
    from checker.symbolic.bmc import bmc_check as run  # lazy on purpose: z3 (see the module docstring)

    return run(model, properties, **kwargs)


def prove(config, prop_name, **kwargs):
    """See ``checker.symbolic.induction.prove``."""
    from checker.symbolic.induction import prove as run  # lazy on purpose: z3 (see the module docstring)

    return run(config, prop_name, **kwargs)


def run_bmc(config, properties, *, max_states=None, **options):
    """``--engine bmc``: ``bmc_check`` on the model of ``config`` (``scope.symbolic_model``), with the
    configuration recorded in the result (a state limit means nothing to it). The encoding has
    Kafka's ordered elections and in-order LeaderAndIsr (issue 29), so unlike ``--engine
    reference`` it needs no note that a trace may take a move Kafka does not make; each trace is
    also replayed in the compiled kernel, and one the kernel does not take is refused."""
    from checker.symbolic.induction import in_kernel  # lazy on purpose: z3
    from checker.symbolic.scope import symbolic_model

    result = bmc_check(symbolic_model(config), properties, config=config.as_dict(),
                       accept=lambda trace: in_kernel(config, trace)[0] is not None, **options)
    return result


__all__ = ["bmc_check", "prove", "run_bmc"]
