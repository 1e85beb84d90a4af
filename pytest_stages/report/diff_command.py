"""``pytest-stages diff OLD NEW``: the renumbering-proof diff of two snapshot files, for people and for git.

Also git's external diff (docs/snapshots.md, "Reviewing snapshot diffs locally"): per snapshot file, the op
summary and diff a failure message prints, the artifact read from the file name.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import TextIO

from pytest_stages.analyse.artifacts import ARTIFACTS, BY_NAME
from pytest_stages.check.drift import compare_text, summary_lines
from pytest_stages.core.inputs import read_text
from pytest_stages.ir.diff_render import unified
from pytest_stages.ir.renaming import equivalent
from pytest_stages.ir.textdiff import edit_script
from pytest_stages.report.arguments import USAGE

# git's external diff arguments: path old-file old-hex old-mode new-file new-hex new-mode [new-path rename-info]
GIT_ARGUMENTS = (7, 9)
# What git passes for the missing side of an added or deleted file.
MISSING = "/dev/null"
SAME_PROGRAM = (
    "same program: only names (one to one) or the order of independent operations changed (a re-recorded snapshot)"
)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``diff`` subcommand, on the command line's subparsers."""
    diff = commands.add_parser(
        "diff",
        help="the renumbering-proof diff of two snapshot files (a git diff driver)",
        description="Print the op summary and the renumbering-proof diff of two snapshot files: "
        "`pytest-stages diff OLD NEW`, or as git's external diff driver (docs/snapshots.md).",
    )
    diff.add_argument("files", nargs="+", metavar="FILE", help="OLD NEW, or the 7 (9) arguments git passes")


def run(args: argparse.Namespace, stream: TextIO = sys.stdout) -> int:
    """Print the diff; 0 whether or not the files differ (git stops at a driver's non-zero status)."""
    files = args.files
    if len(files) == 2:
        path, old, new = files[1] if files[1] != MISSING else files[0], files[0], files[1]
        shown = (path, path)
    elif len(files) in GIT_ARGUMENTS:
        path, old, new = files[0], files[1], files[4]
        shown = (files[0], files[7] if len(files) == 9 else files[0])
    else:
        stream.write(
            f"pytest-stages diff: expected two files (OLD NEW) or the 7 arguments of git's external diff, got "
            f"{len(files)}. Run `pytest-stages diff OLD NEW`, or set the driver up as docs/snapshots.md shows.\n"
        )
        return USAGE
    texts = []
    for name in (old, new):
        try:
            texts.append(read_text(name) if name != MISSING else "")
        except (OSError, ValueError) as exc:
            stream.write(f"pytest-stages diff: cannot read {name} ({exc}). Pass two readable text files.\n")
            return USAGE
    stream.writelines(line + "\n" for line in diff_lines(path, shown, *texts))
    return 0


def artifact_of(path: str) -> str | None:
    """The artifact a snapshot file holds, by its longest matching suffix (``f.compiled.hlo.txt`` -> compiled)."""
    found = [a for a in ARTIFACTS if path.endswith(a.suffix)]
    return max(found, key=lambda a: len(a.suffix)).name if found else None


def diff_lines(path: str, shown: tuple[str, str], old: str, new: str) -> list[str]:
    """The header, op summary and full renumbering-proof diff of one file (nothing where the texts are equal)."""
    if old == new:
        return []
    artifact = artifact_of(path)
    header = [f"diff --stages a/{shown[0]} b/{shown[1]}"]
    files = [f"--- a/{shown[0]}", f"+++ b/{shown[1]}"]
    if artifact is None:
        plain = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="")
        return [*header, *files, *list(plain)[2:]]
    if equivalent(BY_NAME[artifact].dialect, old, new):
        return [*header, SAME_PROGRAM]
    found = compare_text(artifact, old, new, diff_lines=0)
    summary = summary_lines(found.detail) if found and found.detail else []
    script = edit_script(BY_NAME[artifact].dialect, old, new)
    return [*header, *summary, *files, *unified(script, sys.maxsize, header=False)]
