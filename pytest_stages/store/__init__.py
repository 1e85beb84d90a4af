"""Snapshot files on disk: safe paths, atomic writes, the rules of a safe prune and its listing."""

from typing import TYPE_CHECKING

from pytest_stages.core.lazy import lazy_module

# What this layer imports late, named once (core/lazy.py says how): pytest's ``-k`` expression
# parser, for ``pytest-stages accept -k``; the command line imports no pytest otherwise. The
# records of a refused prune, which a run that observed the whole tree never builds. filelock (some
# 30 modules), for the snapshot tree's lock, which only a write or a prune takes.
if TYPE_CHECKING:
    import filelock
    from _pytest.mark import expression

    from pytest_stages.store import prune_reasons as prune_reasons_
else:
    expression = lazy_module("_pytest.mark.expression")
    filelock = lazy_module("filelock")
    prune_reasons_ = lazy_module("pytest_stages.store.prune_reasons")

__all__ = ["expression", "filelock", "prune_reasons_"]
