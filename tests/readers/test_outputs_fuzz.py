"""The safe-output helper (``model.outputs``) over generated file-system situations: whatever is at
the output path, kmc either refuses in one line and changes nothing, or writes exactly the file
asked for, whole, with no temporary file left; an input of the run is never changed."""

from __future__ import annotations

import os
import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

from model.outputs import OutputError, check_output, write_atomic

from tests.readers.conftest import FUZZ, FUZZ_CLI
from tests.viewer.conftest import kmc

SITUATIONS = ("absent", "regular", "directory", "fifo", "dangling-link", "link-to-regular",
              "the-input", "link-to-input", "hardlink-to-input", "dev-null", "absent-dir")


def _make(root, situation: str) -> tuple[str, str]:
    """``root`` holding an input file and whatever ``situation`` puts at the output path;
    (output path, input path)."""
    inp = os.path.join(root, "server.properties")
    with open(inp, "w") as f:
        f.write("default.replication.factor=2\n")
    out = os.path.join(root, "out.json")
    if situation == "regular":
        with open(out, "w") as f:
            f.write("the user's file")
    elif situation == "directory":
        os.mkdir(out)
    elif situation == "fifo":
        os.mkfifo(out)
    elif situation == "dangling-link":
        os.symlink(os.path.join(root, "elsewhere", "x.json"), out)
    elif situation == "link-to-regular":
        with open(os.path.join(root, "target.json"), "w") as f:
            f.write("the user's file")
        os.symlink("target.json", out)
    elif situation == "the-input":
        out = inp
    elif situation == "link-to-input":
        os.symlink(inp, out)
    elif situation == "hardlink-to-input":
        os.link(inp, out)
    elif situation == "dev-null":
        out = os.devnull
    elif situation == "absent-dir":
        out = os.path.join(root, "no-such-dir", "out.json")
    return out, inp


def _snapshot(root) -> dict:
    """Every entry under ``root``: its kind and, for a regular file, its content."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                snap[p] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    snap[p] = ("file", f.read())
            else:
                snap[p] = ("other", None)
    return snap


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("outputs")


@FUZZ
@given(situation=st.sampled_from(SITUATIONS), force=st.booleans(), content=st.binary(max_size=200),
       fails=st.booleans())
def test_an_output_path_is_refused_in_one_line_or_written_whole(base, situation, force, content, fails):
    root = os.path.join(base, "case")
    shutil.rmtree(root, ignore_errors=True)
    os.mkdir(root)
    out, inp = _make(root, situation)
    before = _snapshot(root)
    try:
        check_output(out, force=force, label="--trace-out", inputs=[inp])
    except OutputError as e:
        message = str(e)
        assert "\n" not in message and message.startswith("--trace-out ") and len(message) < 400
        assert _snapshot(root) == before  # a refused run creates and changes nothing
        assert situation not in ("absent", "dev-null") and not (situation in ("regular", "link-to-regular") and force)
        return
    assert situation in ("absent", "regular", "link-to-regular", "dev-null")
    assert force or situation in ("absent", "dev-null")

    def write(tmp):
        with open(tmp, "wb") as f:
            f.write(content[: len(content) // 2])
            if fails:
                raise OSError(28, "No space left on device")
            f.write(content[len(content) // 2:])

    try:
        write_atomic(out, write)
    except OSError:
        assert fails and _snapshot(root) == before  # the old file whole, no temporary left
        return
    after = _snapshot(root)
    assert after[inp] == before[inp]
    if situation == "dev-null":
        assert after == before
        return
    written = os.path.realpath(out)
    assert after[written] == ("file", content)
    assert set(after) == set(before) | {written}  # nothing else created (no .kmc-tmp)


@FUZZ_CLI
@given(situation=st.sampled_from(SITUATIONS), option=st.sampled_from(["--trace-out", "--html"]))
def test_kmc_check_never_writes_over_its_config_even_with_force(base, situation, option):
    root = os.path.join(base, "cli")
    shutil.rmtree(root, ignore_errors=True)
    os.mkdir(root)
    out, inp = _make(root, situation)
    before = _snapshot(root)
    r = kmc("check", "--config", inp, "-q", "--acks", "1", "--min-insync-replicas", "1", "--max-records", "1",
            "--max-leader-epoch", "1", "-p", "no-acked-loss", option, out, "--force")
    after = _snapshot(root)
    assert after[inp] == before[inp]
    if situation in ("absent", "regular", "link-to-regular", "dev-null"):
        assert r.exit_code == 1, r.output
    else:
        assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1, r.output
        assert after == before and "VIOLATED" not in r.stdout
