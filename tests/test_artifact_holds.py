"""Whether a stored snapshot holds what was just built (``check.snapshot_format.holds``): then nothing is compared."""

from __future__ import annotations

from pathlib import Path

from pytest_stages.analyse.step_time import KEY as STEP
from pytest_stages.check.snapshot_format import Snapshot, holds, parsed
from pytest_stages.core.inputs import UNPARSED

COST = {"flops": 12.0, "bytes accessed": 48.0, STEP: {"seconds": 1e-6}}


def read(text: str) -> Snapshot:
    """A cost snapshot as the plugin reads it, once."""
    return parsed("cost", Snapshot(Path("f.cost.json"), text))


def test_a_stage_text_holds_only_the_same_text():
    assert holds("stablehlo", "module {}\n", UNPARSED, "module {}\n")
    assert not holds("stablehlo", "module {}\n", UNPARSED, "module { }\n")


def test_a_json_snapshot_holds_the_same_data_however_it_is_printed():
    same = read('{"bytes accessed": 48.0, "flops": 12.0, "step": {"seconds": 1e-06}}')
    other = read('{"bytes accessed": 48.0, "flops": 13.0, "step": {"seconds": 1e-06}}')
    assert holds("cost", same.text or "", same.data, COST)
    assert not holds("cost", other.text or "", other.data, COST)


def test_the_data_the_reader_parsed_is_judged_instead_of_the_text():
    assert holds("cost", "not read again", dict(COST), COST)


def test_a_snapshot_written_before_a_key_was_added_holds_the_data_without_it():
    older = {key: value for key, value in COST.items() if key != STEP}
    assert holds("cost", "{}", older, COST)
    assert not holds("cost", "{}", {**older, "flops": 1.0}, COST)


def test_json_that_does_not_parse_is_read_as_unreadable_and_holds_nothing():
    broken = read('{"flops": ')
    assert (broken.data, broken.unreadable) == (UNPARSED, "Expecting value, line 1")
    assert not holds("cost", '{"flops": ', broken.data, COST)
