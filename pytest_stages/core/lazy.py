"""Modules imported at their first use: the one mechanism behind every late import of the package.

Start-up is paid by every pytest session with the plugin installed, also one that never stages:
such a session imports no JAX, and a run whose calls all match their snapshots imports no
comparison family or failure message. Each layer names what it imports late in one place, its
package's ``__init__.py`` (``plugin.py``, ``jax_compat.py`` and ``pytest_stages/__init__.py`` at
their top), written as::

    if TYPE_CHECKING:
        import jax as jax  # what mypy and import-linter read
    else:
        jax = lazy_module("jax")  # what runs: JAX is imported at the first ``jax.<name>``

and the layer's modules import that name (``from pytest_stages.stage import jax``) and use its
attributes. No function body imports (tests/test_layout.py holds both rules, and that each
``lazy_module`` name matches its ``TYPE_CHECKING`` import); docs/architecture.md, "Lazy imports".
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType


class _LazyModule(ModuleType):
    """Stands for the module of its name: every attribute read imports that module (the first time) and
    reads the attribute there, so a stand-in sees what the module holds now (a test's monkeypatch too).

    Nothing is put in ``sys.modules`` under the real name, so code that asks whether JAX is loaded
    (``"jax" in sys.modules``) sees only a real import. ``__getattribute__``, not ``__getattr__``: a
    read then costs about what a function-level ``import`` did (benchmarks/README.md, "Start-up").
    """

    def __getattribute__(self, attribute: str) -> object:
        name = ModuleType.__getattribute__(self, "__name__")
        return getattr(sys.modules.get(name) or importlib.import_module(name), attribute)

    def __repr__(self) -> str:
        return f"<lazy module {ModuleType.__getattribute__(self, '__name__')!r}>"


def lazy_module(name: str) -> ModuleType:
    """The module ``name``, imported when one of its attributes is first read (an ImportError is raised then)."""
    return _LazyModule(name)
