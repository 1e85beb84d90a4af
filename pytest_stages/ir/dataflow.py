"""Stage texts as dataflow graphs: each block's independent operations put in a canonical order.

Two lines of model code swapped print the same graph in another order; :func:`reordered` sorts each
block's movable operations by a structural (Merkle) hash, blind to names and order, so that
:func:`pytest_stages.ir.renaming.equivalent` compares the program, not its order (docs/architecture.md,
"Independent operations in a canonical order").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pytest_stages.ir import state_rewrite
from pytest_stages.ir.hlo_state import hlo_plan
from pytest_stages.ir.jaxpr_state import jaxpr_plan
from pytest_stages.ir.mlir_state import mlir_plan
from pytest_stages.ir.state_rewrite import Plan


@dataclass(frozen=True)
class Order:
    """What may move in one dialect: units whose first line is ``movable`` and whose text has no ``effects``,
    and ``blocks`` (computations, functions: their place among their siblings never matters). A ``glued``
    line continues the unit before it (a region's label, a closing brace, a blank line). ``callers_first``:
    a block may be called above its definition (StableHLO's ``@main`` first), so blocks are read callees
    first, and each call knows its callee's hash and whether it has a side effect. ``continued``: a line
    indented deeper than its unit's first line continues it (a jaxpr eqn's outputs or operands wrapped
    over lines), and ``movable`` is matched on the unit's lines joined. ``commutative``: a one-line operation
    whose two operands may be swapped, as (head, operand, operand, tail). ``refs``: a one-line read
    (groups ``read`` and ``ref``) or write (group ``written``) of one Ref: it moves among the movable units,
    but keeps its order with the other reads and writes of its Ref (distinct Refs never alias: JAX refuses
    one Ref passed twice). ``sources``: a one-line operation that reads nothing and has no side effect
    (compiled HLO's ``parameter(k)``, which XLA's TPU scheduler places anywhere before its first use): it
    moves past fixed units too, to the front of its block."""

    movable: re.Pattern[str]
    glued: re.Pattern[str]
    effects: Callable[[str], bool]
    blocks: re.Pattern[str]
    callers_first: bool = False
    continued: bool = False
    commutative: re.Pattern[str] | None = None
    refs: re.Pattern[str] | None = None
    sources: re.Pattern[str] | None = None


def _any_of(*needles: str) -> Callable[[str], bool]:
    """Whether a text holds any of ``needles``: one substring search each."""
    return lambda text: any(needle in text for needle in needles)


def _search(pattern: str) -> Callable[[str], bool]:
    return lambda text, found=re.compile(pattern).search: found(text) is not None  # type: ignore[misc]


# HLO opcodes whose order is part of the program (besides every async half, "-start", "-done", "-update").
HLO_EFFECTS = (
    "custom-call",
    "send",
    "recv",
    "infeed",
    "outfeed",
    "rng",
    "rng-get-and-update-state",
    "after-all",
    "add-dependency",
    "all-reduce",
    "all-gather",
    "reduce-scatter",
    "all-to-all",
    "ragged-all-to-all",
    "collective-permute",
    "collective-broadcast",
    "partition-id",
    "replica-id",
    "domain",
    "opt-barrier",
    "optimization-barrier",
)
# A computation's parameter: "  %tokens.1 = s32[8,32]{1,0:T(8,128)} parameter(57)" (a sharding or metadata may follow).
HLO_SOURCE = re.compile(r"[ \t]++%?[\w.\-]++ = [^=]*? parameter\(\d++\)(?:, |$)")
ORDERS = {
    "hlo": Order(
        # an instruction ("  ROOT %t.2 = ...", lowered "  add.3 = ..."), or a computation's header
        movable=re.compile(r"[ \t]*+(?:ROOT[ \t]+)?%?[\w.\-]++ = |(?:ENTRY[ \t]+)?%?[\w.\-]++ \("),
        glued=re.compile(r"[ \t]*+(?:\}|$)"),
        # side effects, tokens, collectives and every async half ("all-gather-start(", "copy-done(")
        effects=_any_of(
            *(f" {opcode}(" for opcode in HLO_EFFECTS),
            "-start(",
            "-done(",
            "-update(",
            "control-predecessors=",
        ),
        blocks=re.compile(r"(?:ENTRY[ \t]+)?%?[\w.\-]++ \("),
        commutative=re.compile(
            r"([ \t]*+(?:ROOT[ \t]+)?%?[\w.\-]++ = \S++ (?:add|multiply|and|or|xor)\()"
            r"(%?[\w.\-]++), (%?[\w.\-]++)(\).*)$"
        ),
        sources=HLO_SOURCE,
    ),
    "mlir": Order(
        movable=re.compile(r"[ \t]*+(?:%[^=\n]+ = (?:\"?[a-z_]+\.|call @)|func\.func |sdy\.mesh )"),
        glued=re.compile(r"[ \t]*+(?:\}|\^|\w+ \{$|$)"),
        effects=_search(
            r"\b(?:stablehlo|mhlo)\.(?:custom_call|send|recv|infeed|outfeed|rng|all_reduce|all_gather|all_to_all|"
            r"reduce_scatter|collective_permute|collective_broadcast|after_all|create_token|partition_id|replica_id|"
            r"optimization_barrier)\b|token|call @\""
        ),
        blocks=re.compile(r"[ \t]*+func\.func "),
        callers_first=True,
        # the pretty form only (one type for operands and result): the generic form types each operand
        commutative=re.compile(
            r"([ \t]*+%[\w$\-]++ = stablehlo\.(?:add|multiply|and|or|xor) )"
            r"(%[\w$\-]++(?:#\d+)?), (%[\w$\-]++(?:#\d+)?)( : [^(].*)$"
        ),
    ),
    "jaxpr": Order(
        movable=re.compile(r"[ \t]*+(?:[a-z_]+:\S+\s+)+=[ \t]"),
        # "in (" ends a jaxpr; "in:f32[8] = ..." defines a variable JAX happened to name "in"
        glued=re.compile(r"[ \t]*+(?:in\b(?!:)|[\]\)\}]|$)"),
        effects=_search(
            r"callback|print|infeed|outfeed|token|effect|\bget\b|\bswap\b|addupdate|<-|mutable|\bref|"
            r"rng_uniform|random_seed|barrier"
        ),
        blocks=re.compile(r"(?!)"),
        continued=True,
        # an operand is a variable or a literal ("mul 0.5:f32[] a")
        commutative=re.compile(r"([ \t]*+[a-z_]+:\S+ = (?:add|add_any|mul|and|or|xor|eq|ne) )(\S+) (\S+)()$"),
        # "e:f32[3] <- a[...]" reads Ref a; "a[0:2,i] <- v" and "a[0] += v" write it (a Ref indexed only:
        # a tuple of Refs, a bitcast or a swap that returns the old value stays in place)
        refs=re.compile(
            r"[ \t]*+(?:(?P<read>[a-z]+:\S+ <- )(?P<ref>[a-z]+)(?:\[[^\]\n]*\])+"
            r"|(?P<written>[a-z]+)(?:\[[^\]\n]*\])+ (?:<-|\+=) \S+)$"
        ),
    ),
}
# A function's name as StableHLO defines it ("func.func private @inner(") and calls it ("call @inner(").
_CALLEE = re.compile(r"@[\w$\-]+")
# A quoted string on one line (an HLO backend_config's JSON, a jaxpr's name, an MLIR attribute's value): its
# brackets do not count.
QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')
# Each bracket as "(" (opens) or ")" (closes), every other character but the newline dropped.
_BRACKETS = str.maketrans(
    {**{chr(c): None for c in range(128) if chr(c) not in "()[]{}\n"}, "[": "(", "{": "(", "]": ")", "}": ")"}
)
# What splits an indented line of compiled HLO into its names: every name there is written "%name".
PERCENT_SPLIT = re.compile(r"%([\w.\-]++)")


# Each dialect's rewrite of its loop and call state (docs/architecture.md, "Loop and call state in a canonical order").
_PLANNERS: dict[str, Callable[[str], Plan | None]] = {"hlo": hlo_plan, "mlir": mlir_plan, "jaxpr": jaxpr_plan}


def state_plan(dialect: str, text: str) -> Plan | None:
    """The rewrite that puts ``text``'s loop and call state (captured in the order model code reads it) in a
    canonical order, keyed by the hashes :func:`reordered` gives the values passed in; None where it has none."""
    finder = _PLANNERS.get(dialect)
    return finder(text) if finder is not None else None


def reordered(
    dialect: str,
    text: str,
    split: re.Pattern[str],
    defined: Callable[[str], Sequence[str]],
    key: Callable[[str], str],
    *,
    common: tuple[int, int] = (0, 0),
) -> str | None:
    """``text`` with each block's movable operations in canonical order; None for a dialect without one.

    ``split`` keeps a text's name tokens at odd positions, spelled as keys; ``defined`` finds the
    names a text defines and ``key`` spells one as a key (:class:`pytest_stages.ir.renaming.Naming`).
    ``common``: how many leading and trailing lines ``text`` shares with the text it is compared
    with. A unit wholly inside them is the same in both texts and stays where it is, its names
    read as themselves, so that the cost follows the lines that differ.
    """
    order = ORDERS.get(dialect)
    if order is None:
        return None
    state = state_plan(dialect, text)
    if state is not None:  # where the text changes, the lines it shares with the other text may not
        common = (0, 0)
    if state is not None and not state.wanted:  # a rewrite that reads no hashes (fusions' operands) is made at once
        text, state = state.apply({}), None
    # Each pass puts in their final order the lists whose keys no list still out of order feeds (a
    # loop's state, then the loops and calls inside and after it): one pass per list and one more
    # reach the order that depends on the program alone, not on the order the text came in.
    for _ in range(state.lists + 1 if state is not None else 1):
        wanted = state.wanted if state is not None else set()
        graph = _Graph(dialect, order, text, (split, defined, key), common, wanted=wanted)
        out = "\n".join(graph.level(text.split("\n"), 0)[0])
        if state is None:
            break
        rewritten = state.apply(graph.probes)
        if rewritten == text:
            break
        text, state = rewritten, state_plan(dialect, rewritten)
    return out


class _Graph:
    """One pass over a text: the hashes of the values seen so far, and the blocks (computations, functions)
    that have a side effect. ``naming``: the text's split, defined and key (:func:`reordered`'s); ``wanted``:
    the lines whose names' hashes a loop's rewrite reads (:func:`state_plan`), kept in :attr:`probes`."""

    def __init__(
        self,
        dialect: str,
        order: Order,
        text: str,
        naming: tuple[re.Pattern[str], Callable[[str], Sequence[str]], Callable[[str], str]],
        common: tuple[int, int],
        *,
        wanted: set[int],
    ) -> None:
        split, self.defined, self.key = naming
        self.order, self.wanted = order, wanted
        # the pattern for indented lines (a block's instructions), and for the others: compiled HLO (headers
        # "%name (" or "ENTRY %name (") writes every name of an instruction line with "%"
        header = next((line for line in text.split("\n") if order.blocks.match(line)), "")
        fast = dialect == "hlo" and header.startswith(("%", "ENTRY %"))
        self.splits = (PERCENT_SPLIT if fast else split, split)
        # name -> the hash of what defines it; a name not (yet) seen reads as itself
        self.hashes: dict[str, str] = {}
        self.effectful: set[str] = set()
        # a jaxpr's eqns that call a shared ``let name = { lambda ...`` with a side effect (``jaxpr=name``)
        self.calls = _effectful_jaxprs(text, order.effects) if dialect == "jaxpr" else None
        # how many brackets each line of the text leaves open
        self.nets = [b.count("(") - b.count(")") for b in QUOTED.sub("", text).translate(_BRACKETS).split("\n")]
        # lines before the first and from the second index on are the same in both texts
        self.same = (common[0], text.count("\n") + 1 - common[1])
        self.probes: dict[int, dict[str, str]] = {}
        # in the block being read: the names a pure operation's first copy defines, by its hash, and the
        # names of its later copies, each read as the first copy's (docs/architecture.md)
        self.copies: dict[str, list[str]] = {}
        self.aliases: dict[str, str] = {}
        # a block's name by its hash, and the names of the later blocks that hash as it, each read as the first's
        self.blocks: dict[str, str] = {}
        self.block_aliases: dict[str, str] = {}

    def level(self, lines: Sequence[str], offset: int, *, shared: bool = True) -> tuple[list[str], list[str], bool]:
        """``lines`` (a block's inside, from line ``offset`` of the text) with every run of movable units
        between fixed ones sorted by hash; the units' hashes in that order, and whether no unit has a
        side effect. ``shared``: a unit in the lines both texts share is read as itself (not inside a
        unit that may move, whose hash must not depend on where it is)."""
        units = self.units(lines, offset)
        outer, self.copies, self.aliases = (self.copies, self.aliases), {}, {}
        done, same, pure_level = self.hash_units(units, offset, shared=shared)
        self.copies, self.aliases = outer
        sources = self.order.sources
        front = [k for k, unit in enumerate(units) if sources and len(unit) == 1 and sources.match(unit[0])]
        out, digests = _sorted_runs(done, len(units), [k for k in front if done[k][2]])
        return out, digests, pure_level and not self.has_effect("\n".join(same))

    def hash_units(
        self, units: Sequence[list[str]], offset: int, *, shared: bool
    ) -> tuple[dict[int, _Done], list[str], bool]:
        """Per unit (by index, callees first where the order says so): its hash, its lines as rewritten,
        and whether it may move (a block, or a pure movable operation), with its Ref and rank if it reads
        or writes one; the lines of the units read as themselves (``shared``, see :meth:`level`), and
        whether no other unit has a side effect."""
        starts = list(itertools.accumulate((len(unit) for unit in units), initial=offset))
        done: dict[int, _Done] = {}
        same: list[str] = []
        pure_level = True
        writes: dict[str, int] = {}
        for index in self.callees_first(units) if self.order.callers_first else range(len(units)):
            found, first, stop = units[index], starts[index], starts[index + 1]
            if shared and (stop <= self.same[0] or first >= self.same[1]):
                done[index] = self.same_unit(found), found, False, None
                same += found
                continue
            digest, unit, movable, pure = self.hash_unit(found, first, shared=shared)
            pure_level = pure_level and pure
            done[index] = digest, unit, movable, self.ref_access(found, digest, writes)
        return done, same, pure_level

    def hash_unit(self, found: list[str], first: int, *, shared: bool) -> tuple[str, list[str], bool, bool]:
        """A unit's hash, its lines as rewritten, whether it may move (a block, or a movable operation
        without a side effect), and whether it has no side effect. A unit that may move reads no shared
        lines as themselves. A pure operation that hashes as one before it in the block is a copy of
        it: the later operations read the first copy's names for its names."""
        head = "\n".join(found) if self.order.continued and len(found) > 1 else found[0]
        operation = self.order.movable.match(head) is not None
        block = self.order.blocks.match(found[0]) is not None
        digest, unit, pure, defs = self.unit(found, first, shared=shared and not (operation or block))
        if block and defs:
            named = self.blocks.setdefault(digest, defs[0])
            if named != defs[0]:
                self.block_aliases[defs[0]] = named
        elif operation and pure:
            copied = self.copies.setdefault(digest, defs)
            if copied is not defs and len(copied) == len(defs):
                self.aliases.update(zip(defs, copied, strict=True))
        return digest, unit, block or (operation and pure), pure

    def ref_access(self, found: list[str], digest: str, writes: dict[str, int]) -> tuple[str, int] | None:
        """A unit that reads or writes one Ref (``refs``): the Ref's key and the unit's rank among its
        accesses (``2w`` for a read after ``w`` writes, ``2w + 1`` for the write after them), else None.
        A write gives the Ref a new hash, so that what reads or writes it after depends on it."""
        found_ref = self.order.refs.match(found[0]) if self.order.refs is not None and len(found) == 1 else None
        if found_ref is None:
            return None
        ref = self.key(found_ref["ref"] or found_ref["written"])
        count = writes.get(ref, 0)
        if found_ref["read"]:
            return ref, 2 * count
        writes[ref] = count + 1
        self.hashes[ref] = f"{digest}\0ref"
        return ref, 2 * count + 1

    def callees_first(self, units: Sequence[list[str]]) -> list[int]:
        """The indexes of ``units``, each block after the blocks it calls (``@name``) among them, so that
        a call reads its callee's hash and side effect; else in order. A cycle is cut where it closes."""
        blocks: dict[str, int] = {}
        for index, unit in enumerate(units):
            if self.order.blocks.match(unit[0]) is not None:
                blocks.update(dict.fromkeys(_CALLEE.findall(unit[0])[:1], index))
        if not blocks:
            return list(range(len(units)))
        ordered: list[int] = []
        seen: set[int] = set()
        for root in range(len(units)):
            stack = [(root, False)]
            while stack:
                index, expanded = stack.pop()
                if expanded:
                    ordered.append(index)
                    continue
                if index in seen:
                    continue
                seen.add(index)
                stack.append((index, True))
                called = {blocks[name] for name in _CALLEE.findall("\n".join(units[index])) if name in blocks}
                stack += ((callee, False) for callee in sorted(called) if callee not in seen)
        return ordered

    def units(self, lines: Sequence[str], offset: int) -> list[list[str]]:
        """``lines`` cut into units: a line and the lines its open brackets hold; a glued line (or, where lines
        are ``continued``, a line indented deeper than the unit's first) joins the unit before."""
        units: list[list[str]] = []
        depth = 0
        glued = self.order.glued.match
        continued = self.order.continued
        for line, net in zip(lines, self.nets[offset : offset + len(lines)], strict=True):
            depth = max(depth, 0)
            if depth > 0 or (units and (glued(line) is not None or (continued and _deeper(line, units[-1][0])))):
                units[-1].append(line)
            else:
                units.append([line])
            depth += net
        return units

    def has_effect(self, text: str) -> bool:
        """Whether ``text`` has a side effect, or calls a block (a shared jaxpr) found to have one."""
        if not self._own_pure(text):
            return True
        return bool(self.effectful) and not self.effectful.isdisjoint(self.splits[1].split(text)[1::2])

    def same_unit(self, lines: list[str]) -> str:
        """The hash of a unit the two texts share where it is: of its text, its names read as themselves.

        A block with a side effect inside makes its callers keep their place.
        """
        if len(lines) > 1 and self.has_effect("\n".join(lines)):
            self.effectful.update(map(self.key, self.defined(lines[0])[:1]))
        return state_rewrite.digest(lines)

    def unit(self, lines: list[str], offset: int, *, shared: bool) -> tuple[str, list[str], bool, list[str]]:
        """A unit's hash, its lines with every block inside reordered, whether it has no side effect
        (``shared``: as :meth:`level`'s, for the blocks inside), and the names its own lines define.
        A name on its own lines that a copy of a value defines reads as the first copy's.

        The hash is that of its own lines, each name it defines written as its index among them and
        each name it reads as the hash of what defines that, then of its blocks' units in their new
        order (a Merkle hash: blind to names and to the order of independent units).
        """
        own, bodies = ([0], []) if len(lines) == 1 else _bodies(lines, self.nets[offset : offset + len(lines)])
        split = self.splits[lines[0][:1] not in " \t" or len(lines) > 1]
        given = lines
        lines, own_text = self._own_text(lines, own, split)
        parts = split.split(own_text)
        tokens = parts[1::2]
        defs = self._own_defs(parts, own_text)
        if self.wanted:
            self._probe(given, own, offset)
        outer = self._bind_parameters(defs, "".join(parts[::2])) if bodies else {}
        out = [own_text] if len(lines) == 1 else list(lines)
        pure = self._own_pure(own_text)
        inner, pure_bodies = self._reorder_bodies(lines, out, bodies, offset, shared=shared)
        pure = pure and pure_bodies and self.effectful.isdisjoint(tokens)
        digest = self._merkle(parts, defs, inner)
        if bodies:
            self.restore(own_text, defs, outer)
        if not pure and bodies:  # the block's own name (not its parameters): who calls it keeps its place
            self.effectful.update(defs[:1])
        return digest, out, pure, defs

    def _own_text(self, lines: list[str], own: list[int], split: re.Pattern[str]) -> tuple[list[str], str]:
        """The unit's lines with each name a copy defines read as the first copy's (:meth:`_aliased`, on its own
        lines), and its own lines' text (a commutative operation's operands in the order of their hashes)."""
        if self.aliases or self.block_aliases:
            lines = list(lines)
            for k in own:
                lines[k] = self._aliased(lines[k])
        own_text = "\n".join(lines[k] for k in own)
        if len(lines) == 1 and self.order.commutative is not None:
            own_text = self._operands_sorted(own_text, split)
        return lines, own_text

    def _merkle(self, parts: list[str], defs: list[str], inner: Sequence[str]) -> str:
        """The hash of a unit's own text ``parts`` (split at its names) and its blocks' hashes ``inner``: each
        name it defines written as its index among them, each it reads as the hash of what defines that; the
        names it defines then read as that hash and their index."""
        hashes = self.hashes
        for k, name in enumerate(defs):
            hashes[name] = f"\0d{k}"
        tokens = parts[1::2]
        parts[1::2] = map(hashes.get, tokens, tokens)
        digest = state_rewrite.digest((*parts, *inner))
        for k, name in enumerate(defs):
            hashes[name] = f"{digest}\0{k}"
        return digest

    def _aliased(self, line: str) -> str:
        """``line`` with each name it reads that a copy of a value or a block defines read as the first
        copy's (:attr:`aliases`, :attr:`block_aliases`); a name it defines (a nested jaxpr's binder) stays.
        The dialect's own split (not compiled HLO's quicker one, which drops the ``%``) gives the line back."""
        parts = self.splits[1].split(line)
        tokens = parts[1::2]
        if self.aliases.keys().isdisjoint(tokens) and self.block_aliases.keys().isdisjoint(tokens):
            return line
        own = set(map(self.key, self.defined(line)))
        parts[1::2] = [
            token if token in own else self.aliases.get(token, self.block_aliases.get(token, token)) for token in tokens
        ]
        return "".join(parts)

    def _operands_sorted(self, line: str, split: re.Pattern[str]) -> str:
        """``line`` with a commutative operation's two operands in the order of their hashes (as it is otherwise)."""
        found = self.order.commutative.match(line) if self.order.commutative is not None else None
        if found is None:
            return line
        first, second = (self._hashed(split, found[k]) for k in (2, 3))
        if first <= second:
            return line
        return f"{found[1]}{found[3]}{line[found.end(2) : found.start(3)]}{found[2]}{found[4]}"

    def _hashed(self, split: re.Pattern[str], text: str) -> tuple[str, ...]:
        """``text`` (an operand) with each name it reads as the hash of what defines it."""
        parts = split.split(text)
        parts[1::2] = map(self.hashes.get, parts[1::2], parts[1::2])
        return tuple(parts)

    def _probe(self, lines: list[str], own: Sequence[int], offset: int) -> None:
        """Keep the hashes of the names on a unit's own lines that :attr:`wanted` names, read where the
        unit is (before its regions bind their parameters)."""
        for k in own:
            if offset + k in self.wanted:
                line = lines[k]
                tokens = self.splits[line[:1] not in " \t" or len(lines) > 1].split(line)[1::2]
                self.probes[offset + k] = {token: self.hashes.get(token, token) for token in tokens}

    def _bind_parameters(self, defs: Sequence[str], head: str) -> dict[str, str | None]:
        """Hash a block's parameters, read inside it, by the block's head and their index; their hashes before, out."""
        outer = {name: self.hashes.get(name) for name in defs}
        for k, name in enumerate(defs):
            self.hashes[name] = f"{head}\0{k}"
        return outer

    def _own_pure(self, own_text: str) -> bool:
        """Whether a unit's own lines have no side effect and call nothing (its blocks are judged apart)."""
        return not self.order.effects(own_text) and (self.calls is None or self.calls.search(own_text) is None)

    def _own_defs(self, parts: list[str], own_text: str) -> list[str]:
        """The names a unit's own lines define: the one of ``  %add.3 = ...`` or ``  ROOT %t = ...``, else
        every name :meth:`defined` finds (a jaxpr equation's outputs, a block's name and parameters)."""
        if len(parts) > 2 and parts[2].startswith(" = ") and parts[0].strip() in ("", "ROOT"):
            return [parts[1]]
        return [self.key(name) for name in self.defined(own_text)]

    def _reorder_bodies(
        self, lines: list[str], out: list[str], bodies: Sequence[tuple[int, int]], offset: int, *, shared: bool
    ) -> tuple[list[str], bool]:
        """Each block inside a unit reordered into ``out`` (last first, so earlier spans keep their place):
        the blocks' unit hashes, and whether none has a side effect."""
        inner: list[str] = []
        pure = True
        for start, stop in reversed(bodies):
            out[start:stop], found, pure_body = self.level(lines[start:stop], offset + start, shared=shared)
            inner += found
            pure = pure and pure_body
        return inner, pure

    def restore(self, first: str, defs: Sequence[str], outer: dict[str, str | None]) -> None:
        """Give the names a unit's regions bind (a jaxpr's binders, a region's or a computation's
        parameters) back the hashes they had before it: a jaxpr's nested ``{ lambda ; h:f32[] ...``
        may reuse an outer name, which still means the outer value after it. What the unit itself
        defines (left of the first `` = `` of its own text ``first``, outputs wrapped over lines
        included; a block's name) keeps its new hash."""
        cut = first.find(" = ")
        block = self.order.blocks.match(first) is not None
        results = set(defs[:1]) if block or cut < 0 else set(map(self.key, self.defined(first[: cut + 3])))
        for name in defs:
            if name in results:
                continue
            before = outer.get(name)
            if before is None:
                self.hashes.pop(name, None)
            else:
                self.hashes[name] = before


def _deeper(line: str, first: str) -> bool:
    """Whether ``line`` is indented deeper than ``first`` (a blank line is not)."""
    indent = len(line) - len(line.lstrip(" "))
    return indent < len(line) and indent > len(first) - len(first.lstrip(" "))


def _effectful_jaxprs(text: str, effects: Callable[[str], bool]) -> re.Pattern[str] | None:
    """What an eqn that calls a shared jaxpr with a side effect reads (``jaxpr=name``), or None if none has one.

    A jaxpr prints a function called more than once as ``let name = { lambda ...`` before the jaxpr that calls
    it (``jit[name=inner jaxpr=inner]``, ``while[body_jaxpr=jaxpr1 ...``): each such block with a side effect,
    or a call of one printed before it, makes every eqn that names it keep its place."""
    effectful: list[str] = []
    for chunk in _JAXPR_TOP.split(text):
        name = _JAXPR_LET.match(chunk)
        if name is None:
            continue
        calls = _jaxpr_calls(effectful)
        if effects(chunk) or (calls is not None and calls.search(chunk) is not None):
            effectful.append(re.escape(name[1]))
    return _jaxpr_calls(effectful)


def _jaxpr_calls(names: list[str]) -> re.Pattern[str] | None:
    """A reference to one of the shared jaxprs ``names`` in an eqn's parameters: ``jaxpr=inner]``,
    ``body_jaxpr=jaxpr1 ``, ``branches=(a, b)``; None for no names."""
    return re.compile(rf"(?<=[=(,\s])(?:{'|'.join(names)})(?=[\s,)\]])") if names else None


# Where a jaxpr's top-level jaxprs start (a line at column 0), and a shared one's name.
_JAXPR_TOP = re.compile(r"^(?=\S)", re.MULTILINE)
_JAXPR_LET = re.compile(r"let (\w+) = \{")


# A unit read: its hash, its lines as rewritten, whether it may move, and its Ref and rank if it reads or writes one.
_Done = tuple[str, list[str], bool, tuple[str, int] | None]


def _sorted_runs(done: Mapping[int, _Done], count: int, front: Sequence[int] = ()) -> tuple[list[str], list[str]]:
    """The ``count`` units of ``done`` as lines, each run of movable units (Ref reads and writes included)
    between fixed ones sorted by hash, the units ``front`` (movable sources) first, as a run of their own;
    the units' hashes in that order."""
    digests: list[str] = []
    run: list[tuple[str, int, list[str], tuple[str, int] | None]] = [(done[k][0], k, done[k][1], None) for k in front]
    out = _flush(run, digests)
    hoisted = set(front)
    for index in range(count):
        if index in hoisted:
            continue
        digest, unit, movable, access = done[index]
        if movable or access is not None:
            run.append((digest, index, unit, access))
            continue
        out += _flush(run, digests)
        out += unit
        digests.append(digest)
    out += _flush(run, digests)
    return out, digests


def _flush(run: list[tuple[str, int, list[str], tuple[str, int] | None]], digests: list[str]) -> list[str]:
    """The run's units sorted by hash (ties in their order) as lines; their hashes appended to ``digests``.
    The places one Ref's reads and writes sort to are refilled with them by rank, then hash: two reads
    between the same writes may swap, nothing else of one Ref may."""
    run.sort(key=lambda item: item[:2])
    places: dict[str, list[int]] = {}
    for place, (_, _, _, access) in enumerate(run):
        if access is not None:
            places.setdefault(access[0], []).append(place)
    for where in places.values():
        ranked = sorted((run[place] for place in where), key=lambda item: (item[3], item[0], item[1]))
        for place, item in zip(where, ranked, strict=True):
            run[place] = item
    digests += [digest for digest, _, _, _ in run]
    lines = [line for _, _, unit, _ in run for line in unit]
    run.clear()
    return lines


def _bodies(lines: Sequence[str], nets: Sequence[int]) -> tuple[list[int], list[tuple[int, int]]]:
    """A unit's own lines and its blocks' insides ``[start, stop)``: the lines after a line that ends in ``{``
    or ``let`` (an HLO computation, a function, a region, a jaxpr) up to the line that closes it.
    ``nets``: how many brackets each line leaves open."""
    own: list[int] = []
    bodies: list[tuple[int, int]] = []
    depth = 0
    base: int | None = None
    start = 0
    for k, (line, net) in enumerate(zip(lines, nets, strict=True)):
        stripped = line.lstrip(" \t")
        if base is not None and depth + min(net, len(stripped.lstrip(")]}")) - len(stripped)) < base:
            bodies.append((start, k))
            base = None
        depth += net
        if base is None:
            own.append(k)
            stripped = stripped.rstrip()
            if k + 1 < len(lines) and (stripped.endswith("{") or stripped.endswith(". let") or stripped == "let"):
                base, start = depth, k + 1
    if base is not None:
        bodies.append((start, len(lines)))
    return own, bodies
