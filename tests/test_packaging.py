"""What a user of the installed package meets outside pytest: the command line's name."""

from __future__ import annotations

import re

import pytest

import pytest_stages
from pytest_stages.check.snapshot_format import FORMAT_VERSION
from pytest_stages.report import cli


def test_the_console_script_names_itself_in_its_usage_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["merge"])
    assert capsys.readouterr().err.splitlines()[0].startswith("usage: pytest-stages merge [-h] ")


def test_python_m_names_the_module(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["merge"], prog="python -m pytest_stages")
    assert capsys.readouterr().err.startswith("usage: python -m pytest_stages merge ")


def test_an_unreleased_version_names_the_snapshot_format_it_writes() -> None:
    """Until a release, ``X.Y.Z.devN`` with N the format: a format change cannot leave the version behind."""
    match = re.fullmatch(r"\d+\.\d+\.\d+(?:\.dev(\d+))?", pytest_stages.__version__)
    assert match, pytest_stages.__version__
    if match.group(1) is not None:
        assert int(match.group(1)) == FORMAT_VERSION
