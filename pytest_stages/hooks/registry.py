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
from typing import TYPE_CHECKING, Any

from pytest_stages.core.lazy import lazy_module
from pytest_stages.hooks.errors import RegisteredFunctionError
from pytest_stages.stage.errors import TopologyUnavailable

if TYPE_CHECKING:
    import jax
else:
    jax = lazy_module("jax")

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
    line: int = 0
    # What is wrong with the call's options ("" when nothing): its items fail with it, the session runs on.
    problem: str = ""

    @property
    def where(self) -> str:
        """``file:line`` of the ``register`` call, for messages."""
        return f"{Path(self.origin).name}:{self.line}" if self.line else Path(self.origin).name

    def belongs_to(self, rootpath: Path, modules: tuple[str, ...]) -> bool:
        """Whether a session at ``rootpath`` listing ``modules`` owns this registration."""
        return self.module in modules or Path(self.origin).resolve().is_relative_to(rootpath.resolve())

    def staged_fn(self) -> Callable[..., Any]:
        """``fn`` jitted with the registration's jit options (``fn`` itself when it has none).

        Raises :class:`RegisteredFunctionError` for an option ``jax.jit`` does not take or refuses.
        """
        if not self.jit:
            return self.fn
        options = [name for name in inspect.signature(jax.jit).parameters if name != "fun"]
        unknown = sorted(key for key in self.jit if key not in options)
        if unknown:
            raise RegisteredFunctionError(
                f"register({self.name!r}, jit=...) at {self.where}: {unknown[0]!r} is not an option of jax.jit; "
                f"use jax.jit's keyword arguments ({', '.join(options)})."
            )
        try:
            return jax.jit(self.fn, **self.jit)
        except Exception as exc:  # noqa: BLE001  (jax.jit may refuse an option's value with any error; it is reported)
            raise RegisteredFunctionError(
                f"register({self.name!r}, jit=...) at {self.where}: jax.jit refuses these options: "
                f"{type(exc).__name__}: {_first_line(exc)}. Fix the jit= options of this registration."
            ) from None

    def arguments(self, stage_config: Any) -> tuple[Any, ...]:
        """The staged arguments on ``stage_config``.

        An ``args`` function that raises is a :class:`RegisteredFunctionError`; :class:`TopologyUnavailable`
        passes through (its items are skipped, not failed).
        """
        try:
            args = self.args(stage_config) if callable(self.args) else self.args
            return tuple(args)
        except TopologyUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001  (the user's args function may raise anything; it is reported)
            raise RegisteredFunctionError(
                f"the args of registered function {self.name!r} ({self.where}) failed on config "
                f"{stage_config.name!r}: {type(exc).__name__}: {_first_line(exc)}. This test fails alone; "
                "make the args function build its arguments from the stage_config it is given (its mesh and "
                "devices), not from the devices this process happens to see."
            ) from None


def _first_line(exc: BaseException) -> str:
    """An exception's message up to its first blank line (JAX appends paragraphs of traceback advice)."""
    text = str(exc).strip()
    return " ".join(text.split("\n\n")[0].split()) or "(no message)"


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
    fn: Callable[..., object] | None = None,
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
    line = caller.f_lineno if caller is not None else 0
    namespace = caller.f_globals if caller is not None else {}
    module = str(namespace.get("__name__", ""))
    del caller

    def record(function: Callable[..., object]) -> Callable[..., Any]:
        own = str(getattr(function, "__name__", type(function).__name__))
        chosen = name if isinstance(name, str) and name else own
        problem = options_problem(function, args, name=name, configs=configs, budget=budget, jit=jit)
        namespace.setdefault(ATTRIBUTE, []).append(
            Registration(
                fn=function,
                args=args,
                name=chosen,
                configs=tuple(configs) if isinstance(configs, list | tuple) else None,
                budget=dict(budget) if isinstance(budget, dict) else {},
                jit=dict(jit) if isinstance(jit, dict) else {},
                origin=origin,
                module=module,
                line=line,
                problem=f"register({chosen!r}) at {Path(origin).name}:{line}: {problem}" if problem else "",
            )
        )
        return function

    return record(fn) if fn is not None else record


def options_problem(fn: object, args: object, *, name: object, configs: object, budget: object, jit: object) -> str:
    """What is wrong with the options of one ``register`` call, as the end of a sentence ("" when nothing).

    Checked when ``register`` is called but reported by the registration's items, so a conftest.py
    with one bad call still imports and the session's other tests run.
    """
    return _call_problem(fn, args, name) or _selection_problem(configs, budget, jit)


def _call_problem(fn: object, args: object, name: object) -> str:
    """What is wrong with what ``register`` calls: the function, its test name and its arguments ("" when nothing)."""
    if not callable(fn):
        return f"the registered function is a {type(fn).__name__}, not a callable; register a function."
    if name is not None and (not isinstance(name, str) or not name):
        return f"name={name!r} must be a non-empty string (it names the test and its snapshot folder)."
    if not callable(args) and not isinstance(args, tuple | list):
        return (
            f"args={type(args).__name__} must be a tuple of the function's arguments or a function of the "
            "stage_config returning that tuple."
        )
    return ""


def _selection_problem(configs: object, budget: object, jit: object) -> str:
    """What is wrong with ``configs``, ``budget`` and ``jit``: where and how it is staged ("" when nothing)."""
    if configs is not None and (
        not isinstance(configs, list | tuple) or not all(isinstance(c, str) and c for c in configs)
    ):
        return f'configs={configs!r} must be a list of config names, e.g. configs=["cpu8"].'
    for option, value in (("budget", budget), ("jit", jit)):
        if value is not None and (not isinstance(value, dict) or not all(isinstance(k, str) for k in value)):
            return f"{option}={value!r} must be a dict with string keys, e.g. {option}={_EXAMPLES[option]}."
    return ""


_EXAMPLES = {"budget": '{"flops": 1e9}', "jit": '{"donate_argnums": 0}'}
