"""Check README.md's links into this repository (files, and #anchors into docs/*.md) against a built site,
and every link to a README.md section (from README.md itself or from a docs page) against its headings.

The project has no public address yet, so README.md links into the repository relatively
(``docs/configs.md#...``): the links work in a checkout and on the repository's web view, and
none points at an invented URL. Each relative link is checked: the file exists, and an anchor is
an id the built page has (GitHub and mkdocs make the same ids from these headings). A link to a
repository host is reported (an address the project does not have). `mkdocs build --strict`
checks the links between the docs pages; run this after it:
`mkdocs build --strict && python docs/check_links.py [SITE_DIR]` (default `site`).
"""

from __future__ import annotations

import html.parser
import pathlib
import re
import sys

# A Markdown link target: [text](docs/configs.md#tpu-and-gpu-without-the-hardware) -> the part in parentheses.
LINK = re.compile(r"\]\(([^)\s]+)\)")
# A fenced code block, whose text is not Markdown: ```bash ... ```
FENCE = re.compile(r"```.*?```", re.S)
# An absolute URL's scheme: https:, mailto:
SCHEME = re.compile(r"[a-z]+:")
# A Markdown heading: ## Example
HEADING = re.compile(r"^#{1,6} (.+?)\s*$", re.M)
# A link to a section of README.md from a docs page: (../README.md#example)
README_ANCHOR = re.compile(r"\]\((?:\.\./)?README\.md#([^)\s]+)\)")
# A link into a code host: the project has no repository there yet.
REPOSITORY_HOST = re.compile(r"https?://(www\.)?(github\.com|gitlab\.com)/")


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


def readme_anchors(readme: str) -> set[str]:
    """The ids GitHub gives README.md's headings: lower case, punctuation dropped, spaces as hyphens."""
    return {
        re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in HEADING.findall(FENCE.sub("", readme))
    }


def broken_readme_anchors(page: str, readme: str) -> list[str]:
    """Every link of a docs ``page`` to a README.md section that README.md has no heading for."""
    anchors = readme_anchors(readme)
    return [
        f"README.md#{anchor}: README.md has no such section"
        for anchor in README_ANCHOR.findall(FENCE.sub("", page))
        if anchor not in anchors
    ]


def broken_links(readme: str, root: pathlib.Path, site: pathlib.Path) -> list[str]:
    """Every relative link of ``readme`` whose file is missing or whose anchor its built page (or README.md's
    own headings) lacks, and every link to a repository host (the project has no public address to link)."""
    broken = []
    for target in LINK.findall(FENCE.sub("", readme)):
        if target.startswith("#"):
            if target[1:] not in readme_anchors(readme):
                broken.append(f"{target}: README.md has no such section")
            continue
        if SCHEME.match(target):
            if REPOSITORY_HOST.match(target):
                broken.append(f"{target}: an address the project does not have; link the file relatively")
            continue
        path, _, anchor = target.partition("#")
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
    broken = [f"README.md: {line}" for line in broken_links(readme, root, site)]
    for page in sorted((root / "docs").glob("*.md")):
        broken += [
            f"docs/{page.name}: {line}" for line in broken_readme_anchors(page.read_text(encoding="utf-8"), readme)
        ]
    for line in broken:
        print(line)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
