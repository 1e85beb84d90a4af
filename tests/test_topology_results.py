"""The compile-only cache: an unchanged compile-only program is served from it, any change of a key part misses."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest
from conftest import ONE_CONFIG, SIMPLE_TEST

from pytest_stages.analyse.artifacts import ANALYSES
from pytest_stages.config.device_configs import DeviceConfig
from pytest_stages.stage import plan, topology_results
from pytest_stages.stage.jax_events import CompileEvents
from pytest_stages.stage.staging import stage
from pytest_stages.stage.topology_results import CachedCompiled, CompileOnlyCache, CompileOnlyCacheWarning, entry_name

ROOT = Path(__file__).resolve().parent.parent
MESH = (("data", 2), ("model", 2))
V5E = DeviceConfig(name="v5e", platform="tpu", topology="v5e:2x2", devices=4, mesh=MESH)
STAGES = ("jaxpr", "stablehlo", "hlo", "compiled")


def run_stage(config, fn, *args, cache, **jit_options):
    """Stage ``fn`` for ``config`` as ``stage_snapshot`` does; the result and (lookups, hits) of the cache."""
    import jax

    from pytest_stages.stage.activation import activate

    events = CompileEvents()
    result = stage(
        jax.jit(fn, **jit_options),
        args,
        {},
        name="f",
        active=activate(config),
        stages=STAGES,
        analyses=ANALYSES,
        events=events,
        cache=cache,
    )
    return result, events.take()


def matmul(x, w):
    import jax.numpy as jnp

    return jnp.tanh(x @ w).sum()


def arguments(config=V5E):
    import jax
    import jax.numpy as jnp

    from pytest_stages.stage.activation import activate

    mesh = activate(config).mesh
    x = jax.ShapeDtypeStruct((128, 256), jnp.float32, sharding=jax.sharding.NamedSharding(mesh, jax.P("data")))
    w = jax.ShapeDtypeStruct((256, 64), jnp.float32, sharding=jax.sharding.NamedSharding(mesh, jax.P(None, "model")))
    return x, w


@pytest.fixture
def cache(tmp_path):
    return CompileOnlyCache(tmp_path / "compile-only", 1 << 30, tmp_path)


def served(result) -> dict:
    """Everything a staged call snapshots: its texts and analyses, and what it skipped and why."""
    return {"texts": result.texts, "analyses": result.analyses, "skipped": result.skipped, "notes": result.notes}


@pytest.mark.extras("tpu")
def test_an_unchanged_program_is_served_from_the_cache_with_what_a_fresh_compile_gives(cache):
    fresh, counts = run_stage(V5E, matmul, *arguments(), cache=None)
    assert counts == (0, 0)
    first, counts = run_stage(V5E, matmul, *arguments(), cache=cache)
    assert counts == (1, 0) and not isinstance(first.compiled, CachedCompiled)
    second, counts = run_stage(V5E, matmul, *arguments(), cache=cache)
    assert counts == (1, 1)
    assert isinstance(second.compiled, CachedCompiled) and second.from_cache
    assert served(second) == served(fresh) == served(first)
    assert second.compiled.as_text() == first.compiled.as_text()
    # Anything else of result.compiled compiles the program then: the real executable answers.
    assert second.compiled.memory_analysis().argument_size_in_bytes == first.memory["argument_size_in_bytes"]


@pytest.mark.extras("tpu")
def test_a_hit_serves_the_compiled_text_normalized_as_cached(cache):
    """The entry keeps the compiled snapshot text normalized: a hit takes it as it is (no second normalization)."""
    first, _ = run_stage(V5E, matmul, *arguments(), cache=cache)
    (path,) = cache.folder.iterdir()
    data = json.loads(path.read_text())
    assert data["texts"] == {"compiled": first.texts["compiled"]} != {"compiled": data["compiled_text"]}
    data["texts"]["compiled"] += "// as cached\n"
    path.write_text(json.dumps(data))
    second, counts = run_stage(V5E, matmul, *arguments(), cache=cache)
    assert counts == (1, 1)
    assert second.texts["compiled"] == first.texts["compiled"] + "// as cached\n"
    assert list(second.texts) == list(first.texts)  # in their place: the snapshot files' order


@pytest.mark.extras("tpu")
def test_a_changed_lowered_module_misses(cache):
    import jax.numpy as jnp

    run_stage(V5E, matmul, *arguments(), cache=cache)
    changed, counts = run_stage(V5E, lambda x, w: jnp.tanh(x @ w * 2.0).sum(), *arguments(), cache=cache)
    assert counts == (1, 0)
    assert "multiply" in changed.texts["compiled"]


@pytest.mark.extras("tpu")
def test_a_version_change_misses(cache, monkeypatch):
    run_stage(V5E, matmul, *arguments(), cache=cache)
    installed = plan.installed_version
    monkeypatch.setattr(plan, "installed_version", lambda name: "0.0.1" if name == "libtpu" else installed(name))
    assert run_stage(V5E, matmul, *arguments(), cache=cache)[1] == (1, 0)


@pytest.mark.extras("tpu")
def test_an_xla_flag_change_misses(cache, monkeypatch):
    run_stage(V5E, matmul, *arguments(), cache=cache)
    monkeypatch.setenv("LIBTPU_INIT_ARGS", "--xla_tpu_enable_latency_hiding_scheduler=false")
    assert run_stage(V5E, matmul, *arguments(), cache=cache)[1] == (1, 0)
    monkeypatch.delenv("LIBTPU_INIT_ARGS")
    assert run_stage(V5E, matmul, *arguments(), cache=cache)[1] == (1, 1)


@pytest.mark.extras("tpu")
def test_a_compile_option_change_misses(cache):
    run_stage(V5E, matmul, *arguments(), cache=cache)
    options = {"compiler_options": {"xla_tpu_enable_latency_hiding_scheduler": False}}
    assert run_stage(V5E, matmul, *arguments(), cache=cache, **options)[1] == (1, 0)
    assert run_stage(V5E, matmul, *arguments(), cache=cache, **options)[1] == (1, 1)


@pytest.mark.extras("tpu")
@pytest.mark.parametrize(
    "other",
    [
        DeviceConfig(name="v5e", platform="tpu", topology="v5e:4x4"),
        DeviceConfig(name="v5e", platform="tpu", topology="v5e:2x2", chips_per_host_bounds=(1, 1, 1)),
        DeviceConfig(name="v5e", platform="tpu", topology="v5e:2x2", num_slices=2),
    ],
    ids=["topology", "chips-per-host", "slices"],
)
def test_a_topology_change_misses(cache, other):
    """The same program on the first device of another topology: the same module.

    Another topology or chips per host leaves the compile options and backend alike too, so
    only the topology part tells them apart; two slices also number the devices differently.
    """
    import jax
    import jax.numpy as jnp

    x = jax.ShapeDtypeStruct((8, 128), jnp.float32)
    before, _ = run_stage(DeviceConfig(name="v5e", platform="tpu", topology="v5e:2x2"), jnp.tanh, x, cache=cache)
    after, counts = run_stage(other, jnp.tanh, x, cache=cache)
    assert counts == (1, 0)
    assert after.lowered_text == before.lowered_text


@pytest.mark.extras("tpu")
def test_renamed_arguments_miss(cache):
    """The module does not name its arguments, the sharding and layout snapshots do."""
    import jax
    import jax.numpy as jnp

    def total(tree):
        return sum(jnp.tanh(leaf).sum() for leaf in jax.tree.leaves(tree))

    x = jax.ShapeDtypeStruct((8, 128), jnp.float32)
    run_stage(V5E, total, {"w": x}, cache=cache)
    renamed, counts = run_stage(V5E, total, {"weight": x}, cache=cache)
    assert counts == (1, 0)
    assert list(renamed.analyses["layout"]["inputs"]) == ["tree['weight']"]


def _entry(folder: Path, parts: dict[str, str], text: str = "HloModule m") -> Path:
    cache = CompileOnlyCache(folder, 1 << 30, folder)
    entry = {"compiled_text": text, "texts": {"compiled": text}, "analyses": {"memory": {"temp_size_in_bytes": 0}}}
    cache.write(parts, {**entry, "unavailable": {}})
    return folder / entry_name(parts)


PARTS = dict.fromkeys(topology_results.KEY_PARTS, "0" * 64)


def test_an_entry_is_read_back_as_written(tmp_path):
    path = _entry(tmp_path, PARTS)
    read = CompileOnlyCache(tmp_path, 1 << 30, tmp_path).read(PARTS, ("compiled", "memory"))
    assert read is not None and read["compiled_text"] == "HloModule m"
    assert read["analyses"] == {"memory": {"temp_size_in_bytes": 0}}
    # Built with fewer analyses than wanted now: a miss (compiled again, and rewritten), never a warning.
    assert CompileOnlyCache(tmp_path, 1 << 30, tmp_path).read(PARTS, ("compiled", "memory", "cost")) is None
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


@pytest.mark.parametrize(
    "content, why",
    [
        (b'{"format": 1, "key": {', "not JSON"),
        (b"\xff\xfe", "not JSON"),
        (b"[]", "not a compile-only cache entry"),
        ("foreign", "written for another key"),
        ("format", "written in format 0"),
        ("analyses", "its analyses are malformed"),
        ("unavailable", "its unavailable analyses are malformed"),
        ("text", "its compiled text is not text"),
        ("texts", "its normalized texts are malformed"),
    ],
)
def test_a_corrupted_or_foreign_entry_is_ignored_with_a_warning(tmp_path, content, why):
    path = _entry(tmp_path, PARTS)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        data = json.loads(path.read_text())
        if content == "foreign":  # another key's entry, copied or moved under this key's name
            data["key"] = {**PARTS, "module": "1" * 64}
        elif content == "format":
            data["format"] = 0
        elif content == "analyses":
            data["analyses"] = {"memory": [1, 2]}
        elif content == "unavailable":
            data["unavailable"] = {"sharding": {"reason": 3, "partial": None}}
        elif content == "texts":
            data["texts"] = {"compiled": None}
        else:
            data["compiled_text"] = None
        path.write_text(json.dumps(data))
    with pytest.warns(
        CompileOnlyCacheWarning, match=f"ignored the compile-only cache entry .*: {why}.*compiled afresh"
    ):
        assert CompileOnlyCache(tmp_path, 1 << 30, tmp_path).read(PARTS, ("compiled",)) is None


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero", "link to an entry"])
def test_an_entry_that_is_no_plain_file_is_a_miss_never_opened(tmp_path, kind):
    """A FIFO would block the read, ``/dev/zero`` never ends, a link may lead anywhere: none is opened."""
    elsewhere = _entry(tmp_path / "elsewhere", PARTS)
    path = tmp_path / "cache" / entry_name(PARTS)
    path.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero" if kind == "link to /dev/zero" else elsewhere)
    outcome: list[object] = []

    def read() -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outcome.append(CompileOnlyCache(path.parent, 1 << 30, tmp_path).read(PARTS, ("compiled",)))
        outcome.append([str(w.message) for w in caught])

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=20)
    assert not reader.is_alive(), f"reading a {kind} entry hung"
    assert outcome[0] is None
    assert outcome[1] == [
        f"pytest-stages: ignored the compile-only cache entry {path}: not a plain file (a symlink, FIFO, socket or "
        "device), which this cache never writes. Nothing of it was used: the call was compiled afresh and the entry "
        "rewritten."
    ]
    _entry(path.parent, PARTS)  # the compile that follows replaces it with a plain file; what it named is untouched
    assert path.is_file() and not path.is_symlink()
    assert CompileOnlyCache(path.parent, 1 << 30, tmp_path).read(PARTS, ("compiled",)) is not None
    assert elsewhere.is_file()


def test_eviction_removes_the_least_recently_used_entries_and_nothing_else(tmp_path):
    keys = [{**PARTS, "module": str(i) * 64} for i in range(4)]
    paths = [_entry(tmp_path, key, "x" * 1000) for key in keys]
    for age, path in enumerate(paths):  # keys[0] is the most recently used
        os.utime(path, (1_000_000 - age * 10, 1_000_000 - age * 10))
    others = [tmp_path / "notes.txt", tmp_path / ("a" * 64 + "-cache"), tmp_path / ("b" * 63 + ".json")]
    for other in others:
        other.write_text("y" * 5000)
    size = paths[0].stat().st_size
    CompileOnlyCache(tmp_path, 2 * size, tmp_path).evict()
    assert [p.exists() for p in paths] == [True, True, False, False]
    assert all(other.exists() for other in others)
    # A hit marks its entry used: it outlives the entries used before it.
    assert CompileOnlyCache(tmp_path, 2 * size, tmp_path).read(keys[1], ("compiled",)) is not None
    _entry(tmp_path, keys[2], "x" * 1000)  # written last, evicting with its writer's bound of 1 GiB: nothing
    CompileOnlyCache(tmp_path, 2 * size, tmp_path).evict()
    assert [p.exists() for p in paths] == [False, True, True, False]


def test_a_failed_write_leaves_the_previous_entry_whole(tmp_path, monkeypatch):
    path = _entry(tmp_path, PARTS, "old")
    before = path.read_bytes()

    def full(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(topology_results.os, "replace", full)
    with pytest.warns(
        CompileOnlyCacheWarning, match="could not write the compile-only cache .*No space left on device"
    ):
        _entry(tmp_path, PARTS, "new" * 10000)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_the_cache_folder_follows_the_compilation_cache_setting():
    from pytest_stages.stage.disk_cache import staged_folder

    default = Path("/p/.pytest_cache/d/pytest-stages-jax")
    assert staged_folder(True, default, Path("/p")) == default / "compile-only"
    assert staged_folder("build/jax", None, Path("/p")) == Path("/p/build/jax/compile-only")
    assert staged_folder(True, None, Path("/p")) is None  # -p no:cacheprovider
    assert staged_folder(False, default, Path("/p")) is None


def hits(result) -> tuple[int, int]:
    line = next(out for out in result.outlines if "JAX compilation cache" in out)
    found, asked = re.search(r": (\d+) of (\d+) compile", line).groups()
    return int(found), int(asked)


@pytest.mark.extras("tpu")
def test_a_warm_compile_only_run_is_served_by_the_cache_and_a_change_still_fails(project):
    from test_topology import V5E as V5E_CONFIG

    project.configure('compilation_cache = "jaxcache"', configs=ONE_CONFIG + V5E_CONFIG)
    project.write("test_model.py", SIMPLE_TEST)
    cold = project.pytester.runpytest_subprocess("-p", "no:cacheprovider", "--stages-update")
    cold.assert_outcomes(passed=2)
    assert hits(cold) == (0, 2)
    recorded = project.snapshots()
    assert len(list((project.path / "jaxcache" / "compile-only").iterdir())) == 1
    warm = project.pytester.runpytest_subprocess("-p", "no:cacheprovider", "--stages-update")
    warm.assert_outcomes(passed=2)
    assert hits(warm) == (2, 2)
    warm.stdout.fnmatch_lines(["pytest-stages: wrote 0 snapshot file(s)"])
    assert project.snapshots() == recorded
    project.write("test_model.py", SIMPLE_TEST.replace("jnp.tanh(x @ w)", "jnp.tanh(x @ w * 2.0)"))
    changed = project.pytester.runpytest_subprocess("-p", "no:cacheprovider")
    changed.assert_outcomes(failed=2)
    assert hits(changed) == (0, 2)


@pytest.mark.extras("tpu", "cuda")
def test_hits_give_byte_identical_snapshots_over_the_examples_compile_only_configs(tmp_path):
    """The example suite on v5e and h100 recorded from scratch twice: compiled (cold), then from the cache (warm).

    Each run writes every snapshot file afresh (the folder is emptied before it), so the two
    trees are the texts a fresh compile gives and those a hit gives, byte for byte.
    """
    for name in ("examples", "pyproject.toml"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    command = [sys.executable, "-m", "pytest", "examples", "-q", "-p", "no:randomly", "-W", "ignore"]
    command += ["--stages-update", "--stages-configs", "v5e,h100", "-o", f"cache_dir={tmp_path / 'pytest-cache'}"]
    trees, counts = [], []
    for _ in ("cold", "warm"):
        shutil.rmtree(tmp_path / "snapshots", ignore_errors=True)
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout[-3000:]
        line = next(line for line in done.stdout.splitlines() if "JAX compilation cache" in line)
        counts.append(tuple(map(int, re.search(r": (\d+) of (\d+) compile", line).groups())))
        root = tmp_path / "snapshots"
        trees.append({p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()})
    (cold_hits, calls), warm = counts
    assert cold_hits == 0 and warm == (calls, calls) and calls >= 18, counts
    assert len(trees[0]) > 100
    assert trees[1] == trees[0]


def test_the_size_setting():
    from pytest_stages.config.settings import parse_settings
    from pytest_stages.core.errors import ConfigError

    assert parse_settings({}).compile_only_cache_size == 1 << 30
    assert parse_settings({"compile_only_cache_size": "64 MiB"}).compile_only_cache_size == 64 << 20
    assert parse_settings({"compile_only_cache_size": 0}).compile_only_cache_size == 0
    with pytest.raises(ConfigError, match="compile_only_cache_size: 'lots' is not a size"):
        parse_settings({"compile_only_cache_size": "lots"})


def test_a_key_jax_cannot_make_turns_the_cache_off_with_one_warning(tmp_path):
    """A JAX whose private interfaces moved (jax_compat, section 5): no key, no cache, never a failed test."""
    cache = CompileOnlyCache(tmp_path, 1 << 30, tmp_path)
    with pytest.warns(
        CompileOnlyCacheWarning, match="the compile-only cache is off: its key cannot be made with this JAX"
    ):
        assert cache.key("module", [], object(), None) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.key("module", [], object(), None) is None
