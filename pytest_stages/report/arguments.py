"""What the ``pytest-stages`` commands share on the command line: the exit statuses, the arguments that select
calls and name the project, and the project's settings read from its root."""

from __future__ import annotations

import argparse
from pathlib import Path

from pytest_stages.config.discovery import load_pyproject
from pytest_stages.config.settings import Settings, parse_settings
from pytest_stages.core.errors import ConfigError

# Exit statuses: done; a test or a snapshot check failed; bad input; the shards do not cover the suite; Ctrl-C.
OK, FAILED, USAGE, INCOMPLETE, INTERRUPTED = 0, 1, 2, 3, 130


def add_keyword(parser: argparse.ArgumentParser) -> None:
    """``-k EXPRESSION``, as pytest selects tests."""
    parser.add_argument("-k", dest="keyword", metavar="EXPRESSION", help="select calls as pytest -k selects tests")


def add_rootdir(parser: argparse.ArgumentParser, what: str = "the project root") -> None:
    """``--rootdir``, the project root (the current folder by default)."""
    parser.add_argument("--rootdir", default=".", help=f"{what} (default: .)")


def project_settings(args: argparse.Namespace) -> tuple[Path, Settings]:
    """The ``--rootdir`` folder, resolved, and the settings of its pyproject.toml, which it must hold."""
    rootdir = Path(args.rootdir).resolve()
    if not (rootdir / "pyproject.toml").is_file():
        raise ConfigError(f"{rootdir} has no pyproject.toml: run at the project root, or pass --rootdir.")
    return rootdir, parse_settings(load_pyproject(rootdir))
