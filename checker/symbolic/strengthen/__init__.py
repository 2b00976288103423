"""Strengthening invariants for k-induction (``kmc prove --strengthen``), one module per topic:
``crashes_restarts``, ``epochs_requests``, ``logs``, ``fetches``, ``isr_hw`` and ``acks``, with
``base`` (what a strengthening is) and ``history`` (what a state still tells of past epochs) shared
by them; ``library`` puts them together in the order ``kmc list`` shows them."""

from checker.symbolic.strengthen.base import Strengthening
from checker.symbolic.strengthen.library import (
    NOT_IN_ALL, STRENGTHENINGS, all_names, check_of, formula_of, library_names,
)

__all__ = ["NOT_IN_ALL", "STRENGTHENINGS", "Strengthening", "all_names", "check_of", "formula_of", "library_names"]
