"""``python -m pytest_stages merge REPORT...``: the command line (see :mod:`pytest_stages.report.cli`)."""

from __future__ import annotations

import sys

from pytest_stages.report.cli import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m pytest_stages"))
