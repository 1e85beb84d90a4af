"""CI: every GitHub Actions workflow the docs show is valid and safe, checked by zizmor.

The workflows are read from the docs' fenced ``yaml`` blocks (a block with a top-level ``jobs:``
is a workflow; the docs are their one source), written to a scratch ``.github/workflows/``
folder, one file per block, and audited by zizmor (the ``lint`` extra) offline: a schema or
syntax error fails (``--strict-collection``), and so does any finding, from excessive
permissions and credentials left to later steps to template injection and dangerous triggers.
A finding a workflow accepts on purpose carries zizmor's own ``# zizmor: ignore[...]`` comment
with its reason, in the docs. zizmor runs under its default policy, as in a user's repository
(``--no-config``): every action, GitHub's own too, pinned to a full commit hash (with its
release tag in a comment).

Usage: python .ci/docs_workflows.py
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A fenced yaml block, and the top-level key that makes one a workflow.
YAML_BLOCK = re.compile(r"^```yaml\n(.*?)^```", re.M | re.S)
JOBS = re.compile(r"^jobs:", re.M)


def workflows(root: Path = ROOT) -> list[tuple[str, str]]:
    """Every workflow in the docs: (``page:n``, its text), ``n`` counting the page's workflows from 1."""
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    found = []
    for page in pages:
        texts = [text for text in YAML_BLOCK.findall(page.read_text(encoding="utf-8")) if JOBS.search(text)]
        found += [(f"{page.relative_to(root)}:{number}", text) for number, text in enumerate(texts, 1)]
    return found


def main() -> int:
    found = workflows()
    if not found:
        print("docs_workflows: no workflow found in the docs' yaml blocks", file=sys.stderr)
        return 1
    scratch = Path(tempfile.mkdtemp(prefix="stages-workflows-"))
    try:
        folder = scratch / ".github" / "workflows"
        folder.mkdir(parents=True)
        for name, text in found:
            file = folder / (re.sub(r"[^\w]+", "-", name) + ".yml")
            file.write_text(text, encoding="utf-8")
            print(f"docs_workflows: {name} -> {file.name}")
        zizmor = shutil.which("zizmor") or str(Path(sys.executable).parent / "zizmor")
        options = ["--offline", "--strict-collection", "--no-progress", "--color=never"]
        command = [zizmor, *options, "--no-config", str(scratch)]
        return subprocess.run(command, check=False).returncode
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
