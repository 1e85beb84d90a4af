"""Staging adapters: how to trace and lower a function, chosen by what the function is.

Framework functions are staged the way their framework runs them (docs/frameworks.md), anything else is
``jax.jit``-ed; each adapter names the inputs and outputs by the framework's own leaf paths.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_stages.core.lazy import lazy_module
from pytest_stages.stage.errors import Unsupported

if TYPE_CHECKING:
    import equinox
    import jax
    from flax import linen, nnx
    from flax.nnx.transforms import compilation as nnx_compilation
else:
    equinox = lazy_module("equinox")
    jax = lazy_module("jax")
    linen = lazy_module("flax.linen")
    nnx = lazy_module("flax.nnx")
    nnx_compilation = lazy_module("flax.nnx.transforms.compilation")

# Framework objects (flax.nnx, linen, equinox functions) stay untyped: those packages are optional extras
# that mypy does not see here; JAX's own objects are typed by their public classes (jax.stages).
NamedLeaves = list[tuple[str, object]]
# The name of what a staged function returns; its leaves add their paths: ``output[0]``.
OUTPUT = "output"
# equinox.filter_jit's own output beside the returned value (a scalar its runtime checks wait on).
EQUINOX_MARKER = "(equinox marker)"


@dataclass
class Adapter:
    """How one function is staged: trace and lower it, name its inputs.

    ``trace`` returns JAX's ``Traced`` (None where the framework has none); ``lower`` takes it and the
    foreign lowering platforms; ``user_leaves``/``user_outputs`` name the leaves (None: JAX's own paths).
    """

    kind: str
    fn: Callable[..., object]
    trace: Callable[[], jax.stages.Traced | None]
    lower: Callable[[jax.stages.Traced | None, tuple[str, ...] | None], jax.stages.Lowered]
    jaxpr: Callable[[jax.stages.Traced | None], jax.extend.core.ClosedJaxpr] = lambda traced: _traced(traced).jaxpr
    user_leaves: Callable[[], NamedLeaves] | None = None
    user_outputs: Callable[[object, object, object, dict[tuple[str, ...], tuple[str, object]]], NamedLeaves] | None = (
        None
    )

    def named_leaves(self, tree: object) -> NamedLeaves:
        """Leaves of an ``(args, kwargs)`` tree of JAX's (shardings, formats, ``ArgInfo``), named.

        The framework's names are used when they line up with JAX's leaves one for one (same
        count, shapes and dtypes where known); otherwise JAX's own paths name them.
        """
        leaves = jax.tree_util.tree_leaves(tree)
        if self.user_leaves is not None:
            named = self.user_leaves()
            if len(named) == len(leaves) and all(map(_same_shape, named, leaves)):
                return [(name, leaf) for (name, _), leaf in zip(named, leaves, strict=True)]
        return signature_leaves(self.fn, tree)

    def named_outputs(self, tree: object, args_info: object, out_info: object) -> NamedLeaves:
        """Leaves of JAX's output tree (shardings, formats), named as the function returns them.

        ``args_info`` and ``out_info`` are the ``Lowered``'s: a framework's adapter names the
        state it hands back for an argument as that argument's input leaf at the same place.
        """
        if self.user_outputs is None:
            return returned_leaves(tree)
        paths = [tuple(map(str, path)) for path, _ in jax.tree_util.tree_flatten_with_path(args_info)[0]]
        inputs = {path: named for path, named in zip(paths, self.named_leaves(args_info), strict=True)}
        return self.user_outputs(tree, out_info, args_info, inputs)


def adapt(  # noqa: PLR0911  (one return per kind of callable, in the order they must be told apart)
    fn: Callable[..., object], args: tuple[object, ...], kwargs: Mapping[str, object], *, static_scalars: bool
) -> Adapter:
    """The adapter for ``fn`` called with ``args``/``kwargs``."""
    module = _framework(fn)
    if module == "flax" and _is_nnx_jit(fn):
        return _nnx_jit(fn, args, kwargs)
    if module == "equinox" and callable(getattr(fn, "lower", None)):
        return _equinox_jit(fn, args, kwargs)
    if callable(getattr(fn, "trace", None)) and callable(getattr(fn, "lower", None)):
        return _jax_jit(fn, fn, args, kwargs)
    if module == "flax" and _is_linen_apply(fn):
        return _static_leaves_jit("linen", fn, args, kwargs, static_scalars=static_scalars)
    if module == "haiku":
        return _static_leaves_jit("haiku", fn, args, kwargs, static_scalars=static_scalars)
    if static_scalars:
        return _static_leaves_jit("callable", fn, args, kwargs, static_scalars=static_scalars, framework=False)
    return _jax_jit(fn, jax.jit(fn), args, kwargs)


def _framework(fn: Callable[..., object]) -> str:
    """The top-level package ``fn`` (or its type, or its bound object) comes from."""
    for origin in (fn, type(fn), getattr(fn, "__self__", None)):
        name = getattr(origin, "__module__", None) or type(origin).__module__
        if isinstance(name, str):
            top = name.split(".", 1)[0]
            if top in ("flax", "equinox", "haiku") and top in sys.modules:
                return top
    return ""


def _is_nnx_jit(fn: object) -> bool:
    return isinstance(fn, nnx_compilation.JitWrapped)


def _is_linen_apply(fn: object) -> bool:
    return isinstance(getattr(fn, "__self__", None), linen.Module) and getattr(fn, "__name__", "") == "apply"


def _traced(traced: jax.stages.Traced | None) -> jax.stages.Traced:
    if traced is None:
        raise TypeError("this adapter's trace step gave no jax.stages.Traced")
    return traced


def _lower_jax(traced: jax.stages.Traced | None, platforms: tuple[str, ...] | None) -> jax.stages.Lowered:
    lowered: jax.stages.Lowered = _traced(traced).lower(lowering_platforms=platforms)
    return lowered


def _jax_jit(fn: Callable[..., object], jitted: Any, args: tuple[object, ...], kwargs: Mapping[str, object]) -> Adapter:
    return Adapter("jax.jit", fn, trace=lambda: jitted.trace(*args, **kwargs), lower=_lower_jax)


def _nnx_jit(fn: Any, args: tuple[object, ...], kwargs: Mapping[str, object]) -> Adapter:
    """``flax.nnx.jit``: flax's ``Traced`` holds JAX's at ``.traced``; graph state names its leaves."""
    return Adapter(
        "flax.nnx.jit",
        fn,
        trace=lambda: fn.trace(*args, **kwargs).traced,
        lower=_lower_jax,
        user_leaves=lambda: _nnx_leaves(fn, args, kwargs),
        user_outputs=_nnx_outputs,
    )


def _nnx_leaves(fn: Any, args: tuple[object, ...], kwargs: Mapping[str, object]) -> NamedLeaves:
    def leaves(name: str, value: object) -> NamedLeaves:
        if nnx.graph.is_graph_node(value):
            return [
                (".".join([name, *map(str, path)]), variable.get_value())
                for path, variable in nnx.to_flat_state(nnx.state(value))
            ]
        return _path_leaves(name, value)

    names = argument_names(getattr(fn, "fun", fn), len(args))
    static = _nnx_static(fn, len(args))
    named = [
        leaf for position, arg in enumerate(args) if position not in static for leaf in leaves(names[position], arg)
    ]
    return named + [leaf for key in sorted(kwargs) for leaf in leaves(key, kwargs[key])]


def _nnx_static(fn: object, count: int) -> set[int]:
    """Positions of an ``nnx.jit``'s static arguments: they are no inputs of JAX's, so they name no leaf.

    flax keeps ``static_argnums`` as given (an int, a sequence of them, or None), but not
    ``static_argnames``: a static keyword argument adds leaves JAX does not have, and the count
    check of :meth:`Adapter.named_leaves` then names the inputs by JAX's paths instead.
    """
    numbers = getattr(fn, "static_argnums", None)
    numbers = (numbers,) if isinstance(numbers, int) else tuple(numbers or ())
    return {n % count for n in numbers if isinstance(n, int) and -count <= n < count}


def _nnx_outputs(
    tree: object, out_info: object, args_info: Any, inputs: dict[tuple[str, ...], tuple[str, object]]
) -> NamedLeaves:
    """flax's jit returns ``(args, kwargs, returned)``: the arguments' state after the call, then the value.

    An argument's state leaves take its input names (``model.l1.kernel``) when they line up with
    its input leaves (same places in the state, shapes and dtypes); otherwise, and for the
    returned value, they are named by their paths in the output tree. With static arguments the
    state has a place per argument and the inputs one per dynamic argument: nothing is mirrored.
    """
    if not (isinstance(tree, tuple) and len(tree) == 3):
        return returned_leaves(tree)
    flat = jax.tree_util.tree_flatten_with_path(tree)[0]
    infos = jax.tree_util.tree_leaves(out_info)
    places = [tuple(map(str, path)) for path, _ in flat]
    owners: dict[tuple[str, ...], list[tuple[tuple[str, ...], object]]] = {}
    for place, info in zip(places, infos, strict=True):
        if place[0] != "[2]":
            owners.setdefault(place[:2], []).append((place, info))
    same_places = isinstance(tree[0], tuple) and len(tree[0]) == len(args_info[0])
    mirrored = {owner for owner, leaves in owners.items() if same_places and _lines_up(owner, leaves, inputs)}
    named = []
    for (path, leaf), place in zip(flat, places, strict=True):
        if place[0] == "[2]":
            named.append((OUTPUT + jax.tree_util.keystr(path[1:]), leaf))
        elif place[:2] in mirrored:
            named.append((inputs[place][0], leaf))
        else:
            named.append((OUTPUT + jax.tree_util.keystr(path), leaf))
    return named


def _lines_up(
    owner: tuple[str, ...],
    leaves: list[tuple[tuple[str, ...], object]],
    inputs: dict[tuple[str, ...], tuple[str, object]],
) -> bool:
    """Whether an argument's output state leaves sit where its input leaves do, with their shapes and dtypes."""
    places = [place for place in inputs if place[:2] == owner]
    return places == [place for place, _ in leaves] and all(_same_shape(inputs[place], info) for place, info in leaves)


def _equinox_jit(fn: Any, args: tuple[object, ...], kwargs: Mapping[str, object]) -> Adapter:
    """``equinox.filter_jit``: lowered through its own ``.lower`` (its partition kept).

    It has no ``.trace``: the jaxpr comes from ``equinox.filter_make_jaxpr`` of the wrapped
    function, and it cannot lower for a platform that is not attached.
    """

    def lower(_: object, platforms: tuple[str, ...] | None) -> jax.stages.Lowered:
        if platforms is not None:
            raise Unsupported(
                f"equinox.filter_jit has no lowering_platforms, so it cannot be lowered for "
                f"{platforms[0]!r}, which is not attached; narrow this test to attached configs "
                "with @pytest.mark.stages(configs=[...])"
            )
        lowered: jax.stages.Lowered = fn.lower(*args, **kwargs).lowered
        return lowered

    return Adapter(
        "equinox.filter_jit",
        fn,
        trace=lambda: None,
        lower=lower,
        jaxpr=lambda _: equinox.filter_make_jaxpr(fn.__wrapped__)(*args, **kwargs)[0],
        user_leaves=lambda: _equinox_leaves(fn, args, kwargs),
        user_outputs=lambda tree, _out_info, _args_info, _inputs: _equinox_outputs(tree),
    )


def _equinox_outputs(tree: object) -> NamedLeaves:
    """filter_jit returns ``(marker, arrays, static)``: its marker, then the returned value's arrays."""
    if not (isinstance(tree, tuple) and len(tree) == 3):
        return returned_leaves(tree)
    marker, arrays, _static = tree
    return [(EQUINOX_MARKER, leaf) for _, leaf in returned_leaves(marker)] + returned_leaves(arrays)


def _equinox_leaves(fn: Any, args: tuple[object, ...], kwargs: Mapping[str, object]) -> NamedLeaves:
    """Array leaves in filter_jit's order: donated groups first; each of first arg, function, rest."""
    wrapped = fn.__wrapped__
    bound = inspect.signature(wrapped).bind(*args, **kwargs)
    names = argument_names(wrapped, len(bound.args))

    def arrays(name: str, value: object) -> NamedLeaves:
        return [(n, leaf) for n, leaf in _path_leaves(name, value) if equinox.is_array(leaf)]

    first = arrays(names[0], bound.args[0]) if bound.args else []
    rest = [leaf for i, arg in enumerate(bound.args[1:], 1) for leaf in arrays(names[i], arg)]
    rest += [leaf for key in sorted(bound.kwargs) for leaf in arrays(key, bound.kwargs[key])]
    function = arrays("fn", wrapped)
    groups = {"first": first, "fun": function, "rest": rest}
    donated = {"first": fn.donate_first, "fun": fn.donate_rest, "rest": fn.donate_rest}
    order = [key for key in groups if donated[key]] + [key for key in groups if not donated[key]]
    return [leaf for key in order for leaf in groups[key]]


def _static_leaves_jit(
    kind: str,
    fn: Callable[..., object],
    args: tuple[object, ...],
    kwargs: Mapping[str, object],
    *,
    static_scalars: bool,
    framework: bool = True,
) -> Adapter:
    """``jax.jit`` over the array arguments; the others (flags, names, settings) are baked in.

    Linen ``apply(variables, x, train=False, mutable=[...])`` and haiku ``apply(params, rng,
    x, is_training=True)`` take Python flags that must stay static. Without ``framework`` (a
    plain callable under ``static_scalars``) only top-level Python scalars are baked in.
    """

    def is_static(value: object) -> bool:
        if is_python_scalar(value):
            return static_scalars or (framework and type(value) is bool)
        leaves = jax.tree_util.tree_leaves(value)
        return framework and bool(leaves) and not all(_array_like(leaf) for leaf in leaves)

    names = _linen_names(fn, len(args)) if kind == "linen" else argument_names(fn, len(args))
    dynamic_positions = [i for i, a in enumerate(args) if not is_static(a)]
    dynamic_keys = sorted(k for k, v in kwargs.items() if not is_static(v))

    @functools.wraps(fn)
    def call(*dynamic: object, **dynamic_kwargs: object) -> object:
        merged = list(args)
        for position, value in zip(dynamic_positions, dynamic, strict=True):
            merged[position] = value
        return fn(*merged, **{**kwargs, **dynamic_kwargs})

    jitted = jax.jit(call)
    dynamic_args = tuple(args[i] for i in dynamic_positions)
    dynamic_kwargs = {k: kwargs[k] for k in dynamic_keys}

    def user_leaves() -> NamedLeaves:
        named = [leaf for i in dynamic_positions for leaf in _path_leaves(names[i], args[i])]
        return named + [leaf for key in dynamic_keys for leaf in _path_leaves(key, kwargs[key])]

    return Adapter(
        kind,
        fn,
        trace=lambda: jitted.trace(*dynamic_args, **dynamic_kwargs),
        lower=_lower_jax,
        user_leaves=user_leaves,
    )


def _linen_names(apply: Any, count: int) -> list[str]:
    """``variables``, then the names ``Module.__call__`` gives the arguments after it."""
    return ["variables", *argument_names(apply.__self__.__call__, count - 1)][:count]


def is_python_scalar(value: object) -> bool:
    """A Python ``bool``, ``int``, ``float`` or ``complex`` (JAX traces them weakly typed)."""
    return type(value) in (bool, int, float, complex)


def _same_shape(named: tuple[str, Any], leaf: Any) -> bool:
    """Whether a named user leaf and JAX's leaf agree in shape and dtype, where both have them."""
    user = named[1]
    if not (hasattr(leaf, "shape") and hasattr(user, "shape")):
        return True
    return tuple(leaf.shape) == tuple(user.shape) and str(leaf.dtype) == str(user.dtype)


def _array_like(leaf: object) -> bool:
    return (
        isinstance(leaf, jax.ShapeDtypeStruct)
        or (hasattr(leaf, "shape") and hasattr(leaf, "dtype"))
        or (type(leaf) in (int, float, complex))
    )


def returned_leaves(tree: object) -> NamedLeaves:
    """Leaves of an output tree named by their paths in it: ``output``, ``output[0]``, ``output['grads']['w']``."""
    return _path_leaves(OUTPUT, tree)


def _path_leaves(name: str, value: object) -> NamedLeaves:
    return [(name + jax.tree_util.keystr(path), leaf) for path, leaf in jax.tree_util.tree_flatten_with_path(value)[0]]


def _static_argnums(fn: Callable[..., object], dynamic: int) -> set[int]:
    """Positions of a ``jax.jit``'s static arguments, given how many dynamic ones JAX kept.

    Read from the jitted function's ``_jit_info``, which is private to JAX, so defensively:
    without it every position counts as dynamic.
    """
    numbers = getattr(getattr(fn, "_jit_info", None), "static_argnums", ())
    if not isinstance(numbers, tuple) or not all(isinstance(n, int) for n in numbers):
        return set()
    total = dynamic + len(numbers)
    return {n % total for n in numbers if -total <= n < total}


def argument_names(fn: Callable[..., object], count: int) -> list[str]:
    """Names of the first ``count`` positional arguments, from the signature where it has them."""
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    names = []
    for index in range(count):
        if index < len(parameters) and parameters[index].kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            names.append(parameters[index].name)
        else:
            names.append(f"args[{index}]")
    return names


def signature_leaves(fn: Callable[..., object], tree: Any) -> NamedLeaves:
    """Leaves of an ``(args, kwargs)`` tree, named ``x``, ``params[0][1]``, ``scale`` ...

    JAX's trees hold the dynamic arguments only: the static ones of a ``jax.jit`` are skipped
    when naming (``jit(f, static_argnums=0)`` of ``f(n, x)`` has one input, ``x``).
    """
    args, kwargs = tree
    static = _static_argnums(fn, len(args))
    names = [name for index, name in enumerate(argument_names(fn, len(args) + len(static))) if index not in static]
    named = [leaf for position, arg in enumerate(args) for leaf in _path_leaves(names[position], arg)]
    return named + [leaf for key in sorted(kwargs) for leaf in _path_leaves(key, kwargs[key])]
