"""These tests are about the default property set: properties another test of the same process
loaded (``kmc --load``) would join it, so they are hidden here."""

from __future__ import annotations

import pytest

from properties import BUILT_IN, PROPERTIES


@pytest.fixture(autouse=True)
def only_the_built_in_properties(monkeypatch):
    for name, prop in list(PROPERTIES.items()):
        if name not in BUILT_IN and not prop.is_reachability and not prop.history and not prop.by_name:
            monkeypatch.delitem(PROPERTIES, name)
