"""docs/configuration.md against the one description of the settings: ``Settings``' fields, their defaults and parsers.

Each key of ``[tool.pytest_stages]`` is a field of ``config.Settings`` (its default and its parser
in the field), and each key of a ``[[tool.pytest_stages.configs]]`` entry a field of
``DeviceConfig``; the page's tables must name exactly those keys, with the defaults the code has.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pytest

from pytest_stages.config.devices import DeviceConfig
from pytest_stages.config.settings import Settings, parse_settings

PAGE = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"


def table_rows(heading: str) -> dict[str, list[str]]:
    """The rows of the first table under ``## heading``: the first cell's backticked key -> the other cells."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index(f"\n## {heading}\n") :]
    section = section[: section.find("\n## ", 1) if "\n## " in section[1:] else len(section)]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        key = re.fullmatch(r"`([^`]+)`", cells[0])
        if line.startswith("| `") and key:
            rows[key.group(1)] = cells[1:]
    return rows


def setting_name(key: str) -> str:
    """``[tool.pytest_stages.tolerance]`` -> ``tolerance``; ``[[tool.pytest_stages.configs]]`` -> ``configs``."""
    return key.strip("[]").removeprefix("tool.pytest_stages.")


def test_the_keys_table_names_every_setting_and_no_other():
    names = [setting_name(key) for key in table_rows("Keys")]
    assert sorted(names) == sorted(f.name for f in dataclasses.fields(Settings))


def test_the_device_configs_table_names_every_key_of_a_config_and_no_other():
    assert sorted(table_rows("Device configs")) == sorted(f.name for f in dataclasses.fields(DeviceConfig))


SCALARS = [key for key in table_rows("Keys") if not key.startswith("[")]


@pytest.mark.parametrize("key", SCALARS)
def test_a_documented_default_is_the_default_of_the_code(key):
    """The page's default, read as TOML and through the setting's parser, is the field's default."""
    shown = re.match(r"`([^`]*)`", table_rows("Keys")[key][0])
    assert shown, f"no default in backticks for {key}"
    value = tomllib.loads(f"value = {shown.group(1)}")["value"]
    assert getattr(parse_settings({key: value}), key) == getattr(Settings(), key)


def test_a_table_left_out_is_empty_and_the_default_config_is_the_one_documented():
    rows = table_rows("Keys")
    assert "`default`" in rows["[[tool.pytest_stages.configs]]"][0]
    assert [c.name for c in Settings().configs] == ["default"]
    assert Settings().tolerance == Settings().budgets == Settings().test_configs == {}


def test_the_settings_example_of_the_page_is_valid():
    text = PAGE.read_text(encoding="utf-8")
    example = text[text.index("```toml\n[tool.pytest_stages]") + len("```toml\n") :]
    table = tomllib.loads(example[: example.index("```")])["tool"]["pytest_stages"]
    assert parse_settings(table).config_named("v5e").topology == "v5e:2x2"
