"""The project's Markdown documents link to files and headings that exist."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = {"runs", "build", "dist", "site-packages", "node_modules"}  # experiments, builds, installed packages
DOCUMENTS = sorted(str(path.relative_to(ROOT)) for path in ROOT.glob("**/*.md")
                   if not any(part.startswith(".") or part in SKIPPED for part in path.relative_to(ROOT).parts))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    found, fenced = set(), False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def broken_links(root: Path, document: str) -> list[str]:
    """The links of ``root / document`` to a missing file or heading (web links are not checked)."""
    source = root / document
    broken = []
    for target in LINK.findall(source.read_text()):
        if re.match(r"[a-z]+:", target):
            continue
        file_part, _, anchor = target.partition("#")
        path = (source.parent / file_part).resolve() if file_part else source
        if not path.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{target} (no such heading)")
    return broken


@pytest.mark.parametrize("document", DOCUMENTS)
def test_local_links_resolve(document):
    assert broken_links(ROOT, document) == []


def test_anchors_follow_githubs_rule(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Training on Ray RLlib\n\n```bash\n# a shell comment\n```\n\n### A value, for the search\n")
    assert anchors(page) == {"training-on-ray-rllib", "a-value-for-the-search"}


def test_a_broken_link_is_reported(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("# Set-up\n\n[ok](#set-up), [gone](#speed), [file](docs/none.md)\n")
    assert broken_links(tmp_path, "README.md") == ["#speed (no such heading)", "docs/none.md (no such file)"]
