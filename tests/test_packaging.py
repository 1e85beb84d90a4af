"""What a user of the installed package meets outside pytest: the command line's name."""

from __future__ import annotations

import pytest

from pytest_stages.report import cli


def test_the_console_script_names_itself_in_its_usage_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["merge"])
    assert capsys.readouterr().err.splitlines()[0].startswith("usage: pytest-stages merge [-h] ")


def test_python_m_names_the_module(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["merge"], prog="python -m pytest_stages")
    assert capsys.readouterr().err.startswith("usage: python -m pytest_stages merge ")
