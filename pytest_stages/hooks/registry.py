"""Registered stage functions: declared once next to model code, collected as test items.

``register()`` keeps each registration on the module that called it (as pytest keeps
marks on functions), not in a process-wide list: a session gathers the registrations of
the modules it owns (:func:`registrations`), and a module imported again by a later
session (pytester) declares its registrations afresh.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RegisteredArgs = tuple[Any, ...] | Callable[[Any], tuple[Any, ...]]


@dataclass(frozen=True)
class Registration:
    """One ``register(...)`` call: the function and how to stage it."""

    fn: Callable[..., Any]
    args: RegisteredArgs
    name: str
    configs: tuple[str, ...] | None = None
    budget: dict[str, Any] = field(default_factory=dict)
    jit: dict[str, Any] = field(default_factory=dict)
    origin: str = ""
    module: str = ""

    def belongs_to(self, rootpath: Path, modules: tuple[str, ...]) -> bool:
        """Whether a session at ``rootpath`` listing ``modules`` owns this registration."""
        return self.module in modules or Path(self.origin).resolve().is_relative_to(rootpath.resolve())

    def staged_fn(self) -> Callable[..., Any]:
        """``fn`` jitted with the registration's jit options (``fn`` itself when it has none)."""
        if not self.jit:
            return self.fn
        import jax

        return jax.jit(self.fn, **self.jit)

    def arguments(self, stage_config: Any) -> tuple[Any, ...]:
        args = self.args(stage_config) if callable(self.args) else self.args
        return tuple(args)


# The module attribute that holds a module's registrations, in call order.
ATTRIBUTE = "__pytest_stages_registrations__"


def registrations(rootpath: Path, modules: Iterable[str] = (), plugins: Iterable[object] = ()) -> list[Registration]:
    """The registrations a session at ``rootpath`` owns, from every imported module, in import order.

    A registration belongs to the session when the file that called ``register`` is under
    ``rootpath`` or its module is listed in ``modules`` (``[tool.pytest_stages] modules``).
    ``plugins`` are pytest's registered plugins: conftest.py files outside packages are all
    imported as ``conftest``, so ``sys.modules`` keeps only the last; pytest keeps each.
    """
    listed = tuple(modules)
    found = []
    seen: set[int] = set()
    for module in [*sys.modules.values(), *plugins]:
        if id(module) in seen:
            continue
        seen.add(id(module))
        declared = _namespace(module).get(ATTRIBUTE)
        if isinstance(declared, list):
            found += [r for r in declared if isinstance(r, Registration) and r.belongs_to(rootpath, listed)]
    return found


def _namespace(module: object) -> dict[str, Any]:
    """A module's own namespace, read without asking the module anything.

    A lazily loaded module (``importlib.util.LazyLoader``) would execute on any attribute
    access, and a module-level ``__getattr__`` may warn or import: neither is triggered here.
    """
    try:
        namespace = object.__getattribute__(module, "__dict__")
    except (AttributeError, TypeError):
        return {}
    return namespace if isinstance(namespace, dict) else {}


def register(
    fn: Callable[..., Any] | None = None,
    *,
    args: RegisteredArgs,
    name: str | None = None,
    configs: list[str] | tuple[str, ...] | None = None,
    budget: dict[str, Any] | None = None,
    jit: dict[str, Any] | None = None,
) -> Any:
    """Register ``fn`` to be staged and snapshot-compared as its own test (``stages::name[config]``).

    ``args`` is a tuple of abstract or concrete arguments, or a callable taking the active
    ``stage_config`` and returning them (so shardings can use that config's mesh). ``jit`` holds
    ``jax.jit`` options for a function that is not jitted yet. Usable as ``@register(args=...)``.
    The registration belongs to the file that calls ``register`` (not the one defining ``fn``),
    so library functions such as ``tx.update`` can be registered from a conftest.py.
    """
    caller = inspect.currentframe().f_back  # type: ignore[union-attr]
    origin = caller.f_code.co_filename if caller is not None else ""
    namespace = caller.f_globals if caller is not None else {}
    module = str(namespace.get("__name__", ""))
    del caller
    if name is not None and (not isinstance(name, str) or not name):
        raise TypeError(f"register(name={name!r}): name must be a non-empty string (it names the test and its folder).")

    def record(function: Callable[..., Any]) -> Callable[..., Any]:
        namespace.setdefault(ATTRIBUTE, []).append(
            Registration(
                fn=function,
                args=args,
                name=name or str(getattr(function, "__name__", type(function).__name__)),
                configs=tuple(configs) if configs is not None else None,
                budget=dict(budget or {}),
                jit=dict(jit or {}),
                origin=origin,
                module=module,
            )
        )
        return function

    return record(fn) if fn is not None else record
