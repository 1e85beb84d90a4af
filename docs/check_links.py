"""Check README.md's links into this repository (files, and #anchors into docs/*.md) against a built site.

README.md is also the package's description on PyPI, where a relative link leads nowhere, so its
links into the repository are absolute: the ``Repository`` URL of ``[project.urls]`` in
pyproject.toml, then ``/blob/main/`` and the path. Each is mapped back to the file in this
checkout and checked: the file exists, and an anchor is an id the built page has (GitHub and
mkdocs make the same ids from these headings). A relative link is reported as one to make
absolute. `mkdocs build --strict` checks the links between the docs pages; run this after it:
`mkdocs build --strict && python docs/check_links.py [SITE_DIR]` (default `site`).
"""

from __future__ import annotations

import html.parser
import pathlib
import re
import sys
import tomllib

# A Markdown link target: [text](docs/configs.md#tpu-and-gpu-without-the-hardware) -> the part in parentheses.
LINK = re.compile(r"\]\(([^)\s]+)\)")
# A fenced code block, whose text is not Markdown: ```bash ... ```
FENCE = re.compile(r"```.*?```", re.S)
# An absolute URL's scheme: https:, mailto:
SCHEME = re.compile(r"[a-z]+:")


class _Ids(html.parser.HTMLParser):
    """Collects every id attribute of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(value for name, value in attrs if name == "id" and value)


def page_ids(site: pathlib.Path, page: str) -> set[str]:
    """The ids of the built page of ``docs/<page>`` (``index.md`` -> ``index.html``, ``x.md`` -> ``x/index.html``)."""
    built = site / ("index.html" if page == "index.md" else page.removesuffix(".md") + "/index.html")
    parser = _Ids()
    parser.feed(built.read_text(encoding="utf-8"))
    return parser.ids


def repository_files(root: pathlib.Path) -> str:
    """The URL prefix of the repository's files: ``https://github.com/o/r/blob/main/``, from pyproject.toml."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["urls"]["Repository"].rstrip("/") + "/blob/main/"


def broken_links(readme: str, root: pathlib.Path, site: pathlib.Path, prefix: str) -> list[str]:
    """Every link of ``readme`` under ``prefix`` whose file is missing or whose anchor its built page lacks,
    and every relative link (broken on PyPI)."""
    broken = []
    for target in LINK.findall(FENCE.sub("", readme)):
        if not SCHEME.match(target) and not target.startswith("#"):
            broken.append(f"{target}: a relative link, which breaks on PyPI; write {prefix}{target}")
            continue
        if not target.startswith(prefix):
            continue
        path, _, anchor = target.removeprefix(prefix).partition("#")
        if not (root / path).exists():
            broken.append(f"{target}: no such file")
        elif anchor and not (path.startswith("docs/") and path.endswith(".md")):
            broken.append(f"{target}: an anchor outside docs/*.md is not checked; link the page instead")
        elif anchor and anchor not in page_ids(site, path.removeprefix("docs/")):
            broken.append(f"{target}: the page has no anchor #{anchor}")
    return broken


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    site = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root / "site"
    readme = (root / "README.md").read_text(encoding="utf-8")
    broken = broken_links(readme, root, site, repository_files(root))
    for line in broken:
        print(f"README.md: {line}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
