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


def cited_tests(text: str) -> tuple[set[str], set[str]]:
    """The test functions and test files named in ``text``'s square brackets (links left out)."""
    functions, files = set(), set()
    for cited in re.findall(r"\[([^\]]*)\](?!\()", text):
        files |= set(re.findall(r"\btests/\w+\.py\b", cited))
        functions |= set(re.findall(r"\b(test_\w+)\b(?!\.py)", cited))
    return functions, files


def test_every_test_rules_md_cites_exists():
    functions, files = cited_tests((ROOT / "RULES.md").read_text())
    defined = {name for path in (ROOT / "tests").glob("test_*.py")
               for name in re.findall(r"^def (test_\w+)\(", path.read_text(), re.M)}
    assert len(functions) >= 20 and len(files) >= 5  # about what RULES.md cites today: a parsing slip shows
    assert sorted(functions - defined) == [] and sorted(f for f in files if not (ROOT / f).is_file()) == []


def test_cited_tests_are_found_across_lines():
    text = "- A rule. [test_one,\n  tests/test_two.py::test_three; tests/test_four.py checks]\n[a link](x.md)"
    assert cited_tests(text) == ({"test_one", "test_three"}, {"tests/test_two.py", "tests/test_four.py"})
