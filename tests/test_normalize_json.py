"""ir.normalize at its edges: backend configs made canonical as XLA prints JSON, analyses as canonical JSON."""

from __future__ import annotations

import pytest

from pytest_stages.ir.normalize import canonical_backend_configs, normalize_hlo, to_json

FUSION = "  %f = f32[8]{0} fusion(%a), kind=kLoop, calls=%c"


@pytest.mark.parametrize(
    ("config", "canonical"),
    [
        (
            '{"outer_dimension_partitions":["2"],"b":{"y":1,"x":2.50},"name":"ré","l":[1,{"z":null,"a":true}]}',
            ', backend_config={"b":{"x":2.50,"y":1},"l":[1,{"a":true,"z":null}],"name":"ré"}',
        ),
        (
            '{"k":1.0E+3,"big":123456789012345678901234567890}',
            ', backend_config={"big":123456789012345678901234567890,"k":1.0E+3}',
        ),
        ('{"ké\\"y":[],"a":[[],{}],"e":"\\u00e9\\n"}', ', backend_config={"a":[[],{}],"e":"é\\n","ké\\"y":[]}'),
        ('{"outer_dimension_partitions":[]}', ""),
        ("{}", ""),
    ],
)
def test_a_backend_config_gets_sorted_keys_numbers_as_written_and_no_host_keys(config, canonical):
    line = f"{FUSION}, backend_config={config}, metadata={{}}"
    assert canonical_backend_configs(line) == f"{FUSION}{canonical}, metadata={{}}"


@pytest.mark.parametrize("config", ['{"a" 1}', '{"a":1', "{'a':1}"])
def test_a_backend_config_that_is_not_a_json_object_is_left_as_it_is(config):
    line = f"{FUSION}, backend_config={config}"
    assert canonical_backend_configs(line) == line


def test_every_config_of_a_module_is_canonical_and_the_text_between_them_kept():
    text = (
        f'{FUSION}, backend_config={{"outer_dimension_partitions":["3"],"b":2,"a":1}}\n'
        '  %g = f32[8]{0} custom-call(%f), custom_call_target="x", backend_config={"y":[2,1],"x":"é"}\n'
        "  ROOT %r = f32[8]{0} copy(%g)\n"
    )
    assert normalize_hlo(text) == (
        f'{FUSION}, backend_config={{"a":1,"b":2}}\n'
        '  %g = f32[8]{0} custom-call(%f), custom_call_target="x", backend_config={"x":"é","y":[2,1]}\n'
        "  ROOT %r = f32[8]{0} copy(%g)\n"
    )


def test_analyses_are_json_with_sorted_keys_two_space_indent_and_text_as_written():
    assert (
        to_json({"b": [1, 2], "a": {"ré": "µs"}})
        == '{\n  "a": {\n    "ré": "µs"\n  },\n  "b": [\n    1,\n    2\n  ]\n}\n'
    )


def test_a_config_that_is_not_json_leaves_the_next_one_still_made_canonical():
    bad = '  %a = f32[8]{0} fusion(%x), backend_config={"b" 1}\n'
    text = bad + '  %c = f32[8]{0} fusion(%x), backend_config={"b":1,"a":2}\n'
    assert canonical_backend_configs(text) == bad + '  %c = f32[8]{0} fusion(%x), backend_config={"a":2,"b":1}\n'


def test_a_config_whose_text_holds_backend_config_is_one_config_and_the_next_still_canonical():
    """The search finds ``, backend_config={`` inside a config's own string too: that match lies within
    the config already rewritten, so it is skipped, and the configs of later lines are still sorted."""
    first = '  %a = f32[8]{0} custom-call(%x), backend_config={"note":", backend_config={\\"z\\":1}","b":1,"a":2}\n'
    text = first + '  %c = f32[8]{0} fusion(%x), backend_config={"b":1,"a":2}\n'
    assert canonical_backend_configs(text) == (
        '  %a = f32[8]{0} custom-call(%x), backend_config={"a":2,"b":1,"note":", backend_config={\\"z\\":1}"}\n'
        '  %c = f32[8]{0} fusion(%x), backend_config={"a":2,"b":1}\n'
    )


def test_a_config_right_after_another_is_made_canonical_too():
    """A match that starts where the previous config ends is a config of its own, not inside that one."""
    line = '  %a = f32[8]{0} fusion(%x), backend_config={"b":1,"a":2}, backend_config={"d":1,"c":2}'
    assert canonical_backend_configs(line) == (
        '  %a = f32[8]{0} fusion(%x), backend_config={"a":2,"b":1}, backend_config={"c":2,"d":1}'
    )
