"""pytest stash keys shared by the hook layer (``plugin.py``) and the registered-item collector."""

from __future__ import annotations

import pytest

from .observe import Observer
from .runner import StageSnapshot, StagesSession

SESSION = pytest.StashKey[StagesSession]()
SNAPSHOT = pytest.StashKey[StageSnapshot]()
OBSERVER = pytest.StashKey[Observer]()
