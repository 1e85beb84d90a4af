"""docs/configuration.md against the one description of the settings: ``Settings``' fields, their defaults and parsers.

Each key of ``[tool.pytest_stages]`` is a field of ``config.Settings`` (its default and its parser
in the field), and each key of a ``[[tool.pytest_stages.configs]]`` entry a field of
``DeviceConfig``; the page's tables must name exactly those keys, with the defaults the code has.
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
import time
import tomllib
from pathlib import Path

import pytest

from pytest_stages.config.device_configs import DeviceConfig, parse_configs
from pytest_stages.config.discovery import load_pyproject
from pytest_stages.config.settings import Settings, parse_settings
from pytest_stages.core.errors import ConfigError

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


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"snapshot_dir": 3}, "[tool.pytest_stages] snapshot_dir must be a string, got 3."),
        ({"snapshot_dir": "../shared/snaps"}, "snapshot_dir = '../shared/snaps' leaves the rootdir; snapshots live"),
        ({"snapshot_dir": "/tmp/snaps"}, 'Give a folder relative to the rootdir (snapshot_dir = "snapshots").'),
        ({"check": ["text", "speed"]}, "check: unknown name 'speed'; choose from"),
        (
            {"on_version_mismatch": "ignore"},
            "on_version_mismatch = 'ignore' is not one of ['fail', 'warn', 'skip', 'semantic'].",
        ),
        ({"tolerance": {"flops": "two percent"}}, "[tool.pytest_stages.tolerance] flops: tolerance 'two percent'"),
        ({"configs": []}, "[[tool.pytest_stages.configs]] must be a non-empty array of tables"),
        ({"configs": [{"name": "a b"}]}, "entry 1: name 'a b' must be 1-64 letters"),
        ({"configs": [{"name": "x", "device": 2}]}, "entry 1: unknown key 'device'"),
        (
            {"configs": [{"name": "x", "devices": 8, "mesh": {"data": 3}}]},
            "config 'x': mesh data=3 holds 3 devices but devices = 8",
        ),
        ({"configs": [{"name": "x"}, {"name": "x"}]}, "config name 'x' is used twice"),
        ({"configs": [{"name": "x", "mesh": {"a": 2}, "axis_types": "sideways"}]}, "config 'x': axis_types"),
        ({"configs": [{"name": "x", "devices": 4, "axis_types": "Auto"}]}, "config 'x': axis_types ['Auto'] must name"),
        (
            {"clear_caches": 1},
            'clear_caches = 1: use "auto" (drop JAX\'s caches where a trace could be reused, and every 32',
        ),
    ],
)
def test_bad_settings_name_the_key(table, message):
    with pytest.raises(ConfigError) as error:
        parse_settings(table)
    assert message in str(error.value)


def test_settings_defaults_and_tolerance_forms():
    settings = parse_settings({"tolerance": {"flops": "2%", "bytes accessed": 0.05}})
    assert settings.stages == ("jaxpr", "stablehlo", "compiled", "kernel_ir")
    assert settings.analyses == ("cost", "memory", "ops", "sharding", "layout", "kernels")
    assert settings.configs[0].name == "default" and settings.configs[0].devices == 1
    assert settings.tolerance == {"flops": 0.02, "bytes accessed": 0.05}


def test_mesh_implies_the_device_count():
    (config,) = parse_configs([{"name": "cpu8", "mesh": {"data": 4, "model": 2}, "axis_types": "auto"}])
    assert config.devices == 8 and config.mesh_shape == {"data": 4, "model": 2}
    assert config.axis_types == ("auto", "auto")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"diff_lines": "x"}, "[tool.pytest_stages] diff_lines must be an integer, got 'x'."),
        ({"static_scalars": 1}, "[tool.pytest_stages] static_scalars must be true or false, got 1."),
        (
            {"snapshot_dir": "a/" + "x" * 256},
            f"[tool.pytest_stages] snapshot_dir = 'a/{'x' * 38}...{'x' * 40}' "
            "has a folder name of 256 bytes; file systems take at most 255 a name. Name a folder with shorter names.",
        ),
        ({"compilation_cache": "é" * 128}, "[tool.pytest_stages] compilation_cache = 'ééé"),
    ],
)
def test_settings_a_file_system_cannot_hold_or_of_the_wrong_type_are_named_in_words(table, message):
    with pytest.raises(ConfigError) as raised:
        parse_settings(table)
    assert str(raised.value).startswith(message), str(raised.value)


def test_the_own_pyproject_not_utf8_is_a_usage_error_naming_it():
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "pyproject.toml").write_bytes(b"[tool.pytest_stages]\nsnapshot_dir = '\xff'\n")
        with pytest.raises(ConfigError, match=r"pyproject.toml is not UTF-8 text \(byte 37\), as TOML must be; save"):
            load_pyproject(Path(folder))


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"name": "big", "devices": 100000}, "devices = 100000 is more than the 4096 CPU devices"),
        ({"name": "big", "devices": 8, "mesh": {"a": 4096, "b": 4096}}, "a mesh of 16777216 devices is more than"),
        ({"name": "big", "mesh": {"a": 4096, "b": 4096}}, "devices = 16777216 is more than the 4096 CPU"),
        ({"name": "pod", "platform": "tpu", "topology": "v5e:512x512"}, "holds 262144 devices, more than the 16384"),
    ],
)
def test_configs_too_big_to_stage_are_refused_at_once(entry, message):
    start = time.monotonic()
    with pytest.raises(ConfigError, match=message):
        parse_configs([entry])
    assert time.monotonic() - start < 1
