"""Executors get kmc's code from a directory that does not change between applications
(``spark_explore/boot.py``), so numba's compiled kernel is reused; no JVM needed here."""

from __future__ import annotations

import os
import sys
import zipfile

from spark_explore import boot
from tests.spark.conftest import ROOT


def test_the_shipped_zip_unpacks_to_one_directory_named_by_its_contents(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    zip_path = tmp_path / "code.zip"
    digest = boot.write_zip(str(ROOT), str(zip_path))
    assert digest == boot.code_hash(str(ROOT))
    names = zipfile.ZipFile(zip_path).namelist()
    assert "spark_explore/boot.py" in names and "checker/compiled/batch.py" in names
    assert not any("__pycache__" in n for n in names)
    first = boot.unpack(str(zip_path), digest)
    assert first == str(tmp_path / f"kmc-code-{digest}")
    assert boot.code_hash(first) == digest  # the same files, byte for byte
    assert boot.unpack(str(zip_path), digest) == first  # the next worker reuses it
    assert [p for p in os.listdir(tmp_path) if p.startswith("kmc-code-")] == [os.path.basename(first)]


def test_install_prefers_the_drivers_tree_when_it_is_the_same_code(monkeypatch):
    monkeypatch.delenv("KMC_SPARK_CODE", raising=False)
    monkeypatch.setattr(sys, "path", list(sys.path))
    digest = boot.code_hash(str(ROOT))
    assert boot.install((str(ROOT), digest, "unused.zip")) == str(ROOT)
    assert sys.path[0] == str(ROOT)
    assert os.environ["KMC_SPARK_CODE"] == f"{digest}:{ROOT}"
    assert boot.install(("/elsewhere", digest, "unused.zip")) == str(ROOT)  # once per process
