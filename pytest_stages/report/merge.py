"""The merge of shard reports (pure: JSON report data in, one run's report and its completeness out).

:func:`merge_reports` folds the shards' reports into the :class:`RunReport` one run would have made, and
says whether they together judged the whole tree (only then may a prune delete anything).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_stages.core.records import Mode
from pytest_stages.core.run_view import CollectionView, ItemOutcome, RunFacts, worse, worse_exit
from pytest_stages.report.errors import MergeError
from pytest_stages.report.render import REPORT_SCHEMA, ReportSettings, RunReport, ShardEntry
from pytest_stages.store.names import snapshot_folder
from pytest_stages.store.prune import merge_gaps
from pytest_stages.store.prune_reasons import Incomplete
from pytest_stages.store.schemas import report_schema, schema_mismatch

_FIX = "Merge the JSON reports (--stages-report=PATH.json) that the shards of one run wrote."


@dataclass(frozen=True)
class Shard:
    """One shard's report, read: its name (the file it came from), facts, settings and records."""

    name: str
    facts: RunFacts
    settings: ReportSettings
    report: RunReport

    @property
    def key(self) -> tuple[tuple[str, ...], int]:
        """The cut this shard belongs to (its selected configs) and its group within the split (0 if unsplit)."""
        return tuple(self.settings["selected"]), (self.facts.split or {}).get("group", 0)


@dataclass(frozen=True)
class Merged:
    """The shards folded into one run: the report, the union of their facts, and why it is incomplete."""

    report: RunReport
    facts: RunFacts
    settings: ReportSettings
    incomplete: list[Incomplete]
    missing: list[str]
    # Each shard's report name, with the commit and the snapshot tree digest it recorded.
    states: list[tuple[str, str, str]]


def read_shard(name: str, data: Mapping[str, Any]) -> Shard:
    """A shard from its JSON report data; a report without the run facts a merge needs is refused."""
    if not isinstance(data, Mapping) or data.get("schema") != REPORT_SCHEMA:
        raise MergeError(f"{name} is not a pytest-stages JSON report (schema {REPORT_SCHEMA}). {_FIX}")
    if "run" not in data or "settings" not in data or "shards" in data:
        raise MergeError(
            f'{name} has no run facts of its own ("run", "settings"): it is a merged report or was written by an '
            f"older pytest-stages. {_FIX}"
        )
    problem = schema_mismatch(data, report_schema(), "the report")
    try:
        problem = problem or _bad_folder(data)
        report = None if problem else RunReport.from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise MergeError(
            f"{name} is not a whole pytest-stages report ({type(exc).__name__}: {exc}): it was edited, cut off, or "
            f"written by another pytest-stages version. {_FIX}"
        ) from None
    if problem or report is None or report.run is None:
        raise MergeError(
            f"{name} is not a pytest-stages report as pytest-stages writes it ({problem}): it was edited, cut off, "
            f"or written by another pytest-stages version. {_FIX}"
        )
    return Shard(name, report.run, data["settings"], report)


def _bad_folder(data: Mapping[str, Any]) -> str | None:
    """A snapshot folder the schema cannot judge: one pytest-stages never names (``../../x/y``)."""
    run = data["run"]
    # Each distinct folder once, in order: an item's calls and its collection entry share one.
    folders = dict.fromkeys(
        [*(f for f in run["collection"]["items"].values() if f is not None), *(c["folder"] for c in data["calls"])]
    )
    bad = next((folder for folder in folders if not snapshot_folder(folder)), None)
    return None if bad is None else f"the snapshot folder {bad!r} is not one pytest-stages names"


def merge_reports(shards: Sequence[Shard]) -> Merged:
    """Fold the shards into one run's report; :attr:`Merged.incomplete` lists why a prune must be refused."""
    if not shards:
        raise MergeError(f"no report to merge. {_FIX}")
    _check_agree(shards)
    ordered = sorted(shards, key=lambda shard: shard.key)
    facts = union(shard.facts for shard in ordered)
    missing = missing_groups(ordered)
    incomplete = merge_gaps([(shard.name, shard.facts) for shard in ordered], missing, facts)
    first = ordered[0]
    configs = list(first.settings["configs"])
    selected = {name for shard in ordered for name in shard.settings["selected"]}
    settings: ReportSettings = {**first.settings, "selected": [name for name in configs if name in selected]}
    report = RunReport(
        records=[record for shard in ordered for record in shard.report.records],
        update=first.report.update,
        environment=first.report.environment,
        run=facts,
        settings=settings,
        shards=[
            ShardEntry(report=s.name, split=s.facts.split, exit_status=s.facts.exit_status, calls=len(s.report.records))
            for s in ordered
        ],
    )
    states = [(shard.name, shard.facts.commit, shard.facts.snapshots) for shard in ordered]
    return Merged(report, facts, settings, incomplete, missing, states)


def _check_agree(shards: Sequence[Shard]) -> None:
    """Shards of one run share the mode, the versions and the snapshot settings; anything else is refused."""
    first = shards[0]
    facets: dict[str, Callable[[Shard], object]] = {
        "mode": lambda s: Mode.of(s.report.update),
        "jax/jaxlib versions": lambda s: dict(s.report.environment),
        "snapshot_dir": lambda s: s.settings["snapshot_dir"],
        "configs": lambda s: list(s.settings["configs"]),
    }
    for facet, read in facets.items():
        for shard in shards[1:]:
            if read(shard) != read(first):
                raise MergeError(
                    f"{shard.name} and {first.name} differ in {facet} ({read(shard)} vs {read(first)}): they are not "
                    f"shards of one run. {_FIX}"
                )
    seen: dict[tuple[tuple[str, ...], int], str] = {}
    for shard in shards:
        if shard.key in seen:
            configs = ",".join(shard.key[0])
            what = f"group {shard.key[1]} of the split" if shard.key[1] else f"the whole suite on configs {configs}"
            raise MergeError(f"{shard.name} and {seen[shard.key]} are both {what}: pass each shard's report once.")
        seen[shard.key] = shard.name


def missing_groups(shards: Sequence[Shard]) -> list[str]:
    """``2/3`` for each group of a pytest-split split that no report stands for (per cut of configs)."""
    missing = []
    cuts: dict[tuple[str, ...], tuple[int, set[int]]] = {}
    for shard in shards:
        if shard.facts.split is not None:
            splits, groups = cuts.setdefault(shard.key[0], (shard.facts.split["splits"], set()))
            if shard.facts.split["splits"] != splits:
                raise MergeError(
                    f"{shard.name} is group {shard.key[1]} of {shard.facts.split['splits']}, another shard of the "
                    f"same configs one of {splits}: merge the shards of one split."
                )
            groups.add(shard.key[1])
    for configs, (splits, groups) in cuts.items():
        label = f" (configs {','.join(configs)})" if len(cuts) > 1 else ""
        missing += [f"{group}/{splits}{label}" for group in range(1, splits + 1) if group not in groups]
    return missing


def union(all_facts: Iterable[RunFacts]) -> RunFacts:
    """What the shards observed together: an item one shard removed and another ran counts as run."""
    collection, outcomes, lost = CollectionView(), dict[str, ItemOutcome](), list[str]()
    removed, finished, roots = set[str](), set[str](), set[str]()
    merged = RunFacts(collection, [], outcomes, [])
    passed = set[str]()  # an item one shard skipped and another ran was checked
    for facts in all_facts:
        passed |= {nodeid for nodeid, outcome in facts.outcomes.items() if outcome != ItemOutcome.SKIPPED}
        collection.merge(facts.collection)
        removed |= set(facts.collection.removed)
        for nodeid, outcome in facts.outcomes.items():
            outcomes[nodeid] = worse(outcomes.get(nodeid, ItemOutcome.PASSED), outcome)
        finished |= set(facts.finished)
        lost += facts.lost_workers
        merged.skipped.update(facts.skipped)
        roots |= set(facts.roots)
        merged.collect_only |= facts.collect_only
        merged.stopped_early |= facts.stopped_early
        merged.exit_status = worse_exit(merged.exit_status, facts.exit_status)
    collection.removed = sorted(removed - set(collection.items))
    merged.skipped = {nodeid: why for nodeid, why in sorted(merged.skipped.items()) if nodeid not in passed}
    merged.roots, merged.finished, merged.lost_workers = sorted(roots), sorted(finished), lost
    return merged
