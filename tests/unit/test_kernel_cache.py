"""The compiled kernel's cache is found by another clone of the same sources (review 7: every
fresh clone compiled the kernel again, for minutes, because numba names a file's place in the
cache by the absolute path of its directory)."""

from __future__ import annotations

import shutil

from checker.simulate import walks
from model.kernel.cache import _CheckoutLocator, _ROOT


def test_a_kernel_files_place_in_the_cache_is_named_by_its_path_in_the_checkout_and_its_content():
    locator = walks.run_walks._cache._impl.locator
    assert isinstance(locator, _CheckoutLocator)
    place = locator.get_cache_path()
    assert str(_ROOT) not in place and "checker+simulate_walks_" in place


def test_a_copy_of_the_checkout_finds_the_same_place_and_stamp(tmp_path):
    source = _ROOT / "checker" / "simulate" / "walks.py"
    copy = tmp_path / "walks.py"
    shutil.copy(source, copy)
    here = _CheckoutLocator(walks.run_walks.py_func, str(source))
    # the copy is outside this checkout: numba's own locator takes it, so a test needs the root moved
    import model.kernel.cache as cache
    original, cache._ROOT = cache._ROOT, tmp_path.parent
    try:
        there = _CheckoutLocator(walks.run_walks.py_func, str(copy))
    finally:
        cache._ROOT = original
    assert here.get_source_stamp() == there.get_source_stamp()
    assert here.get_cache_path().rsplit("_", 1)[1] == there.get_cache_path().rsplit("_", 1)[1]
    copy.write_text(copy.read_text() + "\n# edited\n")
    cache._ROOT = tmp_path.parent
    try:
        edited = _CheckoutLocator(walks.run_walks.py_func, str(copy))
    finally:
        cache._ROOT = original
    assert edited.get_source_stamp() != here.get_source_stamp()


def test_a_file_outside_the_checkout_is_left_to_numba(tmp_path):
    outside = tmp_path / "plugin.py"
    outside.write_text("x = 1\n")
    assert _CheckoutLocator.from_function(walks.run_walks.py_func, str(outside)) is None
