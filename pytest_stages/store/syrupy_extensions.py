"""syrupy extensions for stage texts and analyses, one per artifact of the table.

For tests that use syrupy's own ``snapshot`` fixture::

    assert lowered.as_text() == snapshot.with_defaults(extension_class=StableHLOExtension)

Each writes one file per assertion in syrupy's layout, normalized by the artifact's normalizer, and explains
a mismatch with the renumbering-proof diff (docs/snapshots.md, "With syrupy's own snapshot fixture").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar

from syrupy.data import SnapshotCollection
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.types import (
    PropertyFilter,
    PropertyMatcher,
    SerializableData,
    SerializedData,
)

from pytest_stages.analyse.artifacts import ARTIFACTS, Artifact
from pytest_stages.config.settings import DEFAULT_DIFF_LINES
from pytest_stages.core.paths import write_atomically
from pytest_stages.ir.diff_render import unified
from pytest_stages.ir.normalize import to_json
from pytest_stages.ir.textdiff import edit_script
from pytest_stages.store.names import extension_name


class ArtifactExtension(SingleFileSnapshotExtension):
    """Base of the generated classes: one artifact's serializer, file suffix and diff.

    A text file per snapshot, written atomically (syrupy's own write truncates the file first).
    ``diff_limit`` caps the diff lines of a failure message.
    """

    _write_mode = WriteMode.TEXT

    artifact: ClassVar[Artifact]
    normalize: ClassVar[Callable[[str], str] | None] = None
    longer_suffixes: ClassVar[tuple[str, ...]] = ()
    diff_limit: ClassVar[int] = DEFAULT_DIFF_LINES

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> SerializedData:
        """The exact file text: a stage text normalized, analysis data (or its JSON text) as sorted JSON."""
        normalize = type(self).normalize
        if normalize is None:
            return to_json(json.loads(data) if isinstance(data, str) else data)
        if not isinstance(data, str):
            raise TypeError(
                f"{type(self).__name__} snapshots {self.artifact.name} text, got {type(data).__name__}: "
                "pass the text (str(jaxpr), lowered.as_text(), compiled.as_text() or result.texts[...])"
            )
        return normalize(data)

    @classmethod
    def write_snapshot_collection(
        cls, *, snapshot_collection: SnapshotCollection, name_order: dict[str, int] | None = None
    ) -> None:
        """syrupy's write of the one snapshot of a file, through :func:`write_atomically`: old or new, never half."""
        path = Path(snapshot_collection.location)
        data = next(iter(snapshot_collection)).data
        if not isinstance(data, str):  # text mode: serialize gives str
            raise TypeError(f"{cls.__name__} writes text, got {type(data).__name__} for {path}")
        write_atomically(path, data)

    def diff_lines(self, serialized_data: SerializedData, snapshot_data: SerializedData) -> Iterator[str]:
        """The renumbering-proof unified diff, snapshot (-) to received (+): a renamed value is no change."""
        script = edit_script(self.artifact.dialect, str(snapshot_data), str(serialized_data))
        yield from unified(script, self.diff_limit, header=False)

    def is_snapshot_location(self, *, location: str) -> bool:
        """A file with this suffix and not a longer artifact suffix ending in it.

        Else ``HLOExtension`` would take ``test_f.compiled.hlo.txt`` for a snapshot named
        ``test_f.compiled``, which it never uses, and syrupy would delete it as unused.
        """
        return super().is_snapshot_location(location=location) and not location.endswith(self.longer_suffixes)


def _extension_class(artifact: Artifact) -> type[ArtifactExtension]:
    """The artifact's extension class: its suffix, normalizer (None: JSON) and the longer suffixes to leave alone."""
    namespace: dict[str, object] = {
        "__module__": __name__,
        "__doc__": f"syrupy extension for the ``{artifact.name}`` artifact (``*{artifact.suffix}`` files).",
        "artifact": artifact,
        "file_extension": artifact.suffix.lstrip("."),
        "normalize": staticmethod(artifact.normalize) if artifact.is_text else None,
        "longer_suffixes": tuple(
            other.suffix
            for other in ARTIFACTS
            if other.suffix != artifact.suffix and other.suffix.endswith(artifact.suffix)
        ),
    }
    return type(extension_name(artifact.name, artifact.suffix), (ArtifactExtension,), namespace)


EXTENSIONS: dict[str, type[ArtifactExtension]] = {artifact.name: _extension_class(artifact) for artifact in ARTIFACTS}

# Module attributes under their own names: syrupy finds an extension by ``module.qualname``
# (xdist workers' reports, ``--snapshot-default-extension``); a new artifact adds its line here
# (tests/test_syrupy_extensions.py fails until it does).
JaxprExtension = EXTENSIONS["jaxpr"]
StableHLOExtension = EXTENSIONS["stablehlo"]
HLOExtension = EXTENSIONS["hlo"]
CompiledHLOExtension = EXTENSIONS["compiled"]
CostExtension = EXTENSIONS["cost"]
MemoryExtension = EXTENSIONS["memory"]
OpsExtension = EXTENSIONS["ops"]
ShardingExtension = EXTENSIONS["sharding"]
LayoutExtension = EXTENSIONS["layout"]
KernelIRExtension = EXTENSIONS["kernel_ir"]
KernelsExtension = EXTENSIONS["kernels"]
CompilesExtension = EXTENSIONS["compiles"]


def extension_for(artifact: str) -> type[ArtifactExtension]:
    """The extension class of an artifact, by name (``"stablehlo"``, ``"cost"``, ...)."""
    try:
        return EXTENSIONS[artifact]
    except KeyError:
        raise ValueError(f"unknown artifact {artifact!r}; known: {', '.join(EXTENSIONS)}") from None


__all__ = [
    "EXTENSIONS",
    "ArtifactExtension",
    "CompiledHLOExtension",
    "CompilesExtension",
    "CostExtension",
    "HLOExtension",
    "JaxprExtension",
    "KernelIRExtension",
    "KernelsExtension",
    "LayoutExtension",
    "MemoryExtension",
    "OpsExtension",
    "ShardingExtension",
    "StableHLOExtension",
    "extension_for",
]
