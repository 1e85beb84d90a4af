"""core.inputs: the one JSON and file reader, which refuses what pytest-stages never writes without blocking."""

from __future__ import annotations

import os

import pytest

from pytest_stages.core.errors import InputError
from pytest_stages.core.inputs import parse_json, read_bytes


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 200000, "nested deeper than 100 levels"),
        ("[" * 101 + "]" * 101, "nested deeper than 100 levels"),
        ('{"flops": NaN}', "NaN is not a number JSON holds"),
        ('{"flops": -Infinity}', "-Infinity is not a number JSON holds"),
        ('{"flops": 1e400}', "the number 1e400 is beyond a float's range"),
        ('{"flops": 1' + "0" * 400 + "}", "the number 1000000000000000000000000000000000000000... is beyond"),
        ('{"a": "\\ud800"}', "the string '\\ud800' holds a lone surrogate, which is no text"),
        ('{"\\udfff": 1}', "the string '\\udfff' holds a lone surrogate, which is no text"),
        ('{"format": ', "Expecting value, line 1"),
    ],
)
def test_the_json_reader_refuses_what_pytest_stages_never_writes(text, problem):
    with pytest.raises(InputError) as raised:
        parse_json(text)
    assert str(raised.value).startswith(problem)


def test_the_json_reader_reads_what_pytest_stages_writes():
    text = '{"a": [1, 2.5, -3e10, null, true, "\\u00e9\\ud83d\\ude00"], "b": ' + "[" * 99 + "]" * 99
    text += ', "c": "' + "[{" * 200 + '\\"]"}'
    nested = eval("[" * 99 + "]" * 99)
    assert parse_json(text) == {"a": [1, 2.5, -3e10, None, True, "é😀"], "b": nested, "c": "[{" * 200 + '"]'}


def test_the_file_reader_refuses_a_fifo_and_a_device_without_blocking(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, "/dev/zero"):
        with pytest.raises(InputError, match=r"not a regular file \(a folder, FIFO, socket or device\)"):
            read_bytes(path)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(InputError, match="larger than 100 bytes"):
        read_bytes(big, limit=100)
    assert read_bytes(big, limit=101) == b"x" * 101
