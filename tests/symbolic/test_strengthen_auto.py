"""``kmc prove --strengthen auto`` (checker/symbolic/inductive_step.py): the conjuncts chosen from
the library by the counterexamples to induction. It proves whatever ``--strengthen all`` proves,
with a part of the library, names that part, and when it stops on a CTI, that CTI's state
satisfies every library invariant (so ``all`` is no help there)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from click.testing import CliRunner

from checker.symbolic.induction import INCONCLUSIVE, PROVED, prove
from checker.symbolic.strengthen import all_names, check_of
from cli import cli
from model import Bounds, ModelConfig

# kip-320 with Kafka's own follower-LEO rule, RF=2, 1 record, 1 leader epoch, no crash: the
# smallest configuration where the choice takes several rounds (about 4 s; with a crash and 2
# epochs, below, about 10 s with auto and 6 s with all, on a quiet machine)
SMALL = ModelConfig(protocol="kip-320", replication_factor=2, min_insync_replicas=2,
                    bounds=Bounds(1, 1, 0, 0))
KIP320 = ModelConfig(protocol="kip-320", replication_factor=2, min_insync_replicas=2,
                     bounds=Bounds(1, 2, 1, 1))


def _chose_a_part(result, config):
    assert result.status == PROVED, result.failing
    library = all_names(config)
    assert set(result.strengthen) < set(library)  # a part, not the whole
    assert result.selection["candidates"] == len(library) - 1  # all but the property itself
    rounds = result.selection["rounds"]
    # every round but the last met a CTI and took in what rules it out; the last proved
    assert len(rounds) >= 2 and all(r["added"] for r in rounds[:-1]) and not rounds[-1]["added"]
    seeded = result.selection.get("seed", {}).get("names", [])
    assert sorted(seeded + [n for r in rounds for n in r["added"]]) == sorted(result.strengthen)


def test_auto_proves_with_a_part_of_the_library_and_says_which():
    result = prove(SMALL, "no-acked-loss", strengthen=["auto"], search="none")
    _chose_a_part(result, SMALL)
    assert "seed" not in result.selection  # the bounds are the smallest already


@pytest.mark.slow
def test_the_part_auto_chooses_at_one_record_first_is_inductive_on_its_own():
    two = replace(KIP320, bounds=replace(KIP320.bounds, max_records=2))
    result = prove(two, "no-acked-loss", strengthen=["auto"], search="none")
    _chose_a_part(result, two)
    seed = result.selection["seed"]  # chosen first at 1 record (the other bounds are small)
    assert seed["bounds"] == "max-records=1" and seed["taken"] == len(seed["names"]) > 0
    # a plain proof with the chosen part named goes through
    again = prove(two, "no-acked-loss", strengthen=result.strengthen, search="none")
    assert again.status == PROVED and again.strengthen == result.strengthen


@pytest.mark.slow
def test_a_named_invariant_is_kept_and_auto_stops_only_on_a_cti_the_whole_library_allows():
    # Without the two facts that rule out kmc 0.1's stale remote LEO (test_induction.py's CTI),
    # auto can run out of library: the CTI it then stops on must satisfy every invariant it
    # could have taken (checked by their predicates on the decoded state, not z3's formulas)
    config = ModelConfig(protocol="kip-320", replication_factor=2, min_insync_replicas=2,
                         bounds=Bounds(2, 2, 1, 1), rule_changes=("+kmc-0.1",))
    import checker.symbolic.induction as induction

    left_out = ("remote-leo-is-follower-prefix", "kept-remote-leo-is-follower-prefix")
    real = induction.all_names
    try:
        induction.all_names = lambda c=None: [n for n in real(c) if n not in left_out]
        result = prove(config, "no-acked-loss", strengthen=["auto", "hw-le-leo"], search="none")
    finally:
        induction.all_names = real
    assert result.status == INCONCLUSIVE and result.pre is not None
    assert "hw-le-leo" in result.strengthen  # named with -s: always in use
    taken = [n for n in real(config) if n not in left_out]
    assert all(check_of(n, config)(result.pre) for n in taken), \
        [n for n in taken if not check_of(n, config)(result.pre)]


def test_all_and_auto_together_are_one_line_exit_2():
    out = CliRunner().invoke(cli, ["prove", "-r", "2", "-p", "no-acked-loss", "-s", "all", "-s", "auto"])
    assert out.exit_code == 2 and "Traceback" not in out.output
    assert "exclude each other" in out.output and len(out.output.strip().splitlines()) == 1
