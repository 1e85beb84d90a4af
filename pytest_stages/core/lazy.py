"""Modules imported at their first use: the one mechanism behind every late import of the package.

Start-up is paid by every pytest session with the plugin installed, also one that never stages.
Each module binds what it imports late at its top, under the module's real home (``check_message =
lazy_module("pytest_stages.check.message")``, beside its ``TYPE_CHECKING`` import); docs/architecture.md,
"Lazy imports", says how, and tests/test_package_shape.py holds the rules. :func:`lazy_pattern` compiles
a module's regular expression at its first use.
"""

from __future__ import annotations

import importlib
import re
import sys
from types import ModuleType
from typing import cast

# What pytest reads of every name of a module it registers as a plugin (its fixture scan: pytest 9
# ``_mock_name`` and ``__wrapped__``, 8.4 ``_fixture_function_marker``, older ``_pytestfixturefunction``):
# a stand-in answers them itself until its module is loaded, so a hook module may bind late imports too.
_PROBED = frozenset({"_mock_name", "__wrapped__", "_fixture_function_marker", "_pytestfixturefunction"})


class _LazyModule(ModuleType):
    """Stands for the module of its name: every attribute read imports that module (the first time) and
    reads the attribute there, so a stand-in sees what the module holds now (a test's monkeypatch too).

    Nothing is put in ``sys.modules`` under the real name, so code that asks whether JAX is loaded
    (``"jax" in sys.modules``) sees only a real import. ``__getattribute__``, not ``__getattr__``: a
    read then costs about what a function-level ``import`` did (benchmarks/README.md, "Start-up").
    """

    def __getattribute__(self, attribute: str) -> object:
        name = ModuleType.__getattribute__(self, "__name__")
        module = sys.modules.get(name)
        if module is None:
            if attribute in _PROBED:
                return ModuleType.__getattribute__(self, attribute)
            module = importlib.import_module(name)
        return getattr(module, attribute)

    def __repr__(self) -> str:
        return f"<lazy module {ModuleType.__getattribute__(self, '__name__')!r}>"


def lazy_module(name: str) -> ModuleType:
    """The module ``name``, imported when one of its attributes is first read (an ImportError is raised then)."""
    return _LazyModule(name)


class _LazyPattern:
    """Stands for ``re.compile(pattern, flags)``, compiled at its first use (see :func:`lazy_pattern`).

    The first attribute read compiles it and keeps its matching methods on this object, so that
    every later ``search``/``match``/``sub``... is a plain attribute read of the compiled pattern's.
    """

    _METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")

    def __init__(self, pattern: str, flags: int) -> None:
        self._pattern = pattern
        self._flags = flags

    def __getattr__(self, attribute: str) -> object:
        compiled = re.compile(self._pattern, self._flags)
        for method in self._METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, attribute)

    def __repr__(self) -> str:
        return f"<lazy pattern {self._pattern!r}>"


def lazy_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled when first used: for a module's patterns that a run may never use.

    Compiling a regular expression is Python code (``re._compiler``), ~0.5 M instructions for one of
    the HLO reader's; a compare whose calls match their snapshots uses few of the patterns the
    failure paths (drift, source lines, kernels) need. Use it through its methods only (``re.sub``
    and the like want a real pattern).
    """
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))
