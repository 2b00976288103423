"""One definition of "acks=0 makes this property vacuous" (properties.registry), read by kmc
check's note, kmc prove's PROVED/HOLDS, and kmc advise's safety and liveness sweeps."""

from __future__ import annotations

from click.testing import CliRunner

from cli import cli
from properties import ABOUT_ACKNOWLEDGEMENTS, PROPERTIES, vacuous_with_acks
from properties.liveness import LIVENESS


def test_every_property_about_acknowledgements_exists():
    # a misspelt name would make a vacuous result look meaningful without any test noticing
    assert ABOUT_ACKNOWLEDGEMENTS
    for name in ABOUT_ACKNOWLEDGEMENTS:
        assert name in PROPERTIES or name in LIVENESS, name


def test_only_acks_zero_makes_them_vacuous():
    assert vacuous_with_acks("no-acked-loss", "0")
    assert not vacuous_with_acks("no-acked-loss", "1")
    assert not vacuous_with_acks("no-acked-loss", "all")
    assert not vacuous_with_acks("committed-consistency", "0")  # about the logs, not the acks


def test_check_and_prove_say_the_same_thing_from_one_definition():
    check = CliRunner().invoke(cli, ["check", "-r", "2", "--acks", "0", "-p", "no-acked-loss",
                                     "-q"])
    prove = CliRunner().invoke(cli, ["prove", "-r", "2", "--acks", "0", "-p", "no-acked-loss",
                                     "-q"])
    assert check.exit_code == 0 and prove.exit_code == 0, check.output + prove.output
    clause = "with acks=0 the producer is never acknowledged, so no-acked-loss cannot fail"
    assert clause in check.output and clause in prove.output
    # and neither says it where the producer waits for acknowledgements
    plain = CliRunner().invoke(cli, ["check", "-r", "2", "--acks", "1", "-p", "no-acked-loss",
                                     "-q"])
    assert "cannot fail" not in plain.output


def test_a_liveness_check_about_acknowledgements_notes_it_too():
    # review s13: kmc check -p produce-eventually-answered --acks 0 printed a bare HOLDS
    out = CliRunner().invoke(cli, ["check", "-r", "2", "--acks", "0", "-p",
                                   "produce-eventually-answered"])
    assert out.exit_code == 0, out.output
    assert "with acks=0 the producer is never acknowledged, so produce-eventually-answered " \
           "cannot fail" in out.output
    assert "note: note:" not in out.output
