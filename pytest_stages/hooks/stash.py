"""pytest stash keys shared by the hook modules and the registered-item collector."""

from __future__ import annotations

import pytest

from pytest_stages.calls.compiles_block import StageCompiles
from pytest_stages.calls.session import StagesSession
from pytest_stages.calls.snapshot_call import StageSnapshot
from pytest_stages.hooks.observe import Observer
from pytest_stages.stage.chip import ChipPlan
from pytest_stages.store.storage import SnapshotFolder

SESSION = pytest.StashKey[StagesSession]()
SNAPSHOT = pytest.StashKey[StageSnapshot]()
OBSERVER = pytest.StashKey[Observer]()
COMPILES = pytest.StashKey[StageCompiles]()
FOLDER = pytest.StashKey[SnapshotFolder]()  # an item's snapshot folder, as collection worked it out
CHIP = pytest.StashKey[ChipPlan]()  # what this process decided about an attached accelerator
